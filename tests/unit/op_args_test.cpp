#include "index/op_args.hpp"

#include <gtest/gtest.h>

using traceprism::index::InputShapes;
using traceprism::index::parse_string_list;

TEST(InputShapes, TensorsScalarsAndTensorLists) {
  InputShapes s;
  ASSERT_TRUE(s.parse("[[8,512,1024],[],[[3],[4,5]],[7]]"));
  ASSERT_EQ(s.arg_count(), 4u);
  ASSERT_EQ(s.arg_dims(0).size(), 3u);
  EXPECT_EQ(s.arg_dims(0)[2], 1024);
  EXPECT_EQ(s.arg(1).tensor_count, 0u);  // scalar / None
  EXPECT_TRUE(s.arg(2).is_list);
  ASSERT_EQ(s.arg(2).tensor_count, 2u);
  EXPECT_EQ(s.dims(s.arg(2).first_tensor + 1).size(), 2u);
  EXPECT_EQ(s.dims(s.arg(2).first_tensor + 1)[1], 5);
  EXPECT_EQ(s.arg_dims(3)[0], 7);
}

TEST(InputShapes, EmptyAndMalformed) {
  InputShapes s;
  EXPECT_TRUE(s.parse("[]"));
  EXPECT_EQ(s.arg_count(), 0u);
  EXPECT_FALSE(s.parse("[[1,2]"));
  EXPECT_EQ(s.arg_count(), 0u);  // left empty after a failure
  EXPECT_FALSE(s.parse("[[\"a\"]]"));
  EXPECT_FALSE(s.parse("[[1]] trailing"));
}

TEST(StringList, UnescapesStringsAndKeepsOtherElements) {
  auto v = parse_string_list(R"(["","1","say \"hi\"","a\\b",2,null,[1,2]])");
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0], "");
  EXPECT_EQ(v[1], "1");
  EXPECT_EQ(v[2], "say \"hi\"");
  EXPECT_EQ(v[3], "a\\b");
  EXPECT_EQ(v[4], "2");
  EXPECT_EQ(v[5], "null");
  EXPECT_EQ(v[6], "[1,2]");
  EXPECT_TRUE(parse_string_list("[]").empty());
}
