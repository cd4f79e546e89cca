#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace traceprism::model {

// The collective kinds of multi-rank matching (multi-rank.md §5.1). Finer than the SDK's
// collective::Type (which names kernels): all-to-all with unequal splits is kAllToAllV, and
// send, recv, gather, scatter and coalesced groups are told apart because matching pairs them
// differently. Values are stored in rank summaries (COLL row `kind`): append only.
enum class CollectiveKind : std::uint8_t {
  kUnknown = 0,
  kAllReduce = 1,
  kAllGather = 2,
  kReduceScatter = 3,
  kAllToAll = 4,
  kAllToAllV = 5,
  kBroadcast = 6,
  kReduce = 7,
  kGather = 8,
  kScatter = 9,
  kSend = 10,
  kRecv = 11,
  kCoalesced = 12,
};

// "allreduce", "allgather", ... (the spec's normalised names); "unknown" for kUnknown.
const char* kind_name(CollectiveKind kind);

// The kind a normalised collective name gives ("allreduce", "_allgather_base",
// "all_gather_into_tensor_coalesced", "barrier", ...); kUnknown for names the table lacks.
// Case-insensitive; a leading "c10d::", "nccl:" and a trailing "_" are stripped first, so op and
// annotation names (c10d::allreduce_, nccl:all_reduce) read the same way.
CollectiveKind kind_from_name(std::string_view name);

// Rendezvous kinds whose members must agree on dtype and element count (§5.2 validation).
bool is_symmetric(CollectiveKind kind);
bool is_point_to_point(CollectiveKind kind);

// Element types of collective messages (§5.1 "dtype bytes"), by the profiler's `dtype` text.
// Values are stored in rank summaries (COLL row `dtype`): append only.
enum class CollectiveDtype : std::uint8_t {
  kUnknown = 0,
  kFloat,
  kInt,
  kLong,
  kBFloat16,
  kBool,
  kByte,
  kDouble,
  kHalf,
  kShort,
  kChar,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat8E4m3fn,
  kFloat8E5m2,
  kFloat8E4m3fnuz,
  kFloat8E5m2fnuz,
  kFloat8E8m0fnu,
  kComplexHalf,
  kComplexFloat,
  kComplexDouble,
  kFloat4E2m1fnX2,
};

CollectiveDtype dtype_from_name(std::string_view profiler_name);  // "Float", "BFloat16", ...
const char* dtype_name(CollectiveDtype dtype);                    // the profiler's spelling
int dtype_bytes(CollectiveDtype dtype);                           // 0 for kUnknown

// Which of §5.2's identities matched this instance across ranks.
enum class MatchTier : std::uint8_t { kSeq = 0, kOrdinal = 1, kTimeline = 2 };

// Where an instance's metadata came from (COLL row flags).
enum class MetadataSource : std::uint8_t { kNone = 0, kKernel = 1, kOp = 2 };

// One collective instance on one rank (multi-rank.md §5.1): the kernels launched under one
// record_param_comms, start = first kernel start, end = last kernel end. Times are int64 ns on
// the rank's absolute clock (baseTimeNanoseconds + ts, or epoch ts). Unknown numbers are -1,
// unknown text empty. This is the in-memory form of the rank summary's COLL row v1.
struct CollectiveInstance {
  CollectiveKind kind = CollectiveKind::kUnknown;
  CollectiveDtype dtype = CollectiveDtype::kUnknown;
  MetadataSource metadata = MetadataSource::kNone;
  bool p2p = false;
  bool async = false;
  bool nvls = false;  // in-network reduction (NVLS / COLLNET kernels, §8)

  std::string pg_name;         // "Process Group Name"; empty without metadata
  std::string pg_description;  // "Process Group Description"
  std::string pg_ranks;        // "Process Group Ranks" as written ("[0, 1]", may be truncated)
  std::int64_t global_rank_start = -1;
  std::int64_t global_rank_stride = -1;
  std::int64_t group_size = -1;
  std::int32_t group_rank = -1;  // "Rank": this rank's position in the group
  std::int32_t peer_rank = -1;   // "Dst Rank" of a send, "Src Rank" of a recv (global)

  std::int64_t seq = -1;       // "Seq"
  std::uint64_t comms_id = 0;  // "Comms Id"; 0 = absent
  std::int32_t step = -1;      // ProfilerStep#N holding the launch (else the start); -1 none
  std::uint16_t channel = 0;   // comm stream id, or its first-use index (§5.1)
  std::int64_t stream = -1;    // the kernels' stream as written
  std::uint16_t kernels = 0;   // kernels in the instance
  std::uint32_t order = 0;     // Seq, or ordinal within (pg, step) once assigned

  std::int64_t in_nelems = -1;
  std::int64_t out_nelems = -1;
  std::int64_t in_bytes = -1;  // from split sizes or legacy Input Dims × type size
  std::int64_t out_bytes = -1;

  std::int64_t launch_ns = -1;  // the launching runtime call's start
  std::int64_t start_ns = 0;
  std::int64_t duration_ns = 0;
  std::int64_t exposed_ns = 0;  // part of [start, end] with no computation kernel running
  std::int64_t anchor_ns = -1;  // the rank's CPU start of the step (§7.3)
  std::int64_t pre_compute_ns = 0;
  std::int64_t pre_comm_ns = 0;
  std::int64_t pre_idle_ns = 0;

  std::int64_t end_ns() const { return start_ns + duration_ns; }
};

}  // namespace traceprism::model
