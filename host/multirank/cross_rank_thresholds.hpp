// The cross-rank analyzers' thresholds as configuration options (multi-rank.md §9.2: "config
// options, analyzer xrank"): "xrank.<Name>" in a config file's "options" (or --config), each
// with its default, listed by `analyze --dump-config`.
#pragma once

#include <map>
#include <span>
#include <string>

#include "multirank/bandwidth_outlier_findings.hpp"
#include "multirank/collective_bandwidth_findings.hpp"
#include "multirank/collective_pattern_findings.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/rank_balance_findings.hpp"

namespace traceprism::multirank {

struct CrossRankThresholds {
  CrossRankOptions straggler;  // its clock offsets are the run's, not an option
  double jitter_min_wait_percent = 2.0;
  CollectivePatternOptions patterns;
  CollectiveBandwidthOptions bandwidth;
  BandwidthOutlierOptions bandwidth_outlier;
  RankBalanceOptions balance;
};

struct ThresholdOption {
  const char* name;           // "xrank.StragglerMinLatenessUs"
  const char* default_value;  // as --dump-config prints it
  const char* meaning;
};

// Every option, in a fixed order.
std::span<const ThresholdOption> cross_rank_threshold_options();

// The thresholds with `options`' "xrank.*" entries applied (other keys are ignored). Throws
// std::invalid_argument with one sentence naming the option when a value is not a number in
// its range.
CrossRankThresholds cross_rank_thresholds(const std::map<std::string, std::string>& options);

}  // namespace traceprism::multirank
