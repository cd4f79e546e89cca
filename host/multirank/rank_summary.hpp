// The rank summary (multi-rank.md §4): everything one rank's analysis hands to the cross-rank
// stages. Only summaries cross thread, file or process boundaries, so whatever the merge needs
// from a rank must be here; multirank/rank_summary_file.hpp stores it as a `.tpsum` file.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/collective_instance.hpp"

namespace traceprism::multirank {

// Caps of the summary's fixed part (§4). Builders put the entries that matter most first; the
// writer keeps at most this many.
inline constexpr std::size_t kMaxSummarySteps = 10000;
inline constexpr std::size_t kMaxBinnedSteps = 64;
inline constexpr std::size_t kBinsPerStep = 20;
inline constexpr std::size_t kMaxSummaryKernels = 64;
inline constexpr std::size_t kMaxEvidenceNameBytes = 64;

enum class RankStatus : std::uint8_t { kOk = 0, kFailed = 1 };

// META: what the rank's trace is and how its import went. Unknown numbers are -1.
struct SummaryMeta {
  std::string tool_version;
  std::string file_path;
  std::uint64_t file_size = 0;
  std::int64_t trace_rank = -1;  // distributedInfo.rank
  std::int64_t world_size = -1;  // distributedInfo.world_size
  std::string backend;
  std::string nccl_version;
  std::string pg_config_json;  // distributedInfo.pg_config as JSON text; empty when absent
  std::string device_name;     // deviceProperties[0].name
  std::int64_t device_count = 0;
  std::string platform;
  std::string host_name;  // from the file name (§7.6)
  std::vector<std::int64_t> gpu_pids;
  std::uint64_t events_read = 0;
  std::uint64_t malformed_skipped = 0;
  // The partition count the COLL rows were hashed with (§5.2); summaries merge partition by
  // partition only when they agree on it. 0 = no collectives were partitioned.
  std::uint32_t collective_partitions = 0;
  RankStatus status = RankStatus::kOk;
  std::string status_sentence;  // why the rank failed; empty when ok

  bool operator==(const SummaryMeta&) const = default;
};

// Where one span's time went (a profiler step, or the whole trace). Times are int64 ns on the
// rank's absolute clock; spans are -1 when unknown.
struct ActivityTotals {
  std::int64_t cpu_start_ns = -1;
  std::int64_t cpu_end_ns = -1;
  std::int64_t gpu_start_ns = -1;  // gpu_user_annotation, else the span of its kernels
  std::int64_t gpu_end_ns = -1;
  std::int64_t gpu_busy_ns = 0;
  std::int64_t compute_ns = 0;  // union of computation-class kernels (gpu_timeline classes)
  std::int64_t comm_ns = 0;     // union of communication kernels
  std::int64_t exposed_comm_ns = 0;
  std::int64_t memcpy_ns = 0;
  std::int64_t idle_ns = 0;
  std::int64_t host_wait_idle_ns = 0;  // HTA's host_wait rule
  std::uint64_t kernel_count = 0;

  bool operator==(const ActivityTotals&) const = default;
};

// STEP: one ProfilerStep#N.
struct StepSummary {
  std::int64_t step = -1;  // N
  ActivityTotals totals;

  bool operator==(const StepSummary&) const = default;
};

// The single-rank report's gpu_utilization object (analysis-rules.md §3.2), kept bit for bit so
// a merged report quotes the same numbers as the rank's own report.
struct GpuUtilization {
  double total_time_ms = 0;
  double computation_time_percent = 0;
  double exposed_comm_time_percent = 0;
  double exposed_memcpy_time_percent = 0;
  double idle_time_percent = 0;
  std::uint64_t gpu_events = 0;

  bool operator==(const GpuUtilization&) const = default;
};

// PROF: the step totals over the whole trace.
struct TraceProfile {
  ActivityTotals totals;
  GpuUtilization utilization;

  bool operator==(const TraceProfile&) const = default;
};

// BINS: one step's GPU span cut into kBinsPerStep equal bins (heat-map input).
struct StepBins {
  std::int64_t step = -1;
  std::array<std::uint32_t, kBinsPerStep> compute_us{};
  std::array<std::uint32_t, kBinsPerStep> comm_us{};

  bool operator==(const StepBins&) const = default;
};

// KERN: one of the rank's top kernels by total time (lateness hints compare these, §7.3).
struct KernelTotal {
  std::string name;
  std::uint64_t count = 0;
  std::int64_t total_ns = 0;

  bool operator==(const KernelTotal&) const = default;
};

// FIND: one of the rank's findings, compact.
struct FindingDigest {
  std::string analyzer;
  std::string key;
  std::string tier;
  std::string category;
  std::string title;
  double impact_low = 0;
  double impact_mid = 0;
  double impact_high = 0;
  std::string bound_type;
  std::string library;
  // At most kMaxEvidenceNameBytes in a file: the writer cuts longer names at a UTF-8 character
  // boundary.
  std::string first_evidence;

  bool operator==(const FindingDigest&) const = default;
};

// PGRP: one process group as this rank saw it. Its first six fields are the group's identity,
// the fields a collective instance carries (see is_process_group_of); COLL rows refer to groups
// by their index here.
struct ProcessGroup {
  std::string name;                   // "Process Group Name"
  std::string description;            // "Process Group Description"
  std::string ranks_text;             // "Process Group Ranks" as written (may be truncated)
  std::int64_t size = -1;             // "Group size"
  std::int64_t rank_start = -1;       // "Global rank start"
  std::int64_t rank_stride = -1;      // "Global rank stride"
  std::vector<std::int32_t> members;  // the exact member list, when the text gave it whole
  bool members_truncated = false;     // the ranks text was cut ("..."), so `members` is empty
  model::MatchTier tier = model::MatchTier::kTimeline;  // best tier this rank's instances allow

  bool operator==(const ProcessGroup&) const = default;
};

// COLL: a collective instance and where cross-rank matching looks for it.
struct CollectiveRow {
  std::uint32_t partition = 0;  // FNV-1a-64 of the partition key mod the partition count
  model::MatchTier tier = model::MatchTier::kTimeline;
  model::CollectiveInstance instance;
};

// CIDX: the rows of one partition, a contiguous run of the sorted COLL rows.
struct PartitionExtent {
  std::uint32_t partition = 0;
  std::uint32_t first_row = 0;
  std::uint32_t row_count = 0;

  bool operator==(const PartitionExtent&) const = default;
};

struct RankSummary {
  SummaryMeta meta;
  std::vector<StepSummary> steps;
  TraceProfile profile;
  std::vector<StepBins> step_bins;  // the first kMaxBinnedSteps steps
  std::vector<KernelTotal> kernels;
  std::vector<FindingDigest> findings;
  std::vector<ProcessGroup> process_groups;
  std::vector<CollectiveRow> collectives;  // a read summary's are in collective_row_less order
};

// The COLL order: partition, then the partition key of §5.2 (point-to-point rows: pg name,
// peer, step; `seq`: pg name, Seq div 1024; `ordinal`: pg name, step; `timeline`: channel,
// step), then order, then start time. Rows of one partition key are therefore contiguous and in
// instance-key order, which is how the merge walks them.
bool collective_row_less(const CollectiveRow& a, const CollectiveRow& b);
void sort_collective_rows(std::vector<CollectiveRow>& rows);  // stable

// The CIDX of rows already in collective_row_less order, by increasing partition.
std::vector<PartitionExtent> partition_extents(const std::vector<CollectiveRow>& sorted_rows);

// Whether `instance` names any process group at all (without metadata it names none).
bool has_process_group(const model::CollectiveInstance& instance);
// Whether `group` is the group `instance` names: the same name, description, ranks text, size,
// rank start and stride.
bool is_process_group_of(const ProcessGroup& group, const model::CollectiveInstance& instance);
// A group as `instance` names it, members unknown; `tier` is the instance's row tier.
ProcessGroup process_group_from(const model::CollectiveInstance& instance, model::MatchTier tier);

// The longest prefix of `text` of at most `max_bytes` bytes that does not end inside a UTF-8
// sequence.
std::string truncate_utf8(std::string_view text, std::size_t max_bytes);

const char* tier_name(model::MatchTier tier);  // "seq", "ordinal", "timeline"

// GPU idle over the rank's profiler steps' GPU spans (the whole trace's without steps), in %.
double gpu_idle_percent(const RankSummary& summary);
// Mean computation time per profiler step (the whole trace's without steps), in ns.
std::int64_t mean_step_compute_ns(const RankSummary& summary);

}  // namespace traceprism::multirank
