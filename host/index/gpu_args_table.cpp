#include "index/gpu_args_table.hpp"

#include <algorithm>

namespace traceprism::index {

static_assert(sizeof(CopyKind) <= 3, "an entry of GpuArgsTable is meant to stay at 24 bytes");

std::size_t GpuArgsTable::GeometryHash::operator()(const Geometry& g) const {
  std::uint64_t h = 0;
  for (std::int32_t v : {g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2],
                         g.registers_per_thread, g.shared_memory})
    h = h * 0x9E3779B97F4A7C15ull + static_cast<std::uint32_t>(v);
  return static_cast<std::size_t>(h ^ (h >> 29));
}

std::uint32_t GpuArgsTable::add(const GpuArgs& args) {
  Geometry g{};
  std::copy(args.grid, args.grid + 3, g.grid);
  std::copy(args.block, args.block + 3, g.block);
  g.registers_per_thread = args.registers_per_thread;
  g.shared_memory = args.shared_memory;
  entries_.push_back({args.device, args.stream, geometries_.intern(g), args.copy,
                      args.stream_in_args, args.bytes});
  return static_cast<std::uint32_t>(entries_.size() - 1);
}

GpuArgs GpuArgsTable::get(std::uint32_t entry) const {
  const Entry& e = entries_[entry];
  const Geometry& g = geometries_[e.geometry];
  GpuArgs out;
  out.device = e.device;
  out.stream = e.stream;
  out.stream_in_args = e.stream_in_args;
  std::copy(g.grid, g.grid + 3, out.grid);
  std::copy(g.block, g.block + 3, out.block);
  out.registers_per_thread = g.registers_per_thread;
  out.shared_memory = g.shared_memory;
  out.bytes = e.bytes;
  out.copy = e.copy;
  return out;
}

void GpuArgsTable::seal() {
  geometries_.seal();
  entries_.shrink_to_fit();
}

}  // namespace traceprism::index
