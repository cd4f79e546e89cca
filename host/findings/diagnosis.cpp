#include "findings/diagnosis.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

namespace traceprism::findings {

namespace {

constexpr std::size_t kHostOpsPerCause = 5;

double us(std::int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

double share(double part, double whole) {
  return whole > 0 ? part / whole * 100.0 : 0.0;
}

struct HolderTotal {
  std::int64_t ns = 0;
  std::int64_t largest_part_ns = 0;
  std::int32_t frame = model::kNoEvent;
};

std::vector<IdleHolder> top_holders(const index::EventIndex& ix,
                                    const std::map<std::string, HolderTotal>& totals) {
  std::vector<IdleHolder> out;
  for (const auto& [name, t] : totals)
    out.push_back({name, t.frame >= 0 ? std::string(ix.name(static_cast<index::Row>(t.frame))) : "",
                   us(t.ns)});
  std::stable_sort(out.begin(), out.end(),
                   [](const IdleHolder& a, const IdleHolder& b) { return a.idle_us > b.idle_us; });
  if (out.size() > kHostOpsPerCause) out.resize(kHostOpsPerCause);
  return out;
}

std::vector<CauseIdle> tally_causes(const index::EventIndex& ix, const model::IdleAttribution& a,
                                    double window_us, double idle_us) {
  struct Tally {
    std::uint64_t gaps = 0;
    std::int64_t longest_ns = 0;
    std::map<std::string, HolderTotal> holders;
  };
  std::vector<Tally> tally(model::kIdleCauseCount);
  // Holders are totalled by name text, as the report shows them; each (cause, name id) finds
  // its total once (a trace with python stacks has millions of parts).
  std::unordered_map<std::uint64_t, HolderTotal*> total_of;
  for (const model::IdleGap& g : a.gaps) {
    std::array<bool, model::kIdleCauseCount> seen{};
    for (std::uint32_t p = g.part_begin; p < g.part_begin + g.part_count; ++p) {
      const model::IdlePart part = a.parts[p];
      const auto c = static_cast<std::size_t>(part.cause);
      if (!seen[c]) {
        seen[c] = true;
        ++tally[c].gaps;
        tally[c].longest_ns = std::max(tally[c].longest_ns, g.dur_ns);
      }
      if (part.holder < 0) continue;
      const auto holder = static_cast<index::Row>(part.holder);
      auto [known, fresh] = total_of.try_emplace((std::uint64_t{c} << 32) | ix.name_id(holder));
      if (fresh) known->second = &tally[c].holders[std::string(ix.name(holder))];
      HolderTotal& h = *known->second;
      h.ns += part.dur_ns;
      if (part.dur_ns > h.largest_part_ns) h.largest_part_ns = part.dur_ns, h.frame = part.frame;
    }
  }
  std::vector<CauseIdle> out;
  for (std::size_t c = 0; c < model::kIdleCauseCount; ++c) {
    if (a.idle_ns[c] == 0) continue;
    CauseIdle row;
    row.cause = std::string(model::idle_cause_key(static_cast<model::IdleCause>(c)));
    row.idle_us = us(a.idle_ns[c]);
    row.percent_of_idle = share(row.idle_us, idle_us);
    row.percent_of_e2e = share(row.idle_us, window_us);
    row.gaps = tally[c].gaps;
    row.longest_gap_us = us(tally[c].longest_ns);
    row.host_ops = top_holders(ix, tally[c].holders);
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const CauseIdle& a, const CauseIdle& b) { return a.idle_us > b.idle_us; });
  return out;
}

std::vector<StepRow> step_rows(const index::EventIndex& ix,
                               const std::vector<model::StepFigures>& steps) {
  std::vector<StepRow> out;
  for (const model::StepFigures& s : steps) {
    StepRow row;
    row.name = ix.name(s.row);
    row.start_us = ix.ts_us(s.row);
    row.dur_us = us(s.dur_ns);
    row.gpu_busy_us = us(s.gpu_busy_ns);
    row.idle_us = us(s.idle_ns);
    if (s.serving) {
      row.phase = model::step_phase_name(model::step_phase(*s.serving));
      row.requests = s.serving->num_requests();
      row.tokens = s.serving->batch_size;
      row.gpu_span_us = us(s.gpu_end_ns - s.gpu_start_ns);
    }
    out.push_back(std::move(row));
  }
  for (std::size_t i : model::outlier_steps(steps)) out[i].outlier = true;
  return out;
}

// The splitter's defaults (its --num-steps).
constexpr std::size_t kSteadyStateSteps = 32;

std::optional<SteadyState> steady_state(const std::vector<model::StepFigures>& steps) {
  if (steps.size() < 2 || !steps.front().serving) return std::nullopt;
  std::vector<model::SplitterStep> split;
  for (const model::StepFigures& s : steps) {
    if (!s.serving) return std::nullopt;
    const model::StepPhase phase = model::step_phase(*s.serving);
    split.push_back(
        {s.serving->num_requests(),
         phase == model::StepPhase::kPrefillOnly || phase == model::StepPhase::kPrefillDecode,
         phase == model::StepPhase::kDecodeOnly});
  }
  const model::SteadyRegions split_regions = model::steady_state_regions(split, kSteadyStateSteps);
  const std::vector<model::StepRange>& regions = split_regions.regions;
  SteadyState out;
  out.region = *std::max_element(regions.begin(), regions.end(), [](auto& a, auto& b) {
    return a.size() < b.size();  // max_element keeps the first of equals
  });
  out.plateau = split_regions.plateau;
  for (const model::SplitterStep& s : split)
    out.peak_requests = std::max(out.peak_requests, s.num_requests);
  out.window =
      model::steady_state_window(split, regions, kSteadyStateSteps, model::WindowMode::kMixed);
  return out;
}

std::optional<BoundBreakdown> serving_bound(const std::vector<model::StepFigures>& steps,
                                            const perf_report::UnifiedPerfTable* unified) {
  if (!unified || steps.empty() || !steps.front().serving) return std::nullopt;
  BoundBreakdown b;
  double top_memory = 0, top_compute = 0;
  for (const perf_report::UnifiedGroup& g : unified->groups) {
    const double t = g.kernel_time_sum_us;
    b.total_us += t;
    const std::string bound = g.roofline_bound.value_or("");
    if (bound == "MEMORY_BOUND") {
      b.memory_us += t;
      if (t > top_memory) top_memory = t, b.top_memory_op = g.name;
    } else if (bound == "COMPUTE_BOUND") {
      b.compute_us += t;
      if (t > top_compute) top_compute = t, b.top_compute_op = g.name;
    } else {
      b.unknown_us += t;
    }
  }
  if (b.total_us <= 0) return std::nullopt;
  return b;
}

}  // namespace

std::string finding_id(const Finding& f) {
  return std::string(tier_name(f.tier)) + "-p" + std::to_string(f.rank);
}

std::vector<CauseIdle> idle_by_cause(const index::EventIndex& index,
                                     const model::IdleAttribution& idle) {
  if (idle.empty()) return {};
  return tally_causes(index, idle, us(idle.window_end_ns - idle.window_start_ns),
                      us(idle.idle_total_ns()));
}

const Finding& resolve(const RankedFindings& ranked, FindingRef ref) {
  return ranked.tier(ref.tier).at(static_cast<std::size_t>(ref.rank - 1));
}

Diagnosis diagnose(const DiagnosisInputs& in) {
  Diagnosis d;
  for (const Finding* f : cross_tier_order(in.findings)) d.order.push_back({f->tier, f->rank});
  d.computation_by_category = in.categories;
  d.compute_coverage_percent = modeled_percent(in.categories);
  if (in.idle.empty()) return d;
  d.present = true;
  d.window_us = us(in.idle.window_end_ns - in.idle.window_start_ns);
  d.idle_us = us(in.idle.idle_total_ns());
  d.idle_by_cause = in.causes;
  d.queue = in.idle.queues;
  d.launch_delay_median_us = in.idle.launch_delay_median_us;
  d.launch_delay_p95_us = in.idle.launch_delay_p95_us;
  d.steps = step_rows(in.index, in.steps);
  d.steady_state = steady_state(in.steps);
  d.serving_bound = serving_bound(in.steps, in.unified);
  d.collectives = in.collectives;
  return d;
}

}  // namespace traceprism::findings
