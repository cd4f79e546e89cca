#include "cli/multi_rank_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <thread>

#include "cli/rank_distribution.hpp"
#include "ingest/trace_reader.hpp"
#include "io/input_error.hpp"
#include "io/output_file.hpp"
#include "model/launch_links.hpp"
#include "multirank/bandwidth_outlier_findings.hpp"
#include "multirank/clock_alignment.hpp"
#include "multirank/collective_bandwidth_findings.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/collective_pattern_findings.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/cross_rank_findings.hpp"
#include "multirank/multi_rank_tables.hpp"
#include "multirank/rank_balance_findings.hpp"
#include "multirank/rank_discovery.hpp"
#include "multirank/rank_summary_builder.hpp"
#include "multirank/rank_summary_file.hpp"
#include "platform/platform_file.hpp"

namespace traceprism::cli {

namespace {

namespace fs = std::filesystem;

// The job the loaded ranks belong to.
struct JobShape {
  std::int64_t world_size = 0;
  std::vector<std::int32_t> missing_ranks;
  std::vector<std::string> excluded;  // one sentence per unreadable rank trace
};

std::int64_t span_ns(const multirank::ActivityTotals& t) {
  return std::max<std::int64_t>(0, t.gpu_end_ns - t.gpu_start_ns);
}

struct LoadedRank {
  std::string path;
  int rank = -1;
  multirank::RankSummary summary;
  std::vector<model::CollectiveInstance> instances;
};

multirank::RankSummary summarize_rank_file(const multirank::RankFile& file, bool light) {
  ingest::ReadOptions read;
  if (light) read.keep = multirank::read_by_rank_summary;
  const ingest::TraceFile trace = ingest::read_trace(file.path, read);
  multirank::RankSummary summary =
      multirank::summarize_rank(trace.index, model::LaunchLinks::build(trace.index));
  summary.meta.file_path = file.path;
  summary.meta.file_size = trace.file_bytes;
  summary.meta.host_name = file.host;
  return summary;
}

LoadedRank loaded_rank(std::string path, int rank, multirank::RankSummary summary) {
  LoadedRank r{std::move(path), rank, std::move(summary), {}};
  for (const multirank::CollectiveRow& row : r.summary.collectives)
    r.instances.push_back(row.instance);
  return r;
}

// §3.1 step 2: K = clamp(min(budget / max p, cores / 2), 1, N) with p = 0.5 U + 64 MB per rank
// (U its JSON size), each rank's read using a decompression and a parser thread.
// MemAvailable of /proc/meminfo, or 0 where it cannot be read.
std::uint64_t available_memory_bytes() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
  std::fclose(f);
  return static_cast<std::uint64_t>(kib) * 1024;
}

std::size_t rank_jobs(const multirank::Discovery& found, const std::vector<std::size_t>& indices,
                      const MultiRankOptions& options) {
  const std::size_t n = std::max<std::size_t>(1, indices.size());
  if (options.rank_jobs > 0) return std::min<std::size_t>(options.rank_jobs, n);
  std::uint64_t largest = 0;
  for (std::size_t i : indices)
    largest = std::max<std::uint64_t>(
        largest, found.files[i].estimated_json_bytes / 2 + (std::uint64_t{64} << 20));
  const std::uint64_t budget = options.memory_budget_bytes > 0 ? options.memory_budget_bytes
                                                               : available_memory_bytes() / 10 * 7;
  const std::size_t by_memory =
      budget > 0 && largest > 0 ? static_cast<std::size_t>(budget / largest) : n;
  const std::size_t by_cores = std::max(1u, std::thread::hardware_concurrency()) / 2;
  return std::clamp<std::size_t>(std::min(by_memory, by_cores), 1, n);
}

// K workers take the files in turn; results land by position, so the outcome does not depend on
// which worker finished first. The progress line is drawn only on a terminal, as the reader's.
std::vector<RankReadResult> read_rank_files(const multirank::Discovery& found,
                                            const std::vector<std::size_t>& indices,
                                            std::size_t jobs, bool quiet, bool light) {
  const bool progress = !quiet && ::isatty(STDERR_FILENO);
  std::vector<RankReadResult> results(indices.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex print;
  auto worker = [&] {
    for (std::size_t i = next++; i < results.size(); i = next++) {
      const multirank::RankFile& file = found.files[indices[i]];
      try {
        results[i].summary = summarize_rank_file(file, light);
      } catch (const io::InputError& e) {
        results[i].error = e.what();
      } catch (const std::exception& e) {  // out of memory, say: this rank only
        results[i].error = file.path + ": " + e.what();
      }
      const std::size_t finished = ++done;
      if (!progress) continue;
      std::lock_guard lock(print);
      std::fprintf(stderr, "\rreading rank traces: %zu of %zu", finished, results.size());
      std::fflush(stderr);
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (progress) std::fprintf(stderr, "\n");
  return results;
}

// What discovery found, identically on every process of an MPI job (or an error on all).
std::uint64_t fingerprint_of(const multirank::Discovery& found) {
  std::string text = std::to_string(found.world_size);
  for (const multirank::RankFile& f : found.files)
    text += '\n' + f.path + '\t' + std::to_string(f.rank);
  return multirank::fnv1a64(text);
}

multirank::Discovery discover_job(const std::vector<std::string>& inputs,
                                  const MultiRankOptions& options) {
  RankDistribution* distribution = installed_rank_distribution();
  multirank::Discovery found;
  std::string error;
  try {
    found = multirank::discover_ranks(inputs, options.discovery);
    if (found.files.size() < 2)
      throw io::InputError("multi-rank analysis needs at least two rank traces; " +
                           std::to_string(found.files.size()) + " found in the given paths.");
  } catch (const io::InputError& e) {
    if (!distribution) throw;
    error = e.what();
  }
  if (distribution) distribution->agree_on_inputs(fingerprint_of(found), error);
  return found;
}

// Every file's result by index (on an MPI job's other processes: none).
std::vector<RankReadResult> read_job(const multirank::Discovery& found,
                                     const MultiRankOptions& options) {
  const LocalRankReader read_local = [&](const std::vector<std::size_t>& indices) {
    return read_rank_files(found, indices, rank_jobs(found, indices, options), options.quiet,
                           options.light_depth);
  };
  if (RankDistribution* distribution = installed_rank_distribution())
    return distribution->read_ranks(found, read_local);
  std::vector<std::size_t> all(found.files.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return read_local(all);
}

// The ranks a straggler card blames on their GPU ("slower GPU"): their compute items measure the
// hardware fault, not the software.
std::vector<std::int32_t> slow_gpu_ranks(const multirank::CrossRankFigures& figures) {
  if (!figures.stragglers || figures.stragglers->hint != multirank::ComputeHint::kSlowerGpu)
    return {};
  return figures.stragglers->ranks;
}

// §9.1: the rank with the largest mean compute per step (ties: the lowest rank), leaving out the
// ranks in `slow_gpus` while another rank remains, unless --focus-rank names one.
std::size_t focus_of(const std::vector<LoadedRank>& ranks, std::int32_t requested,
                     const std::vector<std::int32_t>& slow_gpus) {
  if (requested >= 0) {
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i].rank == requested) return i;
    throw io::InputError("--focus-rank " + std::to_string(requested) +
                         ": no trace of that rank was analysed.");
  }
  const auto eligible = [&](const LoadedRank& r) {
    return std::find(slow_gpus.begin(), slow_gpus.end(), r.rank) == slow_gpus.end();
  };
  const bool any_eligible = std::any_of(ranks.begin(), ranks.end(), eligible);
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (any_eligible && !eligible(ranks[i])) continue;
    if (!best || multirank::mean_step_compute_ns(ranks[i].summary) >
                     multirank::mean_step_compute_ns(ranks[*best].summary))
      best = i;
  }
  return best.value_or(0);
}

// §9.4's ranks.csv: per-step figures are means over the rank's profiler steps (the whole trace
// without steps). critical_share_pct and flags are not computed yet, so they are left out.
std::string ranks_csv(const std::vector<LoadedRank>& ranks,
                      const multirank::CrossRankFigures& figures,
                      const std::map<std::int32_t, std::int32_t>& nodes) {
  std::string csv =
      "rank,node,host,file,steps,step_ms,compute_ms,comm_ms,exposed_comm_ms,idle_pct,"
      "host_wait_ms,collectives,wait_ms,exposed_wait_ms,last_arrivals,pct_last,mean_lateness_us,"
      "cause\n";
  auto number = [](double value, int decimals) {
    char text[40];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return std::string(text);
  };
  auto ms = [&](std::int64_t ns) { return number(static_cast<double>(ns) / 1e6, 3); };
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const multirank::RankFigures& f = figures.ranks[i];
    const multirank::RankSummary& summary = ranks[i].summary;
    multirank::ActivityTotals per_step = summary.profile.totals;
    if (!summary.steps.empty()) {
      per_step = {};
      for (const multirank::StepSummary& step : summary.steps) {
        per_step.compute_ns += step.totals.compute_ns;
        per_step.comm_ns += step.totals.comm_ns;
        per_step.exposed_comm_ns += step.totals.exposed_comm_ns;
        per_step.host_wait_idle_ns += step.totals.host_wait_idle_ns;
      }
      const auto n = static_cast<std::int64_t>(summary.steps.size());
      per_step.compute_ns /= n, per_step.comm_ns /= n, per_step.exposed_comm_ns /= n;
      per_step.host_wait_idle_ns /= n;
    }
    csv += std::to_string(f.rank) + "," + std::to_string(nodes.at(f.rank)) + "," +
           summary.meta.host_name + "," + fs::path(ranks[i].path).filename().string() + "," +
           std::to_string(summary.steps.size()) + "," + ms(f.mean_step_ns) + "," +
           ms(per_step.compute_ns) + "," + ms(per_step.comm_ns) + "," +
           ms(per_step.exposed_comm_ns) + "," + number(multirank::gpu_idle_percent(summary), 2) +
           "," + ms(per_step.host_wait_idle_ns) + "," + std::to_string(ranks[i].instances.size()) +
           "," + ms(f.wait_ns) + "," + ms(f.exposed_wait_ns) + "," + std::to_string(f.last_count) +
           "," + number(100.0 * f.last_share, 1) + "," +
           number(static_cast<double>(f.mean_lateness_ns) / 1e3, 1) + "," +
           multirank::cause_name(f.cause) + "\n";
  }
  return csv;
}

std::string rank_set_text(const std::vector<std::int32_t>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i) text += ", ";
    if (i == 20) return text + "...";
    text += std::to_string(ranks[i]);
  }
  return text;
}

// Warnings about the matching itself (§9.2's list): time-only matching, and ranks that issued
// different collectives under one sequence number.
// "1 ms", "250 µs", "0.5 µs": the timeline tier's tolerance as the warning names it.
std::string tolerance_text(std::int64_t ns) {
  if (ns > 0 && ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + " ms";
  if (ns % 1'000 == 0) return std::to_string(ns / 1'000) + " \u00b5s";
  std::string us = std::to_string(static_cast<double>(ns) / 1e3);
  us.erase(us.find_last_not_of('0') + 1);
  return us + " \u00b5s";
}

void add_matching_warnings(const multirank::MatchResult& matches, std::int64_t tolerance_ns,
                           std::vector<std::string>& warnings) {
  std::size_t by_time = 0;
  for (const multirank::GroupMatchSummary& g : matches.groups)
    if (g.tier == model::MatchTier::kTimeline) ++by_time;
  if (by_time > 0)
    warnings.push_back("Collectives of " + std::to_string(by_time) +
                       " group(s) were matched by end time alone "
                       "(the traces carry no process-group metadata), within " +
                       tolerance_text(tolerance_ns) + ": the cross-rank figures are less certain.");
  constexpr std::size_t kShown = 3;
  for (std::size_t i = 0; i < matches.mismatches.size() && i < kShown; ++i)
    warnings.push_back("Collective mismatch: " + matches.mismatches[i].detail);
  if (matches.mismatches.size() > kShown)
    warnings.push_back(std::to_string(matches.mismatches.size() - kShown) +
                       " more collective mismatches (ranks issued different collectives under "
                       "one sequence number: a hang or correctness risk).");
}

// Per tier, the groups matched with it and their instance counts (the appendix's Matching line).
std::vector<pipeline::MultiRankFacts::Matching> matching_by_tier(
    const multirank::MatchResult& matches) {
  std::vector<pipeline::MultiRankFacts::Matching> tiers;
  for (model::MatchTier tier :
       {model::MatchTier::kSeq, model::MatchTier::kOrdinal, model::MatchTier::kTimeline}) {
    pipeline::MultiRankFacts::Matching m;
    m.tier = multirank::tier_name(tier);
    for (const multirank::GroupMatchSummary& g : matches.groups) {
      if (g.tier != tier) continue;
      ++m.groups;
      m.instances += g.instances;
      m.matched_instances += g.matched_instances;
      m.collectives += g.collectives;
    }
    if (m.groups > 0) tiers.push_back(m);
  }
  return tiers;
}

// One heat-map row (§9.3): per bin, the mean over the rank's binned steps of the share of the
// bin its computation (communication) kernels covered.
pipeline::MultiRankFacts::HeatRow heat_row(const LoadedRank& r, std::int32_t node) {
  pipeline::MultiRankFacts::HeatRow row{r.rank, node, {}, {}};
  std::map<std::int64_t, std::int64_t> span_of_step;
  for (const multirank::StepSummary& s : r.summary.steps) span_of_step[s.step] = span_ns(s.totals);
  std::vector<double> compute(multirank::kBinsPerStep, 0), comm(multirank::kBinsPerStep, 0);
  std::size_t steps = 0;
  for (const multirank::StepBins& bins : r.summary.step_bins) {
    const auto span = span_of_step.find(bins.step);
    if (span == span_of_step.end() || span->second <= 0) continue;
    const double bin_us = static_cast<double>(span->second) / 1e3 / multirank::kBinsPerStep;
    for (std::size_t b = 0; b < multirank::kBinsPerStep; ++b) {
      compute[b] += std::min(100.0, 100.0 * bins.compute_us[b] / bin_us);
      comm[b] += std::min(100.0, 100.0 * bins.comm_us[b] / bin_us);
    }
    ++steps;
  }
  if (steps == 0) return row;
  for (std::size_t b = 0; b < multirank::kBinsPerStep; ++b) {
    row.compute_percent.push_back(compute[b] / static_cast<double>(steps));
    row.comm_percent.push_back(comm[b] / static_cast<double>(steps));
  }
  return row;
}

pipeline::MultiRankFacts facts_of(const std::vector<LoadedRank>& ranks, const JobShape& found,
                                  const multirank::CrossRankFigures& figures,
                                  const LoadedRank& focus,
                                  const std::map<std::int32_t, std::int32_t>& nodes) {
  pipeline::MultiRankFacts facts;
  facts.ranks_analyzed = ranks.size();
  facts.world_size = found.world_size;
  facts.focus_rank = focus.rank;
  facts.missing_ranks = found.missing_ranks;
  std::int64_t exposed_wait = 0, e2e = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const multirank::RankFigures& f = figures.ranks[i];
    exposed_wait += f.exposed_wait_ns;
    e2e += span_ns(ranks[i].summary.profile.totals);
    facts.ranks.push_back(
        {f.rank, fs::path(ranks[i].path).filename().string(), ranks[i].instances.size(),
         static_cast<double>(f.wait_ns) / 1e6, static_cast<double>(f.exposed_wait_ns) / 1e6,
         100.0 * f.last_share, static_cast<double>(f.mean_lateness_ns) / 1e3, f.last_count,
         multirank::cause_name(f.cause), nodes.at(f.rank),
         static_cast<double>(f.mean_step_ns) / 1e6, multirank::gpu_idle_percent(ranks[i].summary)});
    facts.heat_rows.push_back(heat_row(ranks[i], nodes.at(f.rank)));
  }
  facts.collective_wait_percent =
      e2e > 0 ? 100.0 * static_cast<double>(exposed_wait) / static_cast<double>(e2e) : 0;
  if (figures.stragglers) {
    facts.slowest_ranks = figures.stragglers->ranks;
    for (const multirank::RankFigures& f : figures.ranks)
      if (std::binary_search(facts.slowest_ranks.begin(), facts.slowest_ranks.end(), f.rank))
        facts.slowest_last_percent = std::max(facts.slowest_last_percent, 100.0 * f.last_share);
  }
  if (!found.missing_ranks.empty())
    facts.warnings.push_back(
        std::to_string(ranks.size()) + " of " + std::to_string(found.world_size) +
        " ranks analysed: no readable trace for rank" +
        (found.missing_ranks.size() == 1 ? " " : "s ") + rank_set_text(found.missing_ranks) +
        "; collectives they joined are judged among the ranks that were loaded.");
  for (const std::string& sentence : found.excluded) facts.warnings.push_back(sentence);
  if (figures.partial_instances > 0)
    facts.warnings.push_back(std::to_string(figures.partial_instances) +
                             " matched collective(s) lack a loaded member (events the trace "
                             "window dropped) and are left out of the cross-rank figures.");
  return facts;
}

// plugins/comm/comm_advice.cpp's last sentence of an exposed-comm action, after a space.
constexpr std::string_view kSingleRankSkewCaveat =
    " A single rank's trace cannot show skew between ranks: part of the exposed time may be this "
    "rank waiting for a slower one, which only the other ranks' traces can show.";

}  // namespace

namespace {

// The part of the focus rank's exposed communication spent waiting at collectives, in [0, 1].
double wait_share_of(const pipeline::MultiRankFacts& m) {
  if (m.focus_exposed_comm_ns <= 0) return 0;
  return std::min(1.0, static_cast<double>(m.focus_exposed_wait_ns) /
                           static_cast<double>(m.focus_exposed_comm_ns));
}

// The cross-rank analyzers whose cards report late arrivals, hence the waiting they cause.
bool is_late_arrival_analyzer(std::string_view name) {
  return name == "xrank-straggler" || name == "xrank-arrival-jitter" ||
         name == "xrank-bandwidth-outlier-group";
}

bool reports_late_arrivals(const findings::AnalyzerOutcome& o) {
  return is_late_arrival_analyzer(o.name) &&
         std::any_of(o.findings.begin(), o.findings.end(), [](const findings::Finding& f) {
           return f.impact_kind == findings::ImpactKind::kQuantified;
         });
}

}  // namespace

void discount_collective_wait(std::vector<findings::AnalyzerOutcome>& outcomes,
                              const pipeline::MultiRankFacts& facts) {
  const double share = wait_share_of(facts);
  if (share <= 0 || std::none_of(outcomes.begin(), outcomes.end(), reports_late_arrivals)) return;
  for (findings::AnalyzerOutcome& o : outcomes)
    for (findings::Finding& f : o.findings) {
      if (f.key != "exposed-comm") continue;
      f.impact_low *= 1 - share;
      f.impact_mid *= 1 - share;
      f.impact_high *= 1 - share;
    }
}

void add_collective_wait_to_exposed_comm(pipeline::AnalysisReport& report) {
  if (!report.multi_rank || report.multi_rank->focus_exposed_comm_ns <= 0) return;
  const pipeline::MultiRankFacts& m = *report.multi_rank;
  const double wait_share = wait_share_of(m);
  // The card discount_collective_wait gave the waiting to, if any.
  const findings::Finding* cross_rank = nullptr;
  for (const findings::Finding& f : report.findings.system)
    if (!cross_rank && is_late_arrival_analyzer(f.analyzer) &&
        f.impact_kind == findings::ImpactKind::kQuantified)
      cross_rank = &f;
  // Below a tenth the waiting explains little of it: the metric only, no sentence.
  constexpr double kMentionedWaitShare = 0.1;
  for (findings::Finding& f : report.findings.system) {
    if (f.key != "exposed-comm") continue;
    f.metrics.emplace_back("exposed_wait_percent", std::round(1000.0 * wait_share) / 10.0);
    // The comm analyzer's caveat that one trace cannot show skew no longer holds: the other
    // ranks' traces were read and the waiting is measured (the metric above).
    if (const std::size_t at = f.action.find(kSingleRankSkewCaveat); at != std::string::npos)
      f.action.erase(at, kSingleRankSkewCaveat.size());
    if (wait_share < kMentionedWaitShare) continue;
    char text[64];
    std::snprintf(text, sizeof text, "%.1f%% (%.3f ms)", 100.0 * wait_share,
                  static_cast<double>(m.focus_exposed_wait_ns) / 1e6);
    f.insight +=
        std::string(f.insight.empty() ? "" : " ") + "Of this rank's exposed communication, " +
        text + " is waiting at collectives for later ranks to arrive" +
        (cross_rank ? " (see system P" + std::to_string(cross_rank->rank) + ", \"" +
                          cross_rank->title + "\")"
                    : "") +
        ", not transfer time" +
        (cross_rank ? "; that card's impact counts the waiting, this one's the rest." : ".");
  }
}

bool is_multi_rank_input(const std::vector<std::string>& inputs) {
  if (inputs.size() != 1) return inputs.size() > 1;
  std::error_code ec;
  if (fs::is_directory(inputs[0], ec)) return true;
  // A quoted glob the shell left alone ("job/rank*.json.gz").
  return !fs::exists(inputs[0], ec) && inputs[0].find_first_of("*?[") != std::string::npos;
}

namespace {

// Whether the host names in the file names can be nodes (§7.6): every rank has one, and no host
// holds more ranks than its traces list devices (more would mean the names are not per machine).
bool hosts_are_nodes(const std::vector<LoadedRank>& ranks) {
  std::map<std::string, std::int64_t> ranks_on, devices_on;
  for (const LoadedRank& r : ranks) {
    if (r.summary.meta.host_name.empty()) return false;
    ++ranks_on[r.summary.meta.host_name];
    std::int64_t& devices = devices_on[r.summary.meta.host_name];
    devices = std::max(devices, r.summary.meta.device_count);
  }
  for (const auto& [host, count] : ranks_on)
    if (devices_on[host] > 0 && count > devices_on[host]) return false;
  return true;
}

// §7.6: --gpus-per-node G, else the traces' host names when hosts_are_nodes, else the
// deviceProperties count of the first rank, else 8 ranks per node.
std::map<std::int32_t, std::int32_t> node_of_rank(const std::vector<LoadedRank>& ranks,
                                                  int gpus_per_node) {
  std::map<std::int32_t, std::int32_t> nodes;
  if (gpus_per_node <= 0 && hosts_are_nodes(ranks)) {
    std::map<std::string, std::int32_t> host_ids;
    for (const LoadedRank& r : ranks) host_ids.emplace(r.summary.meta.host_name, 0);
    std::int32_t next = 0;
    for (auto& [host, id] : host_ids) id = next++;
    for (const LoadedRank& r : ranks) nodes[r.rank] = host_ids[r.summary.meta.host_name];
    return nodes;
  }
  std::int64_t per_node = gpus_per_node;
  if (per_node <= 0) per_node = ranks.front().summary.meta.device_count;
  if (per_node <= 0) per_node = 8;
  for (const LoadedRank& r : ranks) nodes[r.rank] = static_cast<std::int32_t>(r.rank / per_node);
  return nodes;
}

// §6: per-node clock offsets from the collectives matched by identity (seq, ordinal), whose
// ends agree on every member up to the clocks.
multirank::ClockAlignment align_clocks(const multirank::MatchResult& by_identity,
                                       const std::vector<LoadedRank>& ranks,
                                       const std::map<std::int32_t, std::int32_t>& nodes) {
  std::map<std::int32_t, const LoadedRank*> by_rank;
  for (const LoadedRank& r : ranks) by_rank[r.rank] = &r;
  std::vector<multirank::CompleteInstance> instances;
  for (const multirank::MatchedCollective& c : by_identity.collectives) {
    if (c.tier == model::MatchTier::kTimeline || c.members.size() < 2) continue;
    multirank::CompleteInstance instance;
    instance.key_hash =
        multirank::fnv1a64(c.partition_key.canonical_text() + "#" + std::to_string(c.key));
    for (const multirank::MemberRef& m : c.members) {
      const model::CollectiveInstance& i = by_rank.at(m.rank)->instances.at(m.index);
      instance.members.push_back({m.rank, i.start_ns, i.end_ns()});
    }
    instances.push_back(std::move(instance));
  }
  // §6 step 4 asks for 10 samples; §12's own clock-skew job (3 steps of 3 all-reduces) has 9,
  // and 5 agreeing ends within the MAD test are evidence enough (docs/compatibility.md).
  multirank::ClockOptions clock_options;
  clock_options.min_samples = 5;
  return multirank::estimate_clock_offsets(instances, nodes, clock_options);
}

// --no-clock-align: the offsets are still estimated and reported, none is applied; the warnings
// that judge the corrected times no longer describe what the figures use.
void keep_clocks_as_written(multirank::ClockAlignment& clocks) {
  for (multirank::NodeClockOffset& n : clocks.nodes) n.applied = false;
  std::erase_if(clocks.warnings, [](const multirank::ClockWarning& w) {
    return w.kind == multirank::ClockWarningKind::kBoundViolations ||
           w.kind == multirank::ClockWarningKind::kEndSkew;
  });
}

// The interconnect peaks of the platform the report uses: --platform-file, --platform NAME, else
// the bundled platform matching the focus rank's device (no guess from kernel names here: a
// bandwidth judged against a guessed link would not be worth printing).
std::optional<platform::Interconnect> interconnect_of(const pipeline::PlatformOptions& options,
                                                      const std::string& device_name) {
  if (!options.file.empty()) return platform::load_platform_file(options.file).interconnect;
  const platform::PlatformSpec* spec = options.name != "auto"
                                           ? platform::find_platform(options.name)
                                           : platform::match_device(device_name);
  return spec ? spec->interconnect : std::nullopt;
}

// Everything after the ranks are loaded: matching, clocks, figures, the findings, what the
// report says.
// The focus rank's compute items describe the software only on a healthy GPU: say which rank
// was passed over as a slower-GPU straggler, or that the chosen one is one.
void add_slow_gpu_focus_warning(const std::vector<std::int32_t>& slow_gpus, std::int32_t focus,
                                std::vector<std::string>& warnings) {
  if (slow_gpus.empty()) return;
  const std::string slow = rank_set_text(slow_gpus);
  if (std::find(slow_gpus.begin(), slow_gpus.end(), focus) != slow_gpus.end())
    warnings.push_back(
        "The focus rank " + std::to_string(focus) +
        " is the straggler whose GPU runs its kernels slower than its peers': its compute items "
        "are measured on that GPU (--focus-rank R reports another rank's).");
  else
    warnings.push_back("The focus rank " + std::to_string(focus) +
                       " is the rank with the most compute per step apart from the slower-GPU " +
                       (slow_gpus.size() == 1 ? "straggler " : "stragglers ") + slow +
                       ", whose compute items would measure the GPU rather than the software "
                       "(--focus-rank " +
                       std::to_string(slow_gpus.front()) + " reports them).");
}

MultiRankPlan plan_from_ranks(const std::vector<LoadedRank>& ranks, const JobShape& job,
                              const MultiRankOptions& options) {
  std::vector<multirank::RankCollectives> for_matching;
  std::vector<multirank::RankInput> inputs_of_ranks;
  for (const LoadedRank& r : ranks) {
    for_matching.push_back({r.rank, r.instances});
    inputs_of_ranks.push_back({r.rank, &r.summary, r.instances});
  }
  // §5.2's order: identity tiers first, clocks from them, then everything with the offsets.
  multirank::MatchOptions identity_only;
  identity_only.align_timeline = false;
  identity_only.tolerance_ns = options.match_tolerance_ns;
  const std::map<std::int32_t, std::int32_t> nodes = node_of_rank(ranks, options.gpus_per_node);
  multirank::ClockAlignment clocks =
      align_clocks(multirank::match_collectives(for_matching, identity_only), ranks, nodes);
  if (!options.align_clocks) keep_clocks_as_written(clocks);
  multirank::MatchOptions match_options;
  match_options.tolerance_ns = options.match_tolerance_ns;
  match_options.clock_offset_ns = multirank::rank_clock_offsets(clocks, nodes);
  const multirank::MatchResult matches = multirank::match_collectives(for_matching, match_options);
  multirank::CrossRankOptions figure_options = options.thresholds.straggler;
  figure_options.clock_offset_ns = match_options.clock_offset_ns;
  const multirank::CrossRankFigures figures =
      multirank::cross_rank_figures(inputs_of_ranks, matches, figure_options);
  const std::vector<std::int32_t> slow_gpus = slow_gpu_ranks(figures);
  const LoadedRank& focus = ranks[focus_of(ranks, options.focus_rank, slow_gpus)];
  multirank::CrossRankContext context;
  context.e2e_ns = span_ns(focus.summary.profile.totals);
  for (const LoadedRank& r : ranks) context.sum_e2e_ns += span_ns(r.summary.profile.totals);
  context.loaded_ranks = ranks.size();
  context.world_size = job.world_size;
  context.allow_partial = options.allow_partial;
  MultiRankPlan plan;
  plan.focus_trace = focus.path;
  for (const LoadedRank& r : ranks) plan.rank_traces.push_back({r.rank, r.path});
  std::sort(plan.rank_traces.begin(), plan.rank_traces.end(),
            [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  plan.focus_rank = focus.rank;
  plan.ranks = ranks.size();
  plan.world_size = job.world_size;
  // One mechanism, one card (§9.2): stragglers late because of a slow group are that group's.
  findings::AnalyzerOutcome straggler =
      multirank::straggler_outcome(figures, inputs_of_ranks, context);
  const multirank::CrossRankThresholds& limits = options.thresholds;
  findings::AnalyzerOutcome bandwidth_outlier = multirank::bandwidth_outlier_outcome(
      inputs_of_ranks, matches, figures, context, limits.bandwidth_outlier);
  multirank::drop_absorbed_straggler(straggler, bandwidth_outlier, figures);
  findings::AnalyzerOutcome jitter =
      multirank::arrival_jitter_outcome(figures, context, limits.jitter_min_wait_percent);
  multirank::drop_jitter_of_slow_groups(jitter, bandwidth_outlier);
  plan.outcomes.push_back(std::move(jitter));
  plan.outcomes.push_back(std::move(straggler));
  plan.outcomes.push_back(std::move(bandwidth_outlier));
  plan.outcomes.push_back(
      multirank::idle_outlier_outcome(inputs_of_ranks, figures, nodes, context, limits.balance));
  plan.outcomes.push_back(
      multirank::step_imbalance_outcome(inputs_of_ranks, figures, context, limits.balance));
  plan.outcomes.push_back(multirank::small_collectives_outcome(inputs_of_ranks, matches, figures,
                                                               context, limits.patterns));
  plan.outcomes.push_back(multirank::alltoall_imbalance_outcome(
      inputs_of_ranks, matches, figures, figure_options.clock_offset_ns, context, limits.patterns));
  plan.outcomes.push_back(multirank::pipeline_wait_outcome(
      inputs_of_ranks, matches, figure_options.clock_offset_ns, context, limits.patterns));
  const std::optional<platform::Interconnect> interconnect =
      interconnect_of(options.platform, focus.summary.meta.device_name);
  std::optional<double> nic_gbps;  // GB/s per direction
  if (options.nic_gbits > 0) nic_gbps = options.nic_gbits / 8;
  if (!nic_gbps && interconnect) nic_gbps = interconnect->scale_out_gbps_per_direction;
  plan.outcomes.push_back(multirank::collective_bandwidth_outcome(
      inputs_of_ranks, matches, figures, nodes, interconnect, nic_gbps, context, limits.bandwidth));
  plan.csvs = {
      {"ranks.csv", ranks_csv(ranks, figures, nodes)},
      {"process_groups.csv", multirank::process_groups_csv(inputs_of_ranks, matches, figures)},
      {"clock_offsets.csv", multirank::clock_offsets_csv(clocks)},
      {"collectives_summary.csv",
       multirank::collectives_summary_csv(inputs_of_ranks, matches, figures,
                                          figure_options.clock_offset_ns)},
      {"straggler_summary.csv", multirank::straggler_summary_csv(inputs_of_ranks, matches, figures,
                                                                 figure_options.clock_offset_ns)},
      {"nccl_summary_implicit_sync.csv",
       multirank::nccl_summary_implicit_sync_csv(inputs_of_ranks, matches, figures,
                                                 figure_options.clock_offset_ns)},
      {"alltoallv.csv",
       multirank::alltoallv_csv(inputs_of_ranks, matches, figures, figure_options.clock_offset_ns)},
      {"p2p.csv", multirank::p2p_csv(inputs_of_ranks, matches, figure_options.clock_offset_ns)}};
  if (options.detail)
    plan.csvs.emplace_back(
        "collectives.csv",
        multirank::collectives_csv(inputs_of_ranks, matches, figures,
                                   figure_options.clock_offset_ns, kMaxDetailedCollectives));
  plan.facts = facts_of(ranks, job, figures, focus, nodes);
  add_slow_gpu_focus_warning(slow_gpus, focus.rank, plan.facts.warnings);
  plan.facts.matching = matching_by_tier(matches);
  plan.facts.complete_collectives = figures.instances.size();
  plan.facts.focus_exposed_comm_ns = focus.summary.profile.totals.exposed_comm_ns;
  for (const multirank::RankFigures& f : figures.ranks)
    if (f.rank == focus.rank) plan.facts.focus_exposed_wait_ns = f.exposed_wait_ns;
  add_matching_warnings(matches, options.match_tolerance_ns, plan.facts.warnings);
  for (const multirank::NodeClockOffset& n : clocks.nodes)
    plan.facts.clock_offsets.push_back({n.node, n.offset_ns, n.mad_ns, n.samples, n.applied});
  for (const multirank::ClockWarning& w : clocks.warnings) plan.facts.warnings.push_back(w.detail);
  if (options.detail && matches.collectives.size() > kMaxDetailedCollectives)
    plan.facts.warnings.push_back("multi_rank_csvs/collectives.csv lists the first " +
                                  std::to_string(kMaxDetailedCollectives) + " of " +
                                  std::to_string(matches.collectives.size()) +
                                  " matched collectives.");
  return plan;
}

std::string summary_file_name(int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "rank-%05d.tpsum", rank);
  return name;
}

// --summaries-out: one rank-NNNNN.tpsum per rank, its rank and the job's world size in META so
// that `merge` finds the same job.
void write_summaries(const std::vector<LoadedRank>& ranks, const JobShape& job,
                     const std::string& dir) {
  io::create_output_folder(dir);
  for (const LoadedRank& r : ranks) {
    multirank::RankSummary summary = r.summary;
    summary.meta.trace_rank = r.rank;
    summary.meta.world_size = job.world_size;
    multirank::write_rank_summary_file(summary,
                                       (fs::path(dir) / summary_file_name(r.rank)).string());
  }
}

}  // namespace

MultiRankPlan plan_multi_rank(const std::vector<std::string>& inputs,
                              const MultiRankOptions& options) {
  const multirank::Discovery found = discover_job(inputs, options);
  if (!options.quiet)
    for (const std::string& note : found.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  std::vector<LoadedRank> ranks;
  std::vector<std::string> excluded;
  std::vector<std::int32_t> unreadable;
  std::vector<RankReadResult> results = read_job(found, options);
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].summary) {
      ranks.push_back(
          loaded_rank(found.files[i].path, found.files[i].rank, std::move(*results[i].summary)));
    } else {
      excluded.push_back(results[i].error);
      unreadable.push_back(found.files[i].rank);
    }
  }
  if (ranks.size() < 2 || (options.discovery.require_all_ranks && !excluded.empty()))
    throw io::InputError(excluded.empty() ? "multi-rank analysis needs two readable rank traces."
                                          : excluded.front());
  JobShape job{found.world_size, found.missing_ranks, {}};
  job.missing_ranks.insert(job.missing_ranks.end(), unreadable.begin(), unreadable.end());
  std::sort(job.missing_ranks.begin(), job.missing_ranks.end());
  for (const std::string& sentence : excluded)
    job.excluded.push_back(sentence.substr(0, sentence.find_last_not_of('.') + 1) + "; excluded.");
  for (const LoadedRank& r : ranks)
    job.world_size = std::max(job.world_size, static_cast<std::int64_t>(r.rank) + 1);
  if (!options.summaries_out.empty()) write_summaries(ranks, job, options.summaries_out);
  return plan_from_ranks(ranks, job, options);
}

void read_rank_share(const std::vector<std::string>& inputs, const MultiRankOptions& options) {
  MultiRankOptions quiet = options;
  quiet.quiet = true;
  read_job(discover_job(inputs, quiet), quiet);
}

MultiRankPlan plan_from_summaries(const std::vector<std::string>& dirs,
                                  const MultiRankOptions& options) {
  std::vector<LoadedRank> ranks;
  std::map<int, std::string> file_of_rank;
  JobShape job;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
      throw io::InputError(dir +
                           ": not a folder; merge reads the rank-NNNNN.tpsum files that "
                           "analyze --summaries-out wrote into one.");
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file() && entry.path().extension() == ".tpsum")
        files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      multirank::RankSummary summary = multirank::read_rank_summary_file(file);
      const auto rank = static_cast<int>(summary.meta.trace_rank);
      std::string path = summary.meta.file_path;
      LoadedRank r = loaded_rank(std::move(path), rank, std::move(summary));
      auto [it, fresh] = file_of_rank.emplace(r.rank, file);
      if (!fresh)
        throw io::InputError("rank " + std::to_string(r.rank) + " is given by two summaries: " +
                             it->second + " and " + file + "; keep one.");
      job.world_size = std::max(
          {job.world_size, r.summary.meta.world_size, static_cast<std::int64_t>(r.rank) + 1});
      ranks.push_back(std::move(r));
    }
  }
  if (ranks.size() < 2)
    throw io::InputError("merge needs the summaries of at least two ranks; " +
                         std::to_string(ranks.size()) + " found.");
  std::sort(ranks.begin(), ranks.end(),
            [](const LoadedRank& a, const LoadedRank& b) { return a.rank < b.rank; });
  for (std::int64_t rank = 0; rank < job.world_size; ++rank)
    if (!file_of_rank.count(static_cast<int>(rank)))
      job.missing_ranks.push_back(static_cast<std::int32_t>(rank));
  if (options.discovery.require_all_ranks && !job.missing_ranks.empty())
    throw io::InputError("--require-all-ranks: no summary of rank(s) " +
                         multirank::format_rank_set(job.missing_ranks) + " of " +
                         std::to_string(job.world_size) + ".");
  return plan_from_ranks(ranks, job, options);
}

}  // namespace traceprism::cli
