#include "model/forward_backward.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace traceprism::model {

namespace {
constexpr std::string_view kBackwardPrefix = "autograd::engine::evaluate_function:";
}

ForwardBackwardLinks ForwardBackwardLinks::build(const index::EventIndex& index) {
  // Groups in order of first appearance, members in file order.
  std::vector<std::vector<Row>> groups;
  std::unordered_map<std::int64_t, std::size_t> group_of;
  for (Row r : index.rows_of_kind(index::EventKind::kCpuOp)) {
    const std::optional<index::OpArgs> args = index.op_args(r);
    if (!args || args->sequence_number == index::kNoId) continue;
    auto [it, inserted] = group_of.try_emplace(args->sequence_number, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(r);
  }

  ForwardBackwardLinks links;
  for (const auto& group : groups) {
    auto backward = std::find_if(group.begin(), group.end(), [&](Row r) {
      return index.name(r).substr(0, kBackwardPrefix.size()) == kBackwardPrefix;
    });
    if (backward == group.end()) continue;
    std::int64_t forward = -1;
    for (Row r : group) {
      if (index.pid(r) == index.pid(*backward) && index.tid(r) == index.tid(*backward)) continue;
      // Strictly later wins: ties keep the earlier op, as the reference does.
      if (forward < 0 || index.ts_us(r) > index.ts_us(static_cast<Row>(forward))) forward = r;
    }
    if (forward >= 0) links.pairs_.emplace_back(*backward, static_cast<Row>(forward));
  }
  std::sort(links.pairs_.begin(), links.pairs_.end());
  return links;
}

std::int32_t ForwardBackwardLinks::forward_of(Row backward) const {
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), std::make_pair(backward, Row{0}));
  return it != pairs_.end() && it->first == backward ? static_cast<std::int32_t>(it->second) : -1;
}

std::vector<Row> ForwardBackwardLinks::backward_of(Row forward) const {
  std::vector<Row> out;
  for (const auto& [bwd, fwd] : pairs_) {
    if (fwd == forward) out.push_back(bwd);
  }
  return out;
}

}  // namespace traceprism::model
