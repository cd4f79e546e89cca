#include "index/string_pool.hpp"

#include <gtest/gtest.h>

#include <string>

using traceprism::index::kNoString;
using traceprism::index::StringPool;

TEST(StringPool, InternsEachDistinctStringOnce) {
  StringPool pool;
  auto a = pool.intern("aten::mm");
  auto b = pool.intern("aten::add");
  EXPECT_NE(a, kNoString);
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.intern(std::string("aten::mm")), a);
  EXPECT_EQ(pool.view(a), "aten::mm");
  EXPECT_EQ(pool.find("aten::add"), b);
  EXPECT_EQ(pool.find("missing"), kNoString);
  EXPECT_EQ(pool.view(pool.intern("")), "");
}

TEST(StringPool, ViewsStayValidAcrossManyBlocks) {
  StringPool pool;
  std::string big(300000, 'k');  // larger than a quarter block: stored on its own
  auto first = pool.intern("first");
  auto huge = pool.intern(big);
  std::vector<traceprism::index::StringId> ids;
  for (int i = 0; i < 100000; ++i) ids.push_back(pool.intern("kernel_" + std::to_string(i)));
  EXPECT_EQ(pool.view(first), "first");
  EXPECT_EQ(pool.view(huge), big);
  for (int i = 0; i < 100000; i += 997) EXPECT_EQ(pool.view(ids[i]), "kernel_" + std::to_string(i));
}

TEST(StringPool, KeepsEveryIdWhileItsTableGrows) {
  StringPool pool;
  std::vector<traceprism::index::StringId> ids;
  for (int i = 0; i < 50000; ++i) ids.push_back(pool.intern(std::to_string(i)));
  EXPECT_EQ(pool.size(), 50001u);  // the reserved id 0 and each distinct string once
  for (int i = 0; i < 50000; ++i) {
    ASSERT_EQ(ids[i], static_cast<traceprism::index::StringId>(i + 1));  // in insertion order
    ASSERT_EQ(pool.find(std::to_string(i)), ids[i]);
    ASSERT_EQ(pool.intern(std::to_string(i)), ids[i]);
  }
  EXPECT_EQ(pool.find("50000"), kNoString);
}

TEST(StringPool, InvalidUtf8IsFoundAsReadAndShownRepaired) {
  StringPool pool;
  const auto id = pool.intern("gemm_\xFF_kernel");
  EXPECT_EQ(pool.view(id), "gemm_\xEF\xBF\xBD_kernel");  // U+FFFD
  EXPECT_EQ(pool.find("gemm_\xFF_kernel"), id);
  EXPECT_EQ(pool.intern("gemm_\xFF_kernel"), id);
}
