// The xrank.* configuration options (multi-rank.md §9.2): the defaults --dump-config prints are
// the analyzers' own, a value given applies, and a bad one is refused with its name.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "multirank/cross_rank_thresholds.hpp"

namespace {

namespace multirank = traceprism::multirank;

TEST(CrossRankThresholds, PrintedDefaultsAreTheAnalyzersDefaults) {
  std::map<std::string, std::string> defaults;
  for (const multirank::ThresholdOption& o : multirank::cross_rank_threshold_options())
    defaults[o.name] = o.default_value;
  const multirank::CrossRankThresholds given = multirank::cross_rank_thresholds(defaults);
  const multirank::CrossRankThresholds built_in;
  EXPECT_EQ(given.straggler.max_required_last_share, built_in.straggler.max_required_last_share);
  EXPECT_EQ(given.straggler.min_lateness_ns, built_in.straggler.min_lateness_ns);
  EXPECT_EQ(given.straggler.min_lateness_step_share, built_in.straggler.min_lateness_step_share);
  EXPECT_EQ(given.straggler.min_lateness_z, built_in.straggler.min_lateness_z);
  EXPECT_EQ(given.straggler.lateness_z_floor_ns, built_in.straggler.lateness_z_floor_ns);
  EXPECT_EQ(given.jitter_min_wait_percent, built_in.jitter_min_wait_percent);
  EXPECT_EQ(given.bandwidth.min_message_bytes, built_in.bandwidth.min_message_bytes);
  EXPECT_EQ(given.bandwidth.max_efficiency, built_in.bandwidth.max_efficiency);
  EXPECT_EQ(given.bandwidth.min_exposed_percent, built_in.bandwidth.min_exposed_percent);
  EXPECT_EQ(given.bandwidth_outlier.min_groups, built_in.bandwidth_outlier.min_groups);
  EXPECT_EQ(given.bandwidth_outlier.max_ratio, built_in.bandwidth_outlier.max_ratio);
  EXPECT_EQ(given.patterns.small_message_bytes, built_in.patterns.small_message_bytes);
  EXPECT_EQ(given.patterns.min_small_per_step, built_in.patterns.min_small_per_step);
  EXPECT_EQ(given.patterns.min_small_exposed_percent, built_in.patterns.min_small_exposed_percent);
  EXPECT_EQ(given.patterns.min_alltoall_imbalance, built_in.patterns.min_alltoall_imbalance);
  EXPECT_EQ(given.patterns.min_alltoall_exposed_percent,
            built_in.patterns.min_alltoall_exposed_percent);
  EXPECT_EQ(given.patterns.min_pipeline_wait_percent, built_in.patterns.min_pipeline_wait_percent);
  EXPECT_EQ(given.balance.min_ranks, built_in.balance.min_ranks);
  EXPECT_EQ(given.balance.min_z, built_in.balance.min_z);
  EXPECT_EQ(given.balance.min_idle_excess_pp, built_in.balance.min_idle_excess_pp);
  EXPECT_EQ(given.balance.min_step_ratio, built_in.balance.min_step_ratio);
  // Every option name once, all under xrank.
  std::set<std::string> names;
  for (const multirank::ThresholdOption& o : multirank::cross_rank_threshold_options()) {
    EXPECT_EQ(std::string(o.name).rfind("xrank.", 0), 0u) << o.name;
    EXPECT_TRUE(names.insert(o.name).second) << o.name;
  }
}

TEST(CrossRankThresholds, GivenValuesApplyAndOtherKeysAreIgnored) {
  const multirank::CrossRankThresholds t =
      multirank::cross_rank_thresholds({{"xrank.StragglerMinLatenessUs", "120.5"},
                                        {"xrank.BandwidthMinMessageMiB", "8"},
                                        {"xrank.SmallMessageKiB", "64"},
                                        {"cpu-idle.IdleThresholdPercent", "not mine"}});
  EXPECT_EQ(t.straggler.min_lateness_ns, 120'500);
  EXPECT_EQ(t.bandwidth.min_message_bytes, 8 << 20);
  EXPECT_EQ(t.patterns.small_message_bytes, 64 << 10);
}

TEST(CrossRankThresholds, ABadValueNamesItsOption) {
  for (const char* bad : {"abc", "", "1.5x", "-1", "nan"}) {
    try {
      multirank::cross_rank_thresholds({{"xrank.StragglerLastShare", bad}});
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), std::string("xrank.StragglerLastShare: expected a number "
                                                   "from 0 to 1, got '") +
                                           bad + "'.");
    }
  }
}

}  // namespace
