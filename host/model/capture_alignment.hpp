// The 1:1 alignment of a capture trace's launch calls with the kernels a graph replay ran
// (inference-mode spec §3.7): the step of the capture merge that tells which captured op each
// replayed kernel belongs to. Pure: lists in, index pairs out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace traceprism::model {

// A launch call of the capture list (cuda_runtime / cuda_driver, "launch", "memcpy" or
// "memset" in its name).
struct CapturedCall {
  std::string name;                   // "hipLaunchKernel", "hipMemcpyAsync", ...
  std::optional<std::string> kernel;  // args.kernel (ROCm); CUDA launch calls carry none
};

// A GPU event of the graph list (kernel, gpu_memcpy, gpu_memset).
struct ReplayedEvent {
  std::string name;
  std::optional<std::int64_t> stream;  // args.stream
};

enum class AlignmentCode : std::uint8_t {
  kFailed = 0,     // the pair is skipped
  kExact = 1,      // same length, every named call matches its kernel in order
  kGreedy = 2,     // different lengths: each kernel took the next matching call
  kRegrouped = 3,  // same names per kernel, different order: kernels taken in the calls' order
  kPerStream = 4,  // several streams: every event paired through its stream's queue
};

struct Alignment {
  AlignmentCode code = AlignmentCode::kFailed;
  // A multi-stream graph whose capture has a kernel launch without a kernel name: the
  // reference discards the whole merge (spec §3.10).
  bool merge_failed = false;
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (replayed event, captured call)
};

// The name match m(c, g) of spec §3.7: copies with copies, memsets with memsets or fillBuffer,
// else the call's kernel name (its own name without one) equal to the event's.
bool call_matches(const CapturedCall& c, const ReplayedEvent& g);

// Spec §3.7: per-stream queues when the replay spans several streams, else the single-stream
// verification (exact, greedy or regrouped).
Alignment align_capture(const std::vector<CapturedCall>& calls,
                        const std::vector<ReplayedEvent>& replayed);

}  // namespace traceprism::model
