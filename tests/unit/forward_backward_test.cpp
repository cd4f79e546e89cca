#include "model/forward_backward.hpp"

#include <gtest/gtest.h>

#include "ingest/trace_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

using traceprism::model::ForwardBackwardLinks;

TEST(ForwardBackward, LatestForwardOpOnAnotherThreadTiesKeepTheFirst) {
  traceprism::testing::TraceText t;
  auto op = [&](const char* name, const char* ts, const char* tid, int seq) {
    t.x("cpu_op", name, ts, "5", "{\"Sequence number\": " + std::to_string(seq) + "}", "1", tid);
  };
  op("aten::linear", "10", "1", 7);  // 0
  op("aten::addmm", "12", "1", 7);   // 1: latest forward, first of the tie
  op("aten::t", "12", "1", 7);       // 2: same ts, later in file
  op("autograd::engine::evaluate_function: AddmmBackward0", "50", "2", 7);  // 3: backward node
  op("AddmmBackward0", "51", "2", 7);  // 4: same thread as backward
  op("aten::relu", "20", "1", 8);      // 5: group without backward
  traceprism::testing::TempDir dir;
  auto file = traceprism::ingest::read_trace(dir.write("t.json", t.str()));
  auto links = ForwardBackwardLinks::build(file.index);
  ASSERT_EQ(links.pairs().size(), 1u);
  EXPECT_EQ(links.forward_of(3), 1);
  EXPECT_EQ(links.forward_of(4), -1);
  EXPECT_TRUE(links.backward_of(5).empty());
}
