#pragma once

#include <cstdint>
#include <string_view>

namespace traceprism::index {

// What an event is, derived once from its (normalized) category and phase.
enum class EventKind : std::uint8_t {
  kCpuOp,              // cat cpu_op: ATen / dispatcher ops, carry shapes
  kPythonFunction,     // cat python_function: Python frames and nn.Module spans
  kUserAnnotation,     // cat user_annotation: ProfilerStep#N, record_function ranges
  kGpuUserAnnotation,  // cat gpu_user_annotation: GPU-side spans of annotations
  kCudaRuntime,        // cat cuda_runtime: CUDA and HIP runtime API calls
  kCudaDriver,         // cat cuda_driver: cuLaunchKernel and friends
  kKernel,             // cat kernel
  kGpuMemcpy,          // cat gpu_memcpy
  kGpuMemset,          // cat gpu_memset
  kCudaSync,           // cat cuda_sync: synchronization spans recorded by newer Kineto
  kFlowStart,          // ph s (ac2g launch flows, fwdbwd flows, ...)
  kFlowEnd,            // ph f
  kInstant,            // ph i / I
  kCounter,            // ph C
  kMetadata,           // ph M
  kEnd,                // ph E: closes a B event; the pair becomes one complete event on the B row
  kOther,              // any other complete event (Trace spans, vendor categories, ...)
  kCount
};

inline constexpr int kEventKindCount = static_cast<int>(EventKind::kCount);

std::string_view event_kind_name(EventKind kind);

inline bool is_gpu_kind(EventKind k) {
  return k == EventKind::kKernel || k == EventKind::kGpuMemcpy || k == EventKind::kGpuMemset;
}
inline bool is_runtime_kind(EventKind k) {
  return k == EventKind::kCudaRuntime || k == EventKind::kCudaDriver;
}

}  // namespace traceprism::index
