#include "cli/per_rank_reports.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "io/report_manifest.hpp"
#include "report/report_writers.hpp"

namespace traceprism::cli {

namespace {

std::string percent(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

void add_seen_on_ranks(findings::Finding& f, const std::vector<SeenFindings>& ranks) {
  const auto key = std::make_pair(f.analyzer, f.key);
  std::size_t seen = 0;
  double low = 0, high = 0;
  for (const SeenFindings& rank : ranks) {
    const auto it = rank.find(key);
    if (it == rank.end()) continue;
    low = seen ? std::min(low, it->second) : it->second;
    high = seen ? std::max(high, it->second) : it->second;
    ++seen;
  }
  if (seen == 0) return;  // ranks does not hold the focus rank's own findings
  f.metrics.emplace_back("seen_on_ranks", static_cast<double>(seen));
  f.metrics.emplace_back("ranks_compared", static_cast<double>(ranks.size()));
  std::string sentence = "Seen on " + std::to_string(seen) + " of " + std::to_string(ranks.size()) +
                         " ranks (impact " + percent(low);
  if (percent(high) != percent(low)) sentence += "\u2013" + percent(high);
  sentence += "% of each rank's end-to-end time).";
  f.insight += f.insight.empty() ? sentence : " " + sentence;
}

}  // namespace

SeenFindings seen_findings(const findings::RankedFindings& ranked) {
  SeenFindings seen;
  for (const auto* tier : {&ranked.compute, &ranked.fusion})
    for (const findings::Finding& f : *tier) {
      auto [it, fresh] = seen.emplace(std::make_pair(f.analyzer, f.key), f.impact_mid);
      if (!fresh) it->second = std::max(it->second, f.impact_mid);
    }
  return seen;
}

std::string rank_report_folder(int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "ranks/rank-%05d", rank);
  return name;
}

std::vector<SeenFindings> write_per_rank_reports(const pipeline::PipelineOptions& options,
                                                 const std::vector<RankTrace>& ranks,
                                                 const std::filesystem::path& output_dir,
                                                 bool quiet, std::vector<std::string>& warnings) {
  std::vector<SeenFindings> seen;
  std::size_t done = 0;
  for (const RankTrace& rank : ranks) {
    if (!quiet)
      std::fprintf(stderr, "per-rank report %zu of %zu: rank %d\n", ++done, ranks.size(),
                   rank.rank);
    pipeline::PipelineOptions one = options;
    one.trace_path = rank.path;
    one.host_outcomes.clear();
    one.before_ranking = nullptr;
    try {
      const std::unique_ptr<pipeline::PipelineRun> run = pipeline::run_pipeline(one);
      const std::filesystem::path folder = output_dir / rank_report_folder(rank.rank);
      std::filesystem::create_directories(folder);
      report::write_report_folder(folder.string(), run->report);
      io::write_report_manifest(folder);  // each rank's folder validates on its own
      seen.push_back(seen_findings(run->report.findings));
    } catch (const std::exception& e) {
      warnings.push_back("rank " + std::to_string(rank.rank) + ": no per-rank report (" + e.what() +
                         ").");
    }
  }
  return seen;
}

void add_seen_on_ranks(findings::RankedFindings& focus, const std::vector<SeenFindings>& ranks) {
  for (auto* tier : {&focus.compute, &focus.fusion})
    for (findings::Finding& f : *tier) add_seen_on_ranks(f, ranks);
}

}  // namespace traceprism::cli
