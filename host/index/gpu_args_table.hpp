#pragma once

#include <cstdint>
#include <vector>

#include "index/distinct_values.hpp"
#include "index/op_args.hpp"

namespace traceprism::index {

// The GPU side table (device, stream, launch geometry, copy details) of every GPU event, stored
// compactly: a trace's kernels repeat a few hundred distinct launch geometries (grid, block,
// registers, shared memory), so an entry keeps a reference to its geometry (24 bytes instead
// of 56).
class GpuArgsTable {
 public:
  // Appends `args` and returns its entry number.
  std::uint32_t add(const GpuArgs& args);
  GpuArgs get(std::uint32_t entry) const;
  GpuStream stream_of(std::uint32_t entry) const {
    const Entry& e = entries_[entry];
    return {e.device, e.stream, e.stream_in_args};
  }
  std::size_t size() const { return entries_.size(); }
  // Drops the look-ups used while adding; the table is read-only afterwards.
  void seal();

 private:
  struct Geometry {
    std::int32_t grid[3];
    std::int32_t block[3];
    std::int32_t registers_per_thread;
    std::int32_t shared_memory;
    bool operator==(const Geometry&) const = default;
  };
  struct GeometryHash {
    std::size_t operator()(const Geometry& g) const;
  };
  struct Entry {
    std::int32_t device;
    std::int32_t stream;
    std::uint32_t geometry;
    CopyKind copy;
    bool stream_in_args;  // in CopyKind's padding
    std::int64_t bytes;
  };

  std::vector<Entry> entries_;
  DistinctValues<Geometry, GeometryHash> geometries_;
};

}  // namespace traceprism::index
