#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "index/event_index.hpp"
#include "index/row_buckets.hpp"

namespace traceprism::model {

using index::Row;

// Which runtime/driver call launched each GPU event (trace-format spec §3.4): through the ac2g
// flow pair of the call's linking id, or, for cudaGraphLaunch/hipGraphLaunch, every GPU event
// that carries the call's id. In a trace without any ac2g flow, by correlation id alone.
// GPU events with no launcher are "unlinked".
// cudaGraphLaunch / hipGraphLaunch: the calls whose GPU work is a replayed graph (linked to
// every GPU event of their id).
bool is_graph_launch(std::string_view runtime_call_name);

class LaunchLinks {
 public:
  enum class Key : std::uint8_t { kCorrelation, kExternalId };

  static LaunchLinks build(const index::EventIndex& index);
  // As build(), then each (GPU row, call row) of `relinks` is launched by that call instead:
  // the capture merge gives a replayed kernel the captured launch call it aligned with.
  static LaunchLinks build(const index::EventIndex& index,
                           std::span<const std::pair<Row, Row>> relinks);

  // Launching runtime row of a GPU event, or -1.
  std::int32_t launcher(Row gpu_row) const { return launcher_[gpu_row]; }
  bool linked(Row gpu_row) const { return launcher_[gpu_row] >= 0; }
  // launcher() of every row (-1 for rows that are not linked GPU events).
  const std::vector<std::int32_t>& launcher_column() const { return launcher_; }
  // GPU events launched by a runtime row (flow target, or a graph's events in file order).
  std::span<const Row> launched(Row runtime_row) const;
  Key key() const { return key_; }
  std::size_t linked_count() const { return linked_count_; }
  std::size_t unlinked_count() const { return unlinked_count_; }
  std::size_t graph_launches() const { return graph_launches_; }
  // The trace has no ac2g flows, so launches were linked by correlation id alone.
  bool flowless() const { return flowless_; }

 private:
  void apply_relinks(std::span<const std::pair<Row, Row>> relinks);
  void index_ranges();

  std::vector<std::int32_t> launcher_;
  // Per runtime row with targets: (runtime row, first, count) into targets_, sorted by row.
  struct Range {
    Row runtime;
    std::uint32_t first;
    std::uint32_t count;
  };
  std::vector<Range> ranges_;
  index::RowBuckets range_buckets_;  // where launched() searches ranges_
  std::vector<Row> targets_;
  Key key_ = Key::kCorrelation;
  std::size_t linked_count_ = 0;
  std::size_t unlinked_count_ = 0;
  std::size_t graph_launches_ = 0;
  bool flowless_ = false;
};

}  // namespace traceprism::model
