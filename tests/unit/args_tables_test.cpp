// The index's compact side tables give back exactly what was added, sharing repeated values.
#include <gtest/gtest.h>

#include "index/distinct_values.hpp"
#include "index/gpu_args_table.hpp"
#include "index/op_args_table.hpp"

namespace traceprism::index {
namespace {

OpArgs op_args(StringId dims, StringId types, std::int64_t sequence, std::int64_t fwd_thread) {
  OpArgs a;
  a.input_dims = dims;
  a.input_types = types;
  a.input_strides = kNoString;
  a.concrete_inputs = dims + 100;
  a.sequence_number = sequence;
  a.fwd_thread_id = fwd_thread;
  return a;
}

void expect_same(const OpArgs& got, const OpArgs& want) {
  EXPECT_EQ(got.input_dims, want.input_dims);
  EXPECT_EQ(got.input_types, want.input_types);
  EXPECT_EQ(got.input_strides, want.input_strides);
  EXPECT_EQ(got.concrete_inputs, want.concrete_inputs);
  EXPECT_EQ(got.sequence_number, want.sequence_number);
  EXPECT_EQ(got.fwd_thread_id, want.fwd_thread_id);
}

TEST(DistinctValues, NumbersValuesInFirstAppearanceAndKeepsThemAfterSealing) {
  DistinctValues<std::int64_t> values;
  EXPECT_EQ(values.intern(19392), 0u);
  EXPECT_EQ(values.intern(-7), 1u);
  EXPECT_EQ(values.intern(19392), 0u);
  values.seal();
  EXPECT_EQ(values.values(), (std::vector<std::int64_t>{19392, -7}));
  EXPECT_EQ(values[1], -7);
}

TEST(OpArgsTable, GivesBackEachEntryAndKeepsDistinctTextsOnce) {
  const std::vector<OpArgs> added = {op_args(1, 2, 10, kNoId), op_args(3, 2, 11, 19392),
                                     op_args(1, 2, 12, kNoId), op_args(1, 2, kNoId, 19460),
                                     op_args(kNoString, kNoString, 13, 19392)};
  OpArgsTable table;
  for (std::size_t i = 0; i < added.size(); ++i) EXPECT_EQ(table.add(added[i]), i);
  table.seal();
  ASSERT_EQ(table.size(), added.size());
  for (std::size_t i = 0; i < added.size(); ++i)
    expect_same(table.get(static_cast<std::uint32_t>(i)), added[i]);
  // (1, 2, -, 101) repeats: three distinct text tuples, in first appearance.
  EXPECT_EQ(table.distinct_input_dims(), (std::vector<StringId>{1, 3, kNoString}));
}

TEST(GpuArgsTable, GivesBackEachEntryWithItsGeometryAndCopyDetails) {
  GpuArgs kernel;
  kernel.device = 0, kernel.stream = 7;
  kernel.grid[0] = 132, kernel.block[0] = 256, kernel.registers_per_thread = 168;
  kernel.shared_memory = 49152;
  GpuArgs same_geometry = kernel;
  same_geometry.stream = 9;
  GpuArgs copy;
  copy.device = 1, copy.stream = 3, copy.bytes = 1 << 20;
  copy.copy = {CopyDirection::kDeviceToHost, MemoryKind::kDevice, MemoryKind::kPinned};
  GpuArgsTable table;
  EXPECT_EQ(table.add(kernel), 0u);
  EXPECT_EQ(table.add(copy), 1u);
  EXPECT_EQ(table.add(same_geometry), 2u);
  table.seal();
  const GpuArgs k = table.get(2);
  EXPECT_EQ(k.device, 0);
  EXPECT_EQ(k.stream, 9);
  EXPECT_EQ(k.grid[0], 132);
  EXPECT_EQ(k.grid[1], 0);
  EXPECT_EQ(k.block[0], 256);
  EXPECT_EQ(k.registers_per_thread, 168);
  EXPECT_EQ(k.shared_memory, 49152);
  EXPECT_EQ(k.bytes, -1);
  const GpuArgs c = table.get(1);
  EXPECT_EQ(c.device, 1);
  EXPECT_EQ(c.bytes, 1 << 20);
  EXPECT_EQ(c.registers_per_thread, -1);
  EXPECT_EQ(c.copy.direction, CopyDirection::kDeviceToHost);
  EXPECT_EQ(c.copy.source, MemoryKind::kDevice);
  EXPECT_EQ(c.copy.destination, MemoryKind::kPinned);
}

}  // namespace
}  // namespace traceprism::index
