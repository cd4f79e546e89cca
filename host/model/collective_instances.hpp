#pragma once

#include <cstdint>
#include <vector>

#include "index/event_index.hpp"
#include "model/collective_instance.hpp"
#include "model/launch_links.hpp"

namespace traceprism::model {

// The collective instances of one rank's trace (multi-rank.md §5.1), in order of GPU start
// (ties: the owning op's row).
//
// A collective kernel is a kernel whose name contains nccl, rccl or cross_device_reduce (any
// case). Kernels launched under one record_param_comms form one instance: the op that encloses
// the launching call on its thread, or, for a kernel without a launch, the record_param_comms
// with the kernel's External id. Each field takes the first source that has it: the kernel's
// args, the record_param_comms args, the enclosing c10d::<name>_ op or nccl:<name> annotation
// (kind only, and legacy sizes from a *_base_ op's Input Dims), the kernel name (kind only).
//
// Times are on the rank's absolute clock: baseTimeNanoseconds + ts when the trace has a base,
// else ts as written (epoch µs traces). `channel` is the stream's first-use index among this
// rank's collective streams; matching replaces it by the stream id when every rank uses the
// same set. `order` is Seq where the trace has it, else 0 (matching assigns ordinals).
struct RankCollectives {
  std::vector<CollectiveInstance> instances;
  std::int64_t time_base_ns = 0;    // added to every written ts
  std::uint64_t kernels = 0;        // collective kernels seen
  std::uint64_t without_owner = 0;  // instances of a lone kernel (no op found)
};

RankCollectives collective_instances(const index::EventIndex& index, const LaunchLinks& links);

// True for kernel names multi-rank analysis counts as collectives (nccl, rccl,
// cross_device_reduce, any case).
bool is_collective_kernel_name(std::string_view name);

}  // namespace traceprism::model
