#include "multirank/cross_rank_thresholds.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>

namespace traceprism::multirank {

namespace {

using Apply = std::function<void(CrossRankThresholds&, double)>;

constexpr std::size_t kOptionCount = 21;

struct Option {
  ThresholdOption text;
  double min, max;
  Apply apply;
};

std::int64_t us_to_ns(double us) {
  return static_cast<std::int64_t>(std::llround(us * 1e3));
}

const std::array<Option, kOptionCount>& options_table() {
  using T = CrossRankThresholds;
  static const std::array<Option, kOptionCount> kTable{{
      {{"xrank.StragglerLastShare", "0.5",
        "straggler: a rank arrives last at least at min(this, 3 / n) of the skewed collectives"},
       0.0,
       1.0,
       [](T& t, double v) { t.straggler.max_required_last_share = v; }},
      {{"xrank.StragglerMinLatenessUs", "50", "straggler: its mean lateness reaches this (µs)"},
       0.0,
       1e9,
       [](T& t, double v) { t.straggler.min_lateness_ns = us_to_ns(v); }},
      {{"xrank.StragglerMinLatenessStepShare", "0.005",
        "straggler: ... and this share of the mean step"},
       0.0,
       1.0,
       [](T& t, double v) { t.straggler.min_lateness_step_share = v; }},
      {{"xrank.StragglerMinZ", "3.5", "straggler: robust z of its lateness, with 4 ranks or more"},
       0.0,
       1e6,
       [](T& t, double v) { t.straggler.min_lateness_z = v; }},
      {{"xrank.LatenessZFloorUs", "10", "straggler: the z scale's floor (µs)"},
       0.001,
       1e9,
       [](T& t, double v) { t.straggler.lateness_z_floor_ns = us_to_ns(v); }},
      {{"xrank.JitterMinWaitPercent", "2",
        "arrival-jitter: Σ exposed wait over ranks reaches this % of Σ E2E"},
       0.0,
       100.0,
       [](T& t, double v) { t.jitter_min_wait_percent = v; }},
      {{"xrank.BandwidthMinMessageMiB", "32", "collective-bandwidth: messages of at least this"},
       0.0,
       1e9,
       [](T& t, double v) {
         t.bandwidth.min_message_bytes = static_cast<std::int64_t>(std::llround(v * 1048576.0));
       }},
      {{"xrank.BandwidthMaxEfficiency", "0.4",
        "collective-bandwidth: fires below this median bus bandwidth / modelled peak"},
       0.0,
       10.0,
       [](T& t, double v) { t.bandwidth.max_efficiency = v; }},
      {{"xrank.BandwidthMinExposedPercent", "1",
        "collective-bandwidth: the family's exposed transfer reaches this % of E2E"},
       0.0,
       100.0,
       [](T& t, double v) { t.bandwidth.min_exposed_percent = v; }},
      {{"xrank.OutlierMinGroups", "3",
        "bandwidth-outlier-group: sibling groups sharing a family, the outlier included"},
       2.0,
       1e9,
       [](T& t, double v) { t.bandwidth_outlier.min_groups = static_cast<std::size_t>(v); }},
      {{"xrank.OutlierMaxRatio", "0.7",
        "bandwidth-outlier-group: a group below this × its siblings' median bus bandwidth"},
       0.0,
       1.0,
       [](T& t, double v) { t.bandwidth_outlier.max_ratio = v; }},
      {{"xrank.SmallMessageKiB", "1024", "small-collectives: messages below this"},
       0.0,
       1e9,
       [](T& t, double v) {
         t.patterns.small_message_bytes = static_cast<std::int64_t>(std::llround(v * 1024.0));
       }},
      {{"xrank.SmallMinPerStep", "20", "small-collectives: at least this many per step"},
       0.0,
       1e9,
       [](T& t, double v) { t.patterns.min_small_per_step = v; }},
      {{"xrank.SmallMinExposedPercent", "2",
        "small-collectives: their exposed transfer reaches this % of E2E"},
       0.0,
       100.0,
       [](T& t, double v) { t.patterns.min_small_exposed_percent = v; }},
      {{"xrank.AlltoallMinImbalance", "1.5",
        "alltoall-imbalance: median max / mean per-rank bytes reaches this"},
       1.0,
       1e9,
       [](T& t, double v) { t.patterns.min_alltoall_imbalance = v; }},
      {{"xrank.AlltoallMinExposedPercent", "1",
        "alltoall-imbalance: their exposed time reaches this % of E2E"},
       0.0,
       100.0,
       [](T& t, double v) { t.patterns.min_alltoall_exposed_percent = v; }},
      {{"xrank.PipelineMinWaitPercent", "3",
        "pipeline-wait: a stage's late-sender exposed wait reaches this % of E2E"},
       0.0,
       100.0,
       [](T& t, double v) { t.patterns.min_pipeline_wait_percent = v; }},
      {{"xrank.BalanceMinRanks", "4", "idle-outlier, step-imbalance: ranks with data needed"},
       2.0,
       1e9,
       [](T& t, double v) { t.balance.min_ranks = static_cast<std::size_t>(v); }},
      {{"xrank.BalanceMinZ", "3.5", "idle-outlier, step-imbalance: robust z to flag a rank"},
       0.0,
       1e6,
       [](T& t, double v) { t.balance.min_z = v; }},
      {{"xrank.IdleMinExcessPoints", "5",
        "idle-outlier: idle % above the median by at least this many points"},
       0.0,
       100.0,
       [](T& t, double v) { t.balance.min_idle_excess_pp = v; }},
      {{"xrank.StepMinRatio", "1.1", "step-imbalance: mean step at least this × the median"},
       1.0,
       1e6,
       [](T& t, double v) { t.balance.min_step_ratio = v; }},
  }};
  return kTable;
}

std::array<ThresholdOption, kOptionCount> option_texts() {
  std::array<ThresholdOption, kOptionCount> texts{};
  for (std::size_t i = 0; i < texts.size(); ++i) texts[i] = options_table()[i].text;
  return texts;
}

double number_in_range(const Option& o, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value) || value < o.min || value > o.max) {
    char range[96];
    std::snprintf(range, sizeof range, "a number from %g to %g", o.min, o.max);
    throw std::invalid_argument(std::string(o.text.name) + ": expected " + range + ", got '" +
                                text + "'.");
  }
  return value;
}

}  // namespace

std::span<const ThresholdOption> cross_rank_threshold_options() {
  static const std::array<ThresholdOption, kOptionCount> kTexts = option_texts();
  return kTexts;
}

CrossRankThresholds cross_rank_thresholds(const std::map<std::string, std::string>& options) {
  CrossRankThresholds thresholds;
  for (const Option& o : options_table())
    if (const auto it = options.find(o.text.name); it != options.end())
      o.apply(thresholds, number_in_range(o, it->second));
  return thresholds;
}

}  // namespace traceprism::multirank
