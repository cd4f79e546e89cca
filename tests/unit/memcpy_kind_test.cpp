#include "index/memcpy_kind.hpp"

#include <gtest/gtest.h>

using namespace traceprism::index;

TEST(CopyKind, CudaNames) {
  auto k = parse_copy_kind("Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(k.direction, CopyDirection::kHostToDevice);
  EXPECT_EQ(k.source, MemoryKind::kPageable);
  EXPECT_EQ(k.destination, MemoryKind::kDevice);
  k = parse_copy_kind("Memcpy DtoH (Device -> Pinned)");
  EXPECT_EQ(k.direction, CopyDirection::kDeviceToHost);
  EXPECT_EQ(k.destination, MemoryKind::kPinned);
  EXPECT_EQ(parse_copy_kind("Memcpy PtoP (Device -> Device)").direction,
            CopyDirection::kPeerToPeer);
}

TEST(CopyKind, RocmNamesAndKindArgument) {
  auto k = parse_copy_kind("Memcpy DtoH (Device -> Host)", "DtoH");
  EXPECT_EQ(k.direction, CopyDirection::kDeviceToHost);
  EXPECT_EQ(k.destination, MemoryKind::kHost);
  EXPECT_EQ(parse_copy_kind("hipMemcpy something", "DtoD").direction,
            CopyDirection::kDeviceToDevice);
  auto unknown = parse_copy_kind("copy", "");
  EXPECT_EQ(unknown.direction, CopyDirection::kUnknown);
  EXPECT_EQ(copy_direction_name(unknown.direction), "unknown");
  EXPECT_EQ(memory_kind_name(MemoryKind::kPageable), "pageable");
}
