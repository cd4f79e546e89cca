#include "findings/category_shares.hpp"

#include <algorithm>

namespace traceprism::findings {

std::vector<CategoryShare> category_shares(const std::vector<std::string>& categories,
                                           const model::ComputationPartition& partition) {
  std::vector<CategoryShare> out;
  for (std::uint32_t c = 0; c < categories.size(); ++c) {
    const double modeled = partition.bucket_us.at(model::category_bucket(c, true));
    const double time = partition.bucket_us.at(model::category_bucket(c, false)) + modeled;
    if (time > 0) out.push_back({categories[c].empty() ? "other" : categories[c], time, modeled});
  }
  std::sort(out.begin(), out.end(), [](const CategoryShare& a, const CategoryShare& b) {
    return a.time_us != b.time_us ? a.time_us > b.time_us : a.category < b.category;
  });
  if (partition.unbucketed_us > 0) out.push_back({kNoOpCategory, partition.unbucketed_us, 0});
  return out;
}

std::optional<double> modeled_percent(const std::vector<CategoryShare>& shares) {
  double all = 0, modeled = 0;
  for (const CategoryShare& s : shares) all += s.time_us, modeled += s.modeled_us;
  if (all <= 0) return std::nullopt;
  return modeled / all * 100.0;
}

}  // namespace traceprism::findings
