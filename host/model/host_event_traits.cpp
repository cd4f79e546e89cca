#include "model/host_event_traits.hpp"

#include <algorithm>
#include <string_view>

namespace traceprism::model {

namespace {

bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

bool is_synchronous_copy_call(std::string_view name) {
  for (std::string_view n :
       {"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyPeer", "hipMemcpy", "hipMemcpy2D",
        "hipMemcpyWithStream", "hipMemcpyDtoH", "hipMemcpyHtoD", "hipMemcpyDtoD", "cuMemcpy",
        "cuMemcpyDtoH_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH", "cuMemcpyHtoD"})
    if (name == n) return true;
  return false;
}

bool is_async_copy_call(std::string_view name) {
  return (name.starts_with("cudaMemcpy") || name.starts_with("hipMemcpy") ||
          name.starts_with("cuMemcpy")) &&
         contains(name, "Async");
}

bool is_copy_op(std::string_view name) {
  return name == "aten::item" || name == "aten::_local_scalar_dense" || name == "aten::to" ||
         name == "aten::copy_" || name == "aten::_to_copy";
}

bool is_scalar_read_op(std::string_view name) {
  return name == "aten::item" || name == "aten::_local_scalar_dense";
}

bool is_sync_call(std::string_view name) {
  for (std::string_view n :
       {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaStreamQuery",
        "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize", "hipStreamQuery",
        "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"})
    if (name == n) return true;
  return false;
}

bool is_allocator_call(std::string_view name) {
  for (std::string_view p :
       {"cudaMalloc", "cudaFree", "hipMalloc", "hipFree", "cudaHostAlloc", "hipHostMalloc",
        "hipHostFree", "cudaMallocHost", "cudaFreeHost", "cuMemAlloc", "cuMemFree"})
    if (name.starts_with(p)) return true;
  return false;
}

std::uint16_t traits_of_name(std::string_view name) {
  const std::pair<HostTrait, bool> answers[] = {
      {HostTrait::kProfilerStep, name.starts_with("ProfilerStep#")},
      {HostTrait::kDataloaderAnnotation, name.starts_with("enumerate(DataLoader)#")},
      {HostTrait::kDataloaderPath, contains(name, "torch/utils/data/")},
      {HostTrait::kSyncCall, is_sync_call(name)},
      {HostTrait::kNamesSynchronize, contains(name, "synchronize")},
      {HostTrait::kAllocatorCall, is_allocator_call(name)},
      {HostTrait::kSynchronousCopyCall, is_synchronous_copy_call(name)},
      {HostTrait::kAsyncCopyCall, is_async_copy_call(name)},
      {HostTrait::kCopyOp, is_copy_op(name)},
      {HostTrait::kScalarReadOp, is_scalar_read_op(name)},
      {HostTrait::kStreamWait, contains(name, "StreamWaitEvent")},
  };
  std::uint16_t traits = 0;
  for (const auto& [trait, yes] : answers)
    if (yes) traits |= static_cast<std::uint16_t>(trait);
  return traits;
}

}  // namespace

std::uint16_t HostEventTraits::read(index::StringId name) {
  if (name >= traits_.size())
    traits_.resize(std::max<std::size_t>(name + 1, index_.strings().size()));
  return traits_[name] = kRead | traits_of_name(index_.strings().view(name));
}

}  // namespace traceprism::model
