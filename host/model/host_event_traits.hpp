// What a host event's name says to idle attribution (diagnosis.md §2.2's table): a sync call, an
// allocator call, a copy op, a DataLoader frame, ... Judging the host stacks of a gap asks these
// questions of the same few thousand names millions of times on a trace with python stacks, so
// each distinct name is read once and its answers kept.
#pragma once

#include <cstdint>
#include <vector>

#include "index/event_index.hpp"

namespace traceprism::model {

using index::Row;

enum class HostTrait : std::uint16_t {
  kProfilerStep = 1 << 0,          // ProfilerStep#N
  kDataloaderAnnotation = 1 << 1,  // enumerate(DataLoader)#...
  kDataloaderPath = 1 << 2,        // torch/utils/data/ in the name (a python frame's file)
  kSyncCall = 1 << 3,              // cudaStreamSynchronize, hipDeviceSynchronize, ...
  kNamesSynchronize = 1 << 4,      // "synchronize" anywhere in the name
  kAllocatorCall = 1 << 5,         // cudaMalloc, hipFree, ...
  kSynchronousCopyCall = 1 << 6,   // copy APIs that return when the copy is done
  kAsyncCopyCall = 1 << 7,         // cudaMemcpyAsync, hipMemcpyDtoHAsync, ...
  kCopyOp = 1 << 8,                // aten::item, aten::to, aten::copy_, ...
  kScalarReadOp = 1 << 9,          // aten::item, aten::_local_scalar_dense
  kStreamWait = 1 << 10,           // StreamWaitEvent in the name
};

inline bool is(std::uint16_t traits, HostTrait trait) {
  return (traits & static_cast<std::uint16_t>(trait)) != 0;
}

class HostEventTraits {
 public:
  explicit HostEventTraits(const index::EventIndex& index) : index_(index) {}

  // The traits of the row's name, a mask of HostTrait bits (test them with is()).
  std::uint16_t of(Row row) {
    const index::StringId name = index_.name_id(row);
    const std::uint16_t traits = name < traits_.size() ? traits_[name] : 0;
    return traits != 0 ? traits : read(name);
  }

 private:
  static constexpr std::uint16_t kRead = 1 << 15;  // the name's traits are known

  std::uint16_t read(index::StringId name);

  const index::EventIndex& index_;
  std::vector<std::uint16_t> traits_;  // by name id: 0 until read, then kRead | the traits
};

}  // namespace traceprism::model
