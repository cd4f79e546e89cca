// Steady-state regions and windows of a serving trace (inference-mode spec §7.2-§7.3), on
// synthetic num_requests series; expectations worked out by hand from the spec's rules.
#include "model/steady_state.hpp"

#include <gtest/gtest.h>

namespace model = traceprism::model;
using model::SplitterStep;
using model::StepRange;

namespace {

std::vector<SplitterStep> series(const std::vector<std::int64_t>& requests) {
  std::vector<SplitterStep> steps;
  for (std::int64_t r : requests) steps.push_back({r, false, true});
  return steps;
}

// Ramp-up, a plateau of 20 steps at 32 requests, a short drain: fewer steps than num_steps, so
// the tolerance is 20 % (6.4). The region starts at the first near step and, still open at the
// end (three non-near steps do not bring the counter to 0), stops before the last step.
TEST(SteadyState, ClearPlateauIsOneRegion) {
  std::vector<std::int64_t> r = {1, 2, 4, 8, 16};
  r.insert(r.end(), 20, 32);
  r.insert(r.end(), {16, 8, 4});
  const model::SteadyRegions split = model::steady_state_regions(series(r), 32);
  EXPECT_TRUE(split.plateau);
  EXPECT_EQ(split.regions, (std::vector<StepRange>{{5, 27}}));
}

// Six non-near steps after the start close the region, at the sixth.
TEST(SteadyState, RegionClosesAfterAsManyFarStepsAsItTookToOpen) {
  std::vector<std::int64_t> r(10, 32);
  r.insert(r.end(), 10, 1);
  EXPECT_EQ(model::steady_state_regions(series(r), 8).regions, (std::vector<StepRange>{{0, 15}}));
}

// No six near steps: the middle fallback, delta = min(n, max(8, num_steps - n)) = 10.
TEST(SteadyState, NoPlateauFallsBackToTheMiddle) {
  const auto steps = series({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  const model::SteadyRegions split = model::steady_state_regions(steps, 32);
  EXPECT_FALSE(split.plateau);
  EXPECT_EQ(split.regions, (std::vector<StepRange>{{5, 6}}));
}

class Windows : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::int64_t> r(10, 32);
    r.insert(r.end(), 10, 1);
    steps = series(r);
    for (std::size_t i : {0, 5, 6}) steps[i] = {32, true, false};  // prefill or mixed
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (i < 7 || i > 12) steps[i].decode_only = false;
    regions = model::steady_state_regions(steps, 8).regions;
    ASSERT_EQ(regions, (std::vector<StepRange>{{0, 15}}));
  }
  std::vector<SplitterStep> steps;
  std::vector<StepRange> regions;
};

// Candidates of 4 steps every 2; the pooled PD ratio is 3/15 = 0.2; three candidates are 0.05
// away (ratio 0.25) with equal requests: the first wins.
TEST_F(Windows, MixedWindowIsClosestToThePooledRatio) {
  EXPECT_EQ(model::steady_state_window(steps, regions, 4, model::WindowMode::kMixed),
            (StepRange{0, 4}));
}

// CONC 8, OSL 16, R 0: ideal ratio 2 x 8 / 16 = 1, so the window with most PD steps wins.
TEST_F(Windows, ServingLoadOverridesTheReferenceRatio) {
  EXPECT_EQ(model::steady_state_window(steps, regions, 4, model::WindowMode::kMixed,
                                       model::ServingLoad{8, 16, 0}),
            (StepRange{4, 8}));
}

TEST_F(Windows, DecodeOnlyAndPrefillRunsAreTheLongestCutToNumSteps) {
  EXPECT_EQ(model::steady_state_window(steps, regions, 4, model::WindowMode::kDecodeOnly),
            (StepRange{7, 11}));
  EXPECT_EQ(model::steady_state_window(steps, regions, 4, model::WindowMode::kMaxPrefillDecode),
            (StepRange{5, 7}));
  for (SplitterStep& s : steps) s.has_context = false;
  EXPECT_EQ(
      model::steady_state_window(steps, regions, 4, model::WindowMode::kMaxPrefillDecode).size(),
      0u);
}

}  // namespace
