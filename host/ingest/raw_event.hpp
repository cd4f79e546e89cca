#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "index/id_value.hpp"
#include "index/op_args.hpp"
#include "index/string_pool.hpp"

namespace traceprism::ingest {

// A numeric field as found in the event: absent, a number (converted), or something else.
struct TimeField {
  enum class State : std::uint8_t { kAbsent, kValue, kRounded, kWrongType, kOutOfRange };
  State state = State::kAbsent;
  std::int64_t ns = 0;
  double us = 0;                // the text as a correctly rounded double, kept when kRounded
  std::string_view wrong_type;  // "a string", "a boolean", ... when kWrongType
};

struct IdField {
  enum class State : std::uint8_t { kAbsent, kNumber, kString, kBad };
  State state = State::kAbsent;
  std::int64_t number = 0;
  index::StringId text = index::kNoString;
};

// Scratch for the event being parsed. The handler fills it field by field and hands it to the
// IndexBuilder at the closing brace; it is reused for every event (no per-event allocation).
struct RawEvent {
  std::uint64_t event_index = 0;  // position in traceEvents (= UID)
  std::uint64_t byte_offset = 0;  // approximate position of the event in the JSON text

  char phase = 0;  // 0 = absent, '?' = not a one-character string
  index::StringId name = index::kNoString;
  index::StringId category = index::kNoString;
  IdField pid, tid;
  TimeField ts, dur;
  bool has_flow_id = false;
  std::int64_t flow_id = 0;
  bool binding_enclosing = false;  // "bp": "e"

  // args
  std::int64_t correlation = index::kNoId;
  std::int64_t external_id = index::kNoId;
  bool legacy_external_id = false;  // spelled "external id"
  std::int64_t device = index::kNoId;
  std::int64_t stream = index::kNoId;
  std::int64_t registers_per_thread = index::kNoId;
  std::int64_t shared_memory = index::kNoId;
  std::int64_t bytes = index::kNoId;
  std::int64_t sequence_number = index::kNoId;
  std::int64_t fwd_thread_id = index::kNoId;
  std::int64_t sort_index = index::kNoId;
  std::int32_t grid[3] = {0, 0, 0};
  std::int32_t block[3] = {0, 0, 0};
  std::string input_dims, input_types, input_strides,
      concrete_inputs;                 // canonical JSON, "" = absent
  std::string meta_name, meta_labels;  // args.name / args.labels of M events
  std::string copy_kind;               // args.kind of ROCm copies ("HtoD")
  // Collective message args (index::CommArgs); kNoId / "" when absent.
  std::int64_t in_msg_nelems = index::kNoId, out_msg_nelems = index::kNoId,
               group_size = index::kNoId;
  std::string comm_dtype, collective_name;
  std::string pg_name, pg_description, pg_ranks, in_split_sizes, out_split_sizes;
  std::int64_t seq = index::kNoId, group_rank = index::kNoId, src_rank = index::kNoId,
               dst_rank = index::kNoId, global_rank_start = index::kNoId,
               global_rank_stride = index::kNoId;
  std::uint64_t comms_id = 0;
  std::int8_t async_op = -1;
  std::string launch_kernel;  // args.kernel: the kernel a ROCm launch call launches
  bool has_meta_name = false, has_meta_labels = false;

  void reset(std::uint64_t index, std::uint64_t offset) {
    event_index = index;
    byte_offset = offset;
    phase = 0;
    name = category = index::kNoString;
    // One assignment each: `a = b = T{}` stores b and reads it back, a store-forwarding stall
    // on every event.
    pid = IdField{};
    tid = IdField{};
    ts = TimeField{};
    dur = TimeField{};
    has_flow_id = binding_enclosing = false;
    flow_id = 0;
    correlation = external_id = device = stream = registers_per_thread = shared_memory = bytes =
        sequence_number = fwd_thread_id = sort_index = in_msg_nelems = out_msg_nelems = group_size =
            index::kNoId;
    legacy_external_id = false;
    for (int i = 0; i < 3; ++i) grid[i] = block[i] = 0;
    input_dims.clear();
    input_types.clear();
    input_strides.clear();
    concrete_inputs.clear();
    meta_name.clear();
    meta_labels.clear();
    copy_kind.clear();
    comm_dtype.clear();
    collective_name.clear();
    pg_name.clear();
    pg_description.clear();
    pg_ranks.clear();
    in_split_sizes.clear();
    out_split_sizes.clear();
    seq = group_rank = src_rank = dst_rank = global_rank_start = global_rank_stride = index::kNoId;
    comms_id = 0;
    async_op = -1;
    launch_kernel.clear();
    has_meta_name = has_meta_labels = false;
  }
};

}  // namespace traceprism::ingest
