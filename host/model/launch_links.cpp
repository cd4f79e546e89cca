#include "model/launch_links.hpp"

#include <algorithm>
#include <cctype>

namespace traceprism::model {

bool is_graph_launch(std::string_view name) {
  return name == "cudaGraphLaunch" || name == "hipGraphLaunch";
}

using index::EventKind;

namespace {

bool contains_launch(std::string_view name) {
  constexpr std::string_view kNeedle = "launch";
  if (name.size() < kNeedle.size()) return false;
  for (std::size_t i = 0; i + kNeedle.size() <= name.size(); ++i) {
    std::size_t j = 0;
    while (j < kNeedle.size() &&
           std::tolower(static_cast<unsigned char>(name[i + j])) == kNeedle[j]) {
      ++j;
    }
    if (j == kNeedle.size()) return true;
  }
  return false;
}

// Runtime and driver rows in file order.
std::vector<Row> runtime_rows(const index::EventIndex& index) {
  auto a = index.rows_of_kind(EventKind::kCudaRuntime);
  auto b = index.rows_of_kind(EventKind::kCudaDriver);
  std::vector<Row> rows;
  rows.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(rows));
  return rows;
}

// Flow events of one half, (id, row) sorted, so that the last row of an id is the one that
// counts. A sorted array is a third of the memory of a hash map for millions of flows.
class FlowHalves {
 public:
  std::int64_t last(std::int64_t id) const {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), std::make_pair(id, ~Row{0}));
    if (it == entries_.begin() || std::prev(it)->first != id) return -1;
    return std::prev(it)->second;
  }
  bool empty() const { return entries_.empty(); }
  std::vector<std::pair<std::int64_t, Row>> entries_;
};

FlowHalves collect_flows(const index::EventIndex& index, EventKind kind, index::StringId category) {
  FlowHalves halves;
  for (Row r : index.rows_of_kind(kind)) {
    if (index.category_id(r) == category) halves.entries_.emplace_back(index.flow_id(r), r);
  }
  std::sort(halves.entries_.begin(), halves.entries_.end());
  return halves;
}

// Which id groups of a KeyedRows lookup a rule has already walked, by the group's offset.
class GroupsSeen {
 public:
  explicit GroupsSeen(const index::KeyedRows& lookup)
      : base_(lookup.rows.data()), seen_(lookup.rows.size(), false) {}
  bool first_visit(std::span<const Row> group) {
    if (group.empty()) return false;
    const auto offset = static_cast<std::size_t>(group.data() - base_);
    if (seen_[offset]) return false;
    seen_[offset] = true;
    return true;
  }

 private:
  const Row* base_;
  std::vector<bool> seen_;
};

}  // namespace

std::span<const Row> LaunchLinks::launched(Row runtime_row) const {
  const auto [first, last] = range_buckets_.candidates(runtime_row);
  const auto end = ranges_.begin() + static_cast<std::ptrdiff_t>(last);
  auto it = std::lower_bound(ranges_.begin() + static_cast<std::ptrdiff_t>(first), end, runtime_row,
                             [](const Range& r, Row row) { return r.runtime < row; });
  if (it == end || it->runtime != runtime_row) return {};
  return {targets_.data() + it->first, it->count};
}

LaunchLinks LaunchLinks::build(const index::EventIndex& index) {
  LaunchLinks links;
  links.launcher_.assign(index.size(), -1);
  const std::vector<Row> runtimes = runtime_rows(index);

  // The reference picks the linking id from the first launch call: correlation if it has one.
  for (Row r : runtimes) {
    if (contains_launch(index.name(r))) {
      links.key_ = index.correlation(r) != index::kNoId ? Key::kCorrelation : Key::kExternalId;
      break;
    }
  }
  const bool by_correlation = links.key_ == Key::kCorrelation;
  auto key_of = [&](Row r) { return by_correlation ? index.correlation(r) : index.external_id(r); };
  const index::KeyedRows rows_by_key =
      by_correlation ? index::rows_by_correlation(index) : index::rows_by_external_id(index);

  // ac2g flow halves by id; a later flow with the same id replaces an earlier one.
  const index::StringId ac2g = index.strings().find("ac2g");
  const FlowHalves flow_start = collect_flows(index, EventKind::kFlowStart, ac2g);
  const FlowHalves flow_end = collect_flows(index, EventKind::kFlowEnd, ac2g);

  // Some exporters (early Kineto, TensorBoard's test traces, hand-written tools) write no
  // launch flows at all. The reference then links nothing; we link by correlation instead,
  // which is one-to-one between a launch call and its GPU work.
  links.flowless_ = flow_start.empty() && flow_end.empty();
  // Flowless traces link by correlation, whichever id the launch calls were keyed by.
  index::KeyedRows correlation_lookup;
  if (links.flowless_ && !by_correlation) correlation_lookup = index::rows_by_correlation(index);
  const index::KeyedRows& rows_by_correlation = by_correlation ? rows_by_key : correlation_lookup;

  // A GPU event has one launcher: the last call in file order that links it (the reference
  // appends it to every such call, so ids shared by many calls cost it N x M). Walking the calls
  // backwards, each claims only GPU events no later call claimed, and each id group is walked
  // once per rule: an earlier call of the same id and rule could only claim a subset.
  GroupsSeen graph_seen(rows_by_key);
  GroupsSeen flow_seen(rows_by_key);
  GroupsSeen flowless_seen(rows_by_correlation);
  auto claim = [&](Row r, Row g) {
    if (links.launcher_[g] >= 0 || !index::is_gpu_kind(index.kind(g))) return;
    links.launcher_[g] = static_cast<std::int32_t>(r);
    links.targets_.push_back(g);
  };
  const index::StringId cuda_graph = index.strings().find("cudaGraphLaunch");
  const index::StringId hip_graph = index.strings().find("hipGraphLaunch");
  for (auto it = runtimes.rbegin(); it != runtimes.rend(); ++it) {
    const Row r = *it;
    const std::int64_t id = key_of(r);
    if (id == index::kNoId) continue;
    const auto first = static_cast<std::uint32_t>(links.targets_.size());
    const index::StringId name = index.name_id(r);
    if (name != index::kNoString && (name == cuda_graph || name == hip_graph)) {
      ++links.graph_launches_;
      const std::span<const Row> group = rows_by_key.find(id);
      if (!graph_seen.first_visit(group)) continue;
      for (Row g : group) claim(r, g);
    } else if (links.flowless_) {
      if (index.correlation(r) == index::kNoId) continue;
      const std::span<const Row> group = rows_by_correlation.find(index.correlation(r));
      if (!flowless_seen.first_visit(group)) continue;
      for (Row g : group) claim(r, g);
    } else {
      const std::int64_t end = flow_end.last(id);
      if (flow_start.last(id) < 0 || end < 0) continue;
      const std::span<const Row> group = rows_by_key.find(id);
      if (!flow_seen.first_visit(group)) continue;
      // The last non-flow event on the flow end's (pid, tid) with this id is the target.
      const auto target = std::find_if(group.rbegin(), group.rend(), [&](Row candidate) {
        return index.pid(candidate) == index.pid(static_cast<Row>(end)) &&
               index.tid(candidate) == index.tid(static_cast<Row>(end));
      });
      // Unlike the reference, insist on a GPU event: a flow whose both ends sit on the host
      // would otherwise link a call to itself.
      if (target != group.rend()) claim(r, *target);
    }
    const auto count = static_cast<std::uint32_t>(links.targets_.size()) - first;
    if (count > 0) links.ranges_.push_back({r, first, count});
  }
  std::reverse(links.ranges_.begin(), links.ranges_.end());
  links.index_ranges();

  for (EventKind k : {EventKind::kKernel, EventKind::kGpuMemcpy, EventKind::kGpuMemset}) {
    for (Row g : index.rows_of_kind(k)) {
      if (links.launcher_[g] >= 0)
        ++links.linked_count_;
      else
        ++links.unlinked_count_;
    }
  }
  return links;
}

LaunchLinks LaunchLinks::build(const index::EventIndex& index,
                               std::span<const std::pair<Row, Row>> relinks) {
  LaunchLinks links = build(index);
  if (!relinks.empty()) links.apply_relinks(relinks);
  return links;
}

void LaunchLinks::apply_relinks(std::span<const std::pair<Row, Row>> relinks) {
  for (const auto& [gpu, call] : relinks) {
    if (launcher_[gpu] < 0) {
      ++linked_count_;
      --unlinked_count_;
    }
    launcher_[gpu] = static_cast<std::int32_t>(call);
  }
  // Rebuild the ranges from the launcher column; a stable sort by call keeps each call's
  // targets in their former order, the relinked ones after.
  std::vector<std::pair<Row, Row>> pairs;  // (call, target)
  pairs.reserve(targets_.size() + relinks.size());
  for (const Range& range : ranges_)
    for (std::uint32_t i = range.first; i < range.first + range.count; ++i)
      if (launcher_[targets_[i]] == static_cast<std::int32_t>(range.runtime))
        pairs.emplace_back(range.runtime, targets_[i]);
  for (const auto& [gpu, call] : relinks) pairs.emplace_back(call, gpu);
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  ranges_.clear();
  targets_.clear();
  for (const auto& [call, target] : pairs) {
    if (ranges_.empty() || ranges_.back().runtime != call)
      ranges_.push_back({call, static_cast<std::uint32_t>(targets_.size()), 0});
    targets_.push_back(target);
    ++ranges_.back().count;
  }
  index_ranges();
}

void LaunchLinks::index_ranges() {
  range_buckets_.build(ranges_.size(), [&](std::size_t i) { return ranges_[i].runtime; });
}

}  // namespace traceprism::model
