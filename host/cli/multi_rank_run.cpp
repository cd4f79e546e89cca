#include "cli/multi_rank_run.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <span>

#include "ingest/trace_reader.hpp"
#include "io/input_error.hpp"
#include "model/launch_links.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/cross_rank_findings.hpp"
#include "multirank/rank_summary_builder.hpp"

namespace traceprism::cli {

namespace {

namespace fs = std::filesystem;

bool is_trace_name(const std::string& name) {
  return name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".json.zst");
}

// A plain .json whose first 64 KiB holds neither key is no trace (synth_truth.json, a results
// file): a folder's listing skips it. Compressed files are taken as traces.
bool looks_like_trace(const fs::path& path) {
  if (path.extension() != ".json") return true;
  std::ifstream in(path, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head.find("\"traceEvents\"") != std::string::npos ||
         head.find("\"schemaVersion\"") != std::string::npos;
}

// Files as given; a folder's trace files in name order.
std::vector<std::string> trace_files(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      files.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(input, ec))
      if (entry.is_regular_file() && is_trace_name(entry.path().filename().string()) &&
          looks_like_trace(entry.path()))
        found.push_back(entry.path().string());
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

struct LoadedRank {
  std::string path;
  int rank = -1;
  multirank::RankSummary summary;
  std::vector<model::CollectiveInstance> instances;
};

LoadedRank load_rank(const std::string& path, int position) {
  LoadedRank r;
  r.path = path;
  const ingest::TraceFile trace = ingest::read_trace(path);
  r.summary = multirank::summarize_rank(trace.index, model::LaunchLinks::build(trace.index));
  r.summary.meta.file_path = path;
  r.summary.meta.file_size = trace.file_bytes;
  r.rank = r.summary.meta.trace_rank >= 0 ? static_cast<int>(r.summary.meta.trace_rank) : position;
  for (const multirank::CollectiveRow& row : r.summary.collectives)
    r.instances.push_back(row.instance);
  return r;
}

std::vector<LoadedRank> load_ranks(const std::vector<std::string>& files, bool quiet) {
  std::vector<LoadedRank> ranks;
  std::map<int, std::string> path_of_rank;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!quiet) std::fprintf(stderr, "\rreading rank traces: %zu of %zu", i + 1, files.size());
    LoadedRank r = load_rank(files[i], static_cast<int>(i));
    auto [it, fresh] = path_of_rank.emplace(r.rank, r.path);
    if (!fresh)
      throw io::InputError("rank " + std::to_string(r.rank) + " is given by two files: " +
                           it->second + " and " + r.path + "; keep one.");
    ranks.push_back(std::move(r));
  }
  if (!quiet) std::fprintf(stderr, "\n");
  std::sort(ranks.begin(), ranks.end(),
            [](const LoadedRank& a, const LoadedRank& b) { return a.rank < b.rank; });
  return ranks;
}

// §9.1: the rank with the largest mean compute per step (ties: the lowest rank).
std::size_t focus_of(const std::vector<LoadedRank>& ranks) {
  std::size_t best = 0;
  double best_compute = -1;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const auto& steps = ranks[i].summary.steps;
    double compute = 0;
    for (const multirank::StepSummary& s : steps)
      compute += static_cast<double>(s.totals.compute_ns);
    if (!steps.empty()) compute /= static_cast<double>(steps.size());
    if (compute > best_compute) best = i, best_compute = compute;
  }
  return best;
}

std::string ranks_csv(const std::vector<LoadedRank>& ranks,
                      const multirank::CrossRankFigures& figures) {
  std::string csv =
      "rank,file,steps,step_ms,collectives,wait_ms,exposed_wait_ms,last_arrivals,pct_last,"
      "mean_lateness_us,cause\n";
  auto ms = [](std::int64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e6);
    return std::string(text);
  };
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const multirank::RankFigures& f = figures.ranks[i];
    char pct[32], late[32];
    std::snprintf(pct, sizeof pct, "%.1f", 100.0 * f.last_share);
    std::snprintf(late, sizeof late, "%.1f", static_cast<double>(f.mean_lateness_ns) / 1e3);
    csv += std::to_string(f.rank) + "," + fs::path(ranks[i].path).filename().string() + "," +
           std::to_string(ranks[i].summary.steps.size()) + "," + ms(f.mean_step_ns) + "," +
           std::to_string(ranks[i].instances.size()) + "," + ms(f.wait_ns) + "," +
           ms(f.exposed_wait_ns) + "," + std::to_string(f.last_count) + "," + pct + "," + late +
           "," + multirank::cause_name(f.cause) + "\n";
  }
  return csv;
}

}  // namespace

bool is_multi_rank_input(const std::vector<std::string>& inputs) {
  std::error_code ec;
  return inputs.size() > 1 || (inputs.size() == 1 && fs::is_directory(inputs[0], ec));
}

MultiRankPlan plan_multi_rank(const std::vector<std::string>& inputs, bool allow_partial,
                              bool quiet) {
  const std::vector<std::string> files = trace_files(inputs);
  if (files.size() < 2)
    throw io::InputError("multi-rank analysis needs at least two rank traces; " +
                         std::to_string(files.size()) + " found in the given paths.");
  const std::vector<LoadedRank> ranks = load_ranks(files, quiet);
  std::vector<multirank::RankCollectives> for_matching;
  std::vector<multirank::RankInput> inputs_of_ranks;
  std::int64_t world = 0;
  for (const LoadedRank& r : ranks) {
    for_matching.push_back({r.rank, r.instances});
    inputs_of_ranks.push_back({r.rank, &r.summary, r.instances});
    world = std::max({world, r.summary.meta.world_size, static_cast<std::int64_t>(r.rank) + 1});
  }
  const multirank::MatchResult matches = multirank::match_collectives(for_matching);
  const multirank::CrossRankFigures figures =
      multirank::cross_rank_figures(inputs_of_ranks, matches);
  const LoadedRank& focus = ranks[focus_of(ranks)];
  const multirank::TraceProfile& profile = focus.summary.profile;
  multirank::CrossRankContext context;
  context.e2e_ns = profile.totals.gpu_end_ns - profile.totals.gpu_start_ns;
  context.loaded_ranks = ranks.size();
  context.world_size = world;
  context.allow_partial = allow_partial;
  MultiRankPlan plan;
  plan.focus_trace = focus.path;
  plan.focus_rank = focus.rank;
  plan.ranks = ranks.size();
  plan.world_size = world;
  plan.outcomes.push_back(multirank::straggler_outcome(figures, inputs_of_ranks, context));
  plan.ranks_csv = ranks_csv(ranks, figures);
  return plan;
}

}  // namespace traceprism::cli
