#include "findings/top_category.hpp"

#include <algorithm>

namespace traceprism::findings {

TopCategory top_category(const std::map<std::string, double>& busy_us_by_category,
                         double computation_us) {
  TopCategory top;
  double best = 0, all = 0;
  for (const auto& [name, us] : busy_us_by_category) {
    all += us;
    if (us > best) best = us, top.name = name;
  }
  const double denominator = std::max(computation_us, all);
  if (denominator > 0) top.percent = best / denominator * 100;
  return top;
}

}  // namespace traceprism::findings
