#include "index/event_kind.hpp"

namespace traceprism::index {

std::string_view event_kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::kCpuOp:
      return "cpu_op";
    case EventKind::kPythonFunction:
      return "python_function";
    case EventKind::kUserAnnotation:
      return "user_annotation";
    case EventKind::kGpuUserAnnotation:
      return "gpu_user_annotation";
    case EventKind::kCudaRuntime:
      return "cuda_runtime";
    case EventKind::kCudaDriver:
      return "cuda_driver";
    case EventKind::kKernel:
      return "kernel";
    case EventKind::kGpuMemcpy:
      return "gpu_memcpy";
    case EventKind::kGpuMemset:
      return "gpu_memset";
    case EventKind::kCudaSync:
      return "cuda_sync";
    case EventKind::kFlowStart:
      return "flow_start";
    case EventKind::kFlowEnd:
      return "flow_end";
    case EventKind::kInstant:
      return "instant";
    case EventKind::kCounter:
      return "counter";
    case EventKind::kMetadata:
      return "metadata";
    case EventKind::kEnd:
      return "end";
    case EventKind::kOther:
      return "other";
    case EventKind::kCount:
      break;
  }
  return "?";
}

}  // namespace traceprism::index
