#include "findings/top_category.hpp"

#include <gtest/gtest.h>

using traceprism::findings::top_category;

TEST(TopCategory, TheCategoryWithTheMostKernelTimeAsAShareOfComputation) {
  const auto top = top_category({{"GEMM", 600}, {"elementwise", 150}, {"other", 50}}, 1000);
  EXPECT_EQ(top.name, "GEMM");
  EXPECT_DOUBLE_EQ(top.percent, 60);
}

TEST(TopCategory, OpTimeAboveComputationTimeKeepsTheShareAtMostAHundred) {
  // Copies and overlapping kernels can make op time exceed the computation union.
  const auto top = top_category({{"GEMM", 900}, {"other", 300}}, 1000);
  EXPECT_EQ(top.name, "GEMM");
  EXPECT_DOUBLE_EQ(top.percent, 75);
}

TEST(TopCategory, NoKernelTimeGivesNoCategory) {
  EXPECT_EQ(top_category({}, 0).name, "");
  EXPECT_EQ(top_category({{"GEMM", 0}}, 0).percent, 0);
}
