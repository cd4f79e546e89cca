#include "index/event_index.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include <traceprism/reference_time.hpp>

#include "index/sort_by_row.hpp"

namespace traceprism::index {

std::span<const Row> KeyedRows::find(std::int64_t key) const {
  auto [lo, hi] = std::equal_range(keys.begin(), keys.end(), key);
  return {rows.data() + (lo - keys.begin()), static_cast<std::size_t>(hi - lo)};
}

void KeyedRows::build(std::vector<std::pair<std::int64_t, Row>> pairs) {
  std::sort(pairs.begin(), pairs.end());
  keys.resize(pairs.size());
  rows.resize(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    keys[i] = pairs[i].first;
    rows[i] = pairs[i].second;
  }
}

KeyedRows rows_by_correlation(const EventIndex& index) {
  std::vector<std::pair<std::int64_t, Row>> pairs;
  for (Row r = 0; r < index.size(); ++r) {
    const EventKind k = index.kind(r);
    if (!index.valid(r) || k == EventKind::kFlowStart || k == EventKind::kFlowEnd) continue;
    if (const std::int64_t id = index.correlation(r); id != kNoId) pairs.emplace_back(id, r);
  }
  KeyedRows out;
  out.build(std::move(pairs));
  return out;
}

KeyedRows rows_by_external_id(const EventIndex& index) {
  std::vector<std::pair<std::int64_t, Row>> pairs;
  for (Row r = 0; r < index.size(); ++r)
    if (const std::int64_t id = index.external_id(r); index.valid(r) && id != kNoId)
      pairs.emplace_back(id, r);
  KeyedRows out;
  out.build(std::move(pairs));
  return out;
}

const EventIndex::PreciseTime* EventIndex::precise_time(Row r) const {
  if (precise_times_.empty()) return nullptr;
  auto it = std::lower_bound(precise_times_.begin(), precise_times_.end(), r,
                             [](const PreciseTime& p, Row row) { return p.row < row; });
  return it != precise_times_.end() && it->row == r ? &*it : nullptr;
}

std::optional<std::string_view> EventIndex::pseudo_op_args(Row r) const {
  if (pseudo_op_args_.empty() || r < pseudo_op_args_.front().first) return std::nullopt;
  auto it = std::lower_bound(pseudo_op_args_.begin(), pseudo_op_args_.end(), r,
                             [](const auto& entry, Row row) { return entry.first < row; });
  if (it == pseudo_op_args_.end() || it->first != r) return std::nullopt;
  return strings_.view(it->second);
}

std::optional<std::string_view> EventIndex::launch_kernel(Row r) const {
  auto it =
      std::lower_bound(launch_kernels_.begin(), launch_kernels_.end(), r,
                       [](const std::pair<Row, StringId>& k, Row row) { return k.first < row; });
  if (it == launch_kernels_.end() || it->first != r) return std::nullopt;
  return strings_.view(it->second);
}

std::optional<CommArgs> EventIndex::comm_args(Row r) const {
  auto it = std::lower_bound(comm_args_.begin(), comm_args_.end(), r,
                             [](const RowCommArgs& c, Row row) { return c.row < row; });
  if (it == comm_args_.end() || it->row != r) return std::nullopt;
  return it->args;
}

double EventIndex::ts_us(Row r) const {
  if (const PreciseTime* p = precise_time(r)) return p->ts_us;
  return reference_us(ts_ns_[r]);
}

double EventIndex::end_us(Row r) const {
  if (const PreciseTime* p = precise_time(r)) return p->ts_us + p->dur_us;
  return reference_us(ts_ns_[r]) + reference_us(dur_ns_[r]);
}

bool EventIndex::is_thread_row(Row r) const {
  return !malformed_[r] && kind_[r] != EventKind::kMetadata && kind_[r] != EventKind::kEnd;
}

std::uint32_t EventIndex::thread(Row r) const {
  return is_thread_row(r) ? thread_of_track_[track_[r]] : kNoThread;
}

std::optional<OpArgs> EventIndex::op_args(Row r) const {
  if (kind_[r] != EventKind::kCpuOp || detail_[r] == kNoDetail) return std::nullopt;
  return op_args_.get(static_cast<std::uint32_t>(detail_[r]));
}

std::optional<GpuArgs> EventIndex::gpu_args(Row r) const {
  if (!is_gpu_kind(kind_[r]) || detail_[r] == kNoDetail) return std::nullopt;
  return gpu_args_.get(static_cast<std::uint32_t>(detail_[r]));
}

std::optional<GpuStream> EventIndex::gpu_stream(Row r) const {
  if (!is_gpu_kind(kind_[r]) || detail_[r] == kNoDetail) return std::nullopt;
  return gpu_args_.stream_of(static_cast<std::uint32_t>(detail_[r]));
}

const InputShapes* EventIndex::input_shapes(Row r) const {
  const std::optional<OpArgs> args = op_args(r);
  if (!args || args->input_dims == kNoString) return nullptr;
  std::int32_t s = shapes_of_string_[args->input_dims];
  return s < 0 ? nullptr : &shapes_[static_cast<std::size_t>(s)];
}

namespace {

// Groups rows by a dense key in [0, groups) with a counting sort; rows stay in file order.
template <class KeyOf>
RowGroups group_rows(std::size_t rows, std::size_t groups, KeyOf key_of) {
  RowGroups out;
  out.offsets.assign(groups + 1, 0);
  for (Row r = 0; r < rows; ++r) {
    std::size_t k = key_of(r);
    if (k < groups) ++out.offsets[k + 1];
  }
  for (std::size_t g = 0; g < groups; ++g) out.offsets[g + 1] += out.offsets[g];
  out.rows.resize(out.offsets[groups]);
  std::vector<std::uint32_t> fill(out.offsets.begin(), out.offsets.end() - 1);
  for (Row r = 0; r < rows; ++r) {
    std::size_t k = key_of(r);
    if (k < groups) out.rows[fill[k]++] = r;
  }
  return out;
}

}  // namespace

// Numbers the streams of `gpu_rows` in (device, stream) order (streams_) and gives each row its
// stream's number. Every event's pair is looked up once, the map only where the pair changes: a
// stream's events come in long runs.
std::vector<std::uint32_t> EventIndex::number_streams(const std::vector<Row>& gpu_rows) {
  using Key = std::pair<std::int32_t, std::int32_t>;
  std::vector<Key> keys;
  keys.reserve(gpu_rows.size());
  std::map<Key, std::uint32_t> stream_ids;
  for (Row r : gpu_rows) {
    const std::optional<GpuStream> g = gpu_stream(r);
    keys.emplace_back(g ? g->device : -1, g ? g->stream : -1);
    if (keys.size() == 1 || keys.back() != keys[keys.size() - 2])
      stream_ids.try_emplace(keys.back(), 0);
  }
  streams_.clear();
  for (auto& [key, id] : stream_ids) {
    id = static_cast<std::uint32_t>(streams_.size());
    streams_.push_back({key.first, key.second});
  }
  std::vector<std::uint32_t> stream_of(gpu_rows.size());
  for (std::size_t i = 0; i < gpu_rows.size(); ++i)
    stream_of[i] = i > 0 && keys[i] == keys[i - 1] ? stream_of[i - 1] : stream_ids.at(keys[i]);
  return stream_of;
}

// Each stream's rows sorted by start, stably from file order (a stream already in order, the
// usual case, is left as it is).
void EventIndex::group_gpu_rows_by_stream() {
  // rows_of_kind answers already: build_secondary_indices groups by kind first.
  const std::vector<Row> gpu_rows = gpu_rows_in_file_order(*this);
  const std::vector<std::uint32_t> stream_of = number_streams(gpu_rows);
  by_stream_ = group_rows(gpu_rows.size(), streams_.size(), [&](Row i) { return stream_of[i]; });
  for (Row& i : by_stream_.rows) i = gpu_rows[i];  // positions in gpu_rows to rows
  const auto by_start = [&](Row a, Row b) { return ts_ns_[a] < ts_ns_[b]; };
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    auto begin = by_stream_.rows.begin() + by_stream_.offsets[s];
    auto end = by_stream_.rows.begin() + by_stream_.offsets[s + 1];
    if (!std::is_sorted(begin, end, by_start)) std::stable_sort(begin, end, by_start);
  }
}

void EventIndex::build_secondary_indices() {
  const std::size_t n = size();
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

  by_kind_ = group_rows(n, kEventKindCount, [&](Row r) {
    return malformed_[r] ? kNone : static_cast<std::size_t>(kind_[r]);
  });

  // Threads: the (pid, tid) tracks of the valid events that live on a row of the timeline,
  // ordered by (pid ref, tid ref), i.e. by first appearance. Tracks that name the same pair
  // (legacy traces' "77" and 77) are one thread.
  std::vector<bool> on_timeline(tracks_.size(), false);
  for (Row r = 0; r < n; ++r)
    if (is_thread_row(r)) on_timeline[track_[r]] = true;
  std::map<std::pair<IdRef, IdRef>, std::uint32_t> thread_ids;
  for (std::size_t t = 0; t < tracks_.size(); ++t)
    if (on_timeline[t]) thread_ids.try_emplace({tracks_[t].pid, tracks_[t].tid}, 0);
  threads_.clear();
  for (auto& [key, id] : thread_ids) {
    id = static_cast<std::uint32_t>(threads_.size());
    threads_.push_back({key.first, key.second});
  }
  thread_of_track_.assign(tracks_.size(), kNoThread);
  for (std::size_t t = 0; t < tracks_.size(); ++t)
    if (on_timeline[t]) thread_of_track_[t] = thread_ids.at({tracks_[t].pid, tracks_[t].tid});

  group_gpu_rows_by_stream();

  first_ts_ns_ = std::numeric_limits<std::int64_t>::max();
  last_end_ns_ = std::numeric_limits<std::int64_t>::min();
  for (Row r = 0; r < n; ++r) {
    if (malformed_[r] || kind_[r] == EventKind::kMetadata || kind_[r] == EventKind::kEnd) continue;
    first_ts_ns_ = std::min(first_ts_ns_, ts_ns_[r]);
    last_end_ns_ = std::max(last_end_ns_, ts_ns_[r] + std::max<std::int64_t>(dur_ns_[r], 0));
  }
  if (first_ts_ns_ > last_end_ns_) first_ts_ns_ = last_end_ns_ = 0;
}

}  // namespace traceprism::index

namespace traceprism::index {

void EventIndex::parse_input_shapes() {
  // Texts parsed before (rows appended by RowCopier come after a first call) stay parsed.
  shapes_of_string_.resize(strings_.size(), -1);
  std::vector<bool> tried(strings_.size(), false);
  for (const StringId dims : op_args_.distinct_input_dims()) {
    if (dims == kNoString || shapes_of_string_[dims] != -1 || tried[dims]) continue;
    tried[dims] = true;  // an unparsable text is tried once
    InputShapes shapes;
    if (!shapes.parse(strings_.view(dims))) continue;
    shapes_of_string_[dims] = static_cast<std::int32_t>(shapes_.size());
    shapes_.push_back(std::move(shapes));
  }
}

}  // namespace traceprism::index
