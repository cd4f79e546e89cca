// --per-rank-reports (multi-rank.md §2, §9.1): each loaded rank's own single-rank report under
// OUT/ranks/rank-NNNNN/, and on the focus rank's compute and fusion cards the line "Seen on K of
// N ranks (impact lo–hi%)" from the cards with the same (analyzer, key) in the ranks' reports.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "findings/ranker.hpp"
#include "pipeline/analysis_pipeline.hpp"

namespace traceprism::cli {

struct RankTrace {
  int rank = -1;
  std::string path;
};

// One rank's compute and fusion findings: impact mid (% of that rank's end-to-end time) by
// (analyzer, key), the largest when a key repeats.
using SeenFindings = std::map<std::pair<std::string, std::string>, double>;

SeenFindings seen_findings(const findings::RankedFindings& ranked);

// "ranks/rank-00003": where rank 3's report goes inside the output folder.
std::string rank_report_folder(int rank);

// Runs the single-rank pipeline on every rank (ascending rank; the focus rank's too, without the
// cross-rank items its report carries), writing each report under `output_dir`/ranks/. Returns
// the findings of each report written; a rank whose pipeline fails is left out with a sentence
// appended to `warnings`.
std::vector<SeenFindings> write_per_rank_reports(const pipeline::PipelineOptions& options,
                                                 const std::vector<RankTrace>& ranks,
                                                 const std::filesystem::path& output_dir,
                                                 bool quiet, std::vector<std::string>& warnings);

// Adds to each compute and fusion finding of `focus` the metrics seen_on_ranks and
// ranks_compared and the sentence "Seen on K of N ranks (impact lo–hi%)." to its insight;
// `ranks` holds every compared rank's findings, the focus rank's own included.
void add_seen_on_ranks(findings::RankedFindings& focus, const std::vector<SeenFindings>& ranks);

}  // namespace traceprism::cli
