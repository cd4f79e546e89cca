#include "model/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

namespace traceprism::model {

SteadyRegions steady_state_regions(const std::vector<SplitterStep>& steps, std::size_t num_steps) {
  const std::size_t n = steps.size();
  SteadyRegions out;
  std::vector<StepRange>& regions = out.regions;
  if (n == 0) return out;
  std::int64_t peak = 0;
  for (const SplitterStep& s : steps) peak = std::max(peak, s.num_requests);
  const double t = n >= num_steps ? 0.1 : 0.2;
  const double tolerance = std::max(1.0, t * static_cast<double>(peak));
  auto near = [&](const SplitterStep& s) {
    return std::abs(static_cast<double>(s.num_requests - peak)) <= tolerance;
  };
  std::int64_t counter = 0;
  bool started = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (near(steps[i]) && !started) ++counter;
    if (!near(steps[i]) && started) --counter;
    if (counter > 5 && !started) {
      started = true;
      start = i + 1 - static_cast<std::size_t>(counter);
    } else if (started && counter <= 0) {
      regions.push_back({start, i});
      started = false;
      counter = 0;
    }
  }
  if (started) regions.push_back({start, n - 1});  // QUIRK: the last step is left out
  out.plateau = !regions.empty();
  if (out.plateau) return out;
  const auto count = static_cast<std::int64_t>(n);
  const std::int64_t delta = std::min<std::int64_t>(
      count, std::max<std::int64_t>(8, static_cast<std::int64_t>(num_steps) - count));
  const std::int64_t begin = std::max<std::int64_t>(0, delta / 2);
  const std::int64_t end = std::max(begin + 1, std::min(count, count - delta / 2));
  regions.push_back({static_cast<std::size_t>(begin), static_cast<std::size_t>(end)});
  return out;
}

namespace {

// The longest run of steps with `pick` inside `region` (first on ties), cut to `limit`.
template <class Pick>
StepRange longest_run(const std::vector<SplitterStep>& steps, StepRange region, std::size_t limit,
                      Pick pick) {
  StepRange best{region.begin, region.begin};
  for (std::size_t i = region.begin; i < region.end;) {
    if (!pick(steps[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < region.end && pick(steps[j])) ++j;
    if (j - i > best.size()) best = {i, j};
    i = j;
  }
  best.end = best.begin + std::min(best.size(), limit);
  return best;
}

double pd_ratio(const std::vector<SplitterStep>& steps, StepRange r) {
  std::size_t pd = 0;
  for (std::size_t i = r.begin; i < r.end; ++i) pd += steps[i].has_context ? 1 : 0;
  return r.size() ? static_cast<double>(pd) / static_cast<double>(r.size()) : 0.0;
}

double mean_requests(const std::vector<SplitterStep>& steps, StepRange r) {
  double sum = 0;
  for (std::size_t i = r.begin; i < r.end; ++i) sum += static_cast<double>(steps[i].num_requests);
  return r.size() ? sum / static_cast<double>(r.size()) : 0.0;
}

StepRange mixed_window(const std::vector<SplitterStep>& steps,
                       const std::vector<StepRange>& regions, StepRange largest,
                       std::size_t num_steps, const std::optional<ServingLoad>& load) {
  // Spec §7.3 QUIRK: the reference ratio is pooled over every region.
  std::size_t pooled = 0, pooled_pd = 0;
  for (const StepRange& r : regions)
    for (std::size_t i = r.begin; i < r.end; ++i, ++pooled) pooled_pd += steps[i].has_context;
  double reference = pooled ? static_cast<double>(pooled_pd) / static_cast<double>(pooled) : 0;
  if (load && load->output_length > 0) {
    const double reuse = std::clamp(load->reuse, 0.0, 1.0);
    const double ideal = 2 * load->concurrency / (load->output_length * (1 + reuse));
    if (ideal > 0) num_steps = std::max(num_steps, static_cast<std::size_t>(std::ceil(1 / ideal)));
    reference = ideal;
  }
  std::vector<StepRange> candidates;
  if (largest.size() <= num_steps) {
    candidates.push_back(largest);
  } else {
    const std::size_t stride = std::max<std::size_t>(
        1, num_steps / std::max<std::size_t>(1, std::min<std::size_t>(num_steps / 2, 10)));
    for (std::size_t s = largest.begin; s + num_steps <= largest.end; s += stride)
      candidates.push_back({s, s + num_steps});
  }
  const bool any_pd = std::any_of(candidates.begin(), candidates.end(),
                                  [&](StepRange c) { return pd_ratio(steps, c) > 0; });
  StepRange best{};
  std::tuple<double, double> best_key{};
  bool first = true;
  for (const StepRange& c : candidates) {
    if (any_pd && pd_ratio(steps, c) == 0) continue;
    const std::tuple<double, double> key{std::abs(pd_ratio(steps, c) - reference),
                                         -mean_requests(steps, c)};
    if (first || key < best_key) best = c, best_key = key, first = false;
  }
  return best;
}

}  // namespace

StepRange steady_state_window(const std::vector<SplitterStep>& steps,
                              const std::vector<StepRange>& regions, std::size_t num_steps,
                              WindowMode mode, const std::optional<ServingLoad>& load) {
  if (regions.empty()) return {};
  StepRange largest = regions.front();
  for (const StepRange& r : regions)
    if (r.size() > largest.size()) largest = r;
  switch (mode) {
    case WindowMode::kDecodeOnly:
      return longest_run(steps, largest, num_steps,
                         [](const SplitterStep& s) { return s.decode_only; });
    case WindowMode::kMaxPrefillDecode:
      return longest_run(steps, largest, num_steps,
                         [](const SplitterStep& s) { return s.has_context; });
    case WindowMode::kMixed:
      break;
  }
  return mixed_window(steps, regions, largest, num_steps, load);
}

}  // namespace traceprism::model
