#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "index/event_kind.hpp"
#include "index/gpu_args_table.hpp"
#include "index/id_value.hpp"
#include "index/import_stats.hpp"
#include "index/op_args.hpp"
#include "index/op_args_table.hpp"
#include "index/string_pool.hpp"
#include "index/trace_metadata.hpp"

namespace traceprism::ingest {
class IndexBuilder;
}

namespace traceprism::index {

class RowCopier;

using Row = std::uint32_t;  // row == UID == index of the event in traceEvents
inline constexpr std::int32_t kNoDetail = -1;
inline constexpr std::uint32_t kNoThread = 0xFFFFFFFFu;

// Rows grouped by a key, stored as one flat array plus offsets (compressed sparse rows).
struct RowGroups {
  std::vector<std::uint32_t> offsets;  // size = groups + 1
  std::vector<Row> rows;
  std::size_t group_count() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  std::span<const Row> group(std::size_t g) const {
    return {rows.data() + offsets[g], offsets[g + 1] - offsets[g]};
  }
};

// Rows sorted by (key, row), for id -> rows look-ups; keys and rows in two arrays (12 bytes an
// entry instead of a padded 16-byte pair).
struct KeyedRows {
  std::vector<std::int64_t> keys;
  std::vector<Row> rows;
  // Rows with this key, in file order.
  std::span<const Row> find(std::int64_t key) const;
  void build(std::vector<std::pair<std::int64_t, Row>> pairs);
};

class EventIndex;

// Id -> rows look-ups, built on demand rather than kept by the index: only the launch links
// read them, and on a 1 GB trace they hold ~40 MB that the rest of the run has no use for.
// Runtime/driver launches and GPU events by correlation id (flow events excluded).
KeyedRows rows_by_correlation(const EventIndex& index);
// Every valid row with an External id.
KeyedRows rows_by_external_id(const EventIndex& index);

// The frozen, columnar event store. Every entry of traceEvents has a row (also the ones that
// were counted as malformed, with kind kOther and no times), so row numbers are the
// reference's UIDs. Times are integer nanoseconds exactly as written in the trace.
class EventIndex {
 public:
  std::size_t size() const { return ts_ns_.size(); }

  // --- columns -----------------------------------------------------------------------------
  std::int64_t ts_ns(Row r) const { return ts_ns_[r]; }
  std::int64_t dur_ns(Row r) const { return dur_ns_[r]; }
  std::int64_t end_ns(Row r) const { return ts_ns_[r] + dur_ns_[r]; }
  // Start and end in the reference's double microseconds (see traceprism/reference_time.hpp).
  double ts_us(Row r) const;
  double end_us(Row r) const;
  EventKind kind(Row r) const { return kind_[r]; }
  char phase(Row r) const { return phase_[r]; }
  StringId name_id(Row r) const { return name_[r]; }
  StringId category_id(Row r) const { return category_[r]; }
  std::string_view name(Row r) const { return strings_.view(name_[r]); }
  std::string_view category(Row r) const { return strings_.view(category_[r]); }
  IdRef pid(Row r) const { return tracks_[track_[r]].pid; }
  IdRef tid(Row r) const { return tracks_[track_[r]].tid; }
  std::int64_t correlation(Row r) const { return correlation_[r]; }
  std::int64_t external_id(Row r) const { return external_id_[r]; }
  // For flow events (s/f): the flow id.
  std::int64_t flow_id(Row r) const { return correlation_[r]; }
  bool valid(Row r) const { return !malformed_[r]; }

  // Side tables: `op_args` for cpu_ops that carry shape args, `gpu_args` for GPU events.
  std::optional<OpArgs> op_args(Row r) const;
  std::optional<GpuArgs> gpu_args(Row r) const;
  std::optional<GpuStream> gpu_stream(Row r) const;  // gpu_args' device and stream only
  // The collective message args of an event (any kind), nullopt when it has none.
  std::optional<CommArgs> comm_args(Row r) const;
  // args.kernel of a runtime launch call (ROCm writes the kernel's name there; CUDA does not);
  // nullopt when it has none.
  std::optional<std::string_view> launch_kernel(Row r) const;
  // Parsed Input Dims of a cpu_op (nullptr when absent or unparsable).
  const InputShapes* input_shapes(Row r) const;
  // The own args (compact JSON) of a pseudo op the host inserted (append_pseudo_ops in
  // row_copies.hpp); nullopt for every event of the trace.
  std::optional<std::string_view> pseudo_op_args(Row r) const;
  // False for a pseudo op: it has no time of its own (its ts is its parent's, its dur 0).
  bool has_time(Row r) const { return !pseudo_op_args(r); }

  // Whole columns, for the plugin ABI's zero-copy views (abi.h traceprism_event_columns_v1).
  const std::vector<std::int64_t>& ts_column() const { return ts_ns_; }
  const std::vector<std::int64_t>& dur_column() const { return dur_ns_; }
  const std::vector<EventKind>& kind_column() const { return kind_; }
  const std::vector<StringId>& name_column() const { return name_; }
  const std::vector<StringId>& category_column() const { return category_; }
  const std::vector<std::int64_t>& correlation_column() const { return correlation_; }
  const std::vector<std::int64_t>& external_id_column() const { return external_id_; }

  // --- tables ------------------------------------------------------------------------------
  const StringPool& strings() const { return strings_; }
  const IdTable& ids() const { return ids_; }
  std::string id_string(IdRef ref) const { return ids_.to_string(ref, strings_); }
  const TraceMetadata& metadata() const { return metadata_; }
  const ImportStats& stats() const { return stats_; }

  // --- secondary indices (built by freeze) -------------------------------------------------
  std::span<const Row> rows_of_kind(EventKind k) const {
    return by_kind_.group(static_cast<int>(k));
  }
  // (pid, tid) rows of the timeline, ordered by first appearance of the pid, then of the tid;
  // each group's rows are in file order.
  struct Thread {
    IdRef pid;
    IdRef tid;
    bool operator==(const Thread&) const = default;
  };
  const std::vector<Thread>& threads() const { return threads_; }
  // The row's index in threads(), or kNoThread (malformed, metadata and E rows).
  std::uint32_t thread(Row r) const;
  struct Stream {
    std::int32_t device;
    std::int32_t stream;
  };
  // GPU events per (device, stream), each group sorted by start time then row.
  const std::vector<Stream>& streams() const { return streams_; }
  std::span<const Row> stream_rows(std::size_t stream) const { return by_stream_.group(stream); }

  // Time span of all valid timed events.
  std::int64_t first_ts_ns() const { return first_ts_ns_; }
  std::int64_t last_end_ns() const { return last_end_ns_; }

 private:
  friend class ingest::IndexBuilder;  // fills the columns while parsing
  friend class RowCopier;             // appends copies of another index's rows (row_copies.hpp)
  void build_secondary_indices();
  void group_gpu_rows_by_stream();  // streams_ and by_stream_
  std::vector<std::uint32_t> number_streams(const std::vector<Row>& gpu_rows);
  // Parses each distinct Input Dims text once (input_shapes()).
  void parse_input_shapes();
  // One row's values in every per-row column; the writers (IndexBuilder, RowCopier) append rows
  // only through push_row, so a new column is added in one place.
  struct RowValues {
    std::int64_t ts_ns = 0, dur_ns = 0;
    EventKind kind = EventKind::kOther;
    char phase = 0;
    bool malformed = false;
    StringId name = kNoString, category = kNoString;
    std::uint32_t track = 0;
    std::int64_t correlation = kNoId, external_id = kNoId;
    std::int32_t detail = kNoDetail;
  };
  // Inline: the reader calls it once per event.
  Row push_row(const RowValues& v) {
    const auto row = static_cast<Row>(ts_ns_.size());
    ts_ns_.push_back(v.ts_ns);
    dur_ns_.push_back(v.dur_ns);
    kind_.push_back(v.kind);
    phase_.push_back(v.phase);
    malformed_.push_back(v.malformed);
    name_.push_back(v.name);
    category_.push_back(v.category);
    track_.push_back(v.track);
    correlation_.push_back(v.correlation);
    external_id_.push_back(v.external_id);
    detail_.push_back(v.detail);
    return row;
  }
  // Room for `rows` rows in every per-row column, so that appending does not regrow them.
  void reserve_rows(std::size_t rows) {
    ts_ns_.reserve(rows);
    dur_ns_.reserve(rows);
    kind_.reserve(rows);
    phase_.reserve(rows);
    malformed_.reserve(rows);
    name_.reserve(rows);
    category_.reserve(rows);
    track_.reserve(rows);
    correlation_.reserve(rows);
    external_id_.reserve(rows);
    detail_.reserve(rows);
  }
  bool is_thread_row(Row r) const;

  std::vector<std::int64_t> ts_ns_;
  std::vector<std::int64_t> dur_ns_;
  std::vector<EventKind> kind_;
  std::vector<char> phase_;
  std::vector<bool> malformed_;
  std::vector<StringId> name_;
  std::vector<StringId> category_;
  // (pid, tid) of each row as one 4-byte reference into tracks_: a trace has a handful of
  // distinct pairs, and two id columns would cost 4 more bytes a row (16 MB on a 1 GB trace).
  std::vector<std::uint32_t> track_;
  std::vector<Thread> tracks_;  // distinct (pid, tid) pairs, in first appearance
  std::vector<std::int64_t> correlation_;
  std::vector<std::int64_t> external_id_;
  std::vector<std::int32_t> detail_;  // index into op_args_ or gpu_args_ depending on kind

  // Rows whose ts or dur had digits below 1 ns, with the doubles the reference would use.
  struct PreciseTime {
    Row row;
    double ts_us;
    double dur_us;
  };
  std::vector<PreciseTime> precise_times_;  // sorted by row
  const PreciseTime* precise_time(Row r) const;
  PreciseTime* find_precise_time(Row r) { return const_cast<PreciseTime*>(precise_time(r)); }

  OpArgsTable op_args_;
  GpuArgsTable gpu_args_;
  struct RowCommArgs {
    Row row;
    CommArgs args;
  };
  std::vector<RowCommArgs> comm_args_;  // sorted by row; the few events that carry them
  std::vector<std::pair<Row, StringId>> launch_kernels_;  // sorted by row: runtime args.kernel
  std::vector<std::pair<Row, StringId>> pseudo_op_args_;  // sorted by row
  std::vector<InputShapes> shapes_;                       // parsed distinct Input Dims texts
  std::vector<std::int32_t> shapes_of_string_;            // StringId -> index in shapes_, -1 none

  StringPool strings_;
  IdTable ids_;
  TraceMetadata metadata_;
  ImportStats stats_;

  RowGroups by_kind_;
  std::vector<Thread> threads_;
  std::vector<std::uint32_t> thread_of_track_;  // track -> index in threads_, or kNoThread
  std::vector<Stream> streams_;
  RowGroups by_stream_;
  std::int64_t first_ts_ns_ = 0;
  std::int64_t last_end_ns_ = 0;
};

}  // namespace traceprism::index
