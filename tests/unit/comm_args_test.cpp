// Collective message args (diagnosis.md §4): the reader keeps "In msg nelems", "Out msg
// nelems", "Group size", "dtype" and "Collective name" of any event that has them (PyTorch's
// record_param_comms ops, NCCL kernels from PyTorch 2.x) in a side table, and the host API
// (ABI 1.7 comm_args) gives them to plugins; events without them answer ABSENT.
#include <gtest/gtest.h>

#include <string>

#include <traceprism/sdk.hpp>

#include "ingest/trace_reader.hpp"
#include "plugins/host_api.hpp"
#include "support/analyzer_run.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace traceprism {
namespace {

// Row 0: record_param_comms with the args as PyTorch 2.1 writes them; row 1: a kernel with
// another message; row 2: an op without them.
std::string trace_text() {
  testing::TraceText t;
  t.x("cpu_op", "record_param_comms", "0", "10",
      R"({"Collective name": "allreduce", "dtype": "Float", "In msg nelems": 2049000,)"
      R"( "Out msg nelems": 2049000, "Group size": 2, "Process Group Ranks": "[0, 1]"})");
  t.x("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(x)", "20", "5",
      R"({"device": 0, "stream": 40, "In msg nelems": 6637568, "Out msg nelems": 6637568,)"
      R"( "dtype": "BFloat16", "Group size": 8})",
      "0", "40");
  t.x("cpu_op", "aten::mm", "30", "10", R"({"dtype": "Float"})");
  return t.str();
}

TEST(CommArgs, TheIndexKeepsTheMessageOfEveryEventThatHasOne) {
  testing::TempDir dir;
  const ingest::TraceFile file = ingest::read_trace(dir.write("t.json", trace_text()));
  const index::EventIndex& index = file.index;
  ASSERT_EQ(index.size(), 3U);
  const std::optional<index::CommArgs> op = index.comm_args(0);
  ASSERT_TRUE(op);
  EXPECT_EQ(op->in_nelems, 2049000);
  EXPECT_EQ(op->out_nelems, 2049000);
  EXPECT_EQ(op->group_size, 2);
  EXPECT_EQ(index.strings().view(op->dtype), "Float");
  EXPECT_EQ(index.strings().view(op->collective), "allreduce");
  const std::optional<index::CommArgs> kernel = index.comm_args(1);
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->in_nelems, 6637568);
  EXPECT_EQ(kernel->group_size, 8);
  EXPECT_EQ(index.strings().view(kernel->dtype), "BFloat16");
  EXPECT_EQ(kernel->collective, index::kNoString);
  EXPECT_FALSE(index.comm_args(2)) << "a dtype alone is no message";
}

TEST(CommArgs, TheHostApiGivesThemToPlugins) {
  testing::TempDir dir;
  traceprism_analyzer_v1 analyzer{
      sizeof(traceprism_analyzer_v1), 1, "test-analyzer", "", nullptr, nullptr, nullptr, nullptr};
  testing::AnalyzerRun run(dir.write("t.json", trace_text()), analyzer, "test");
  const traceprism_host_api_v1* api = plugins::host_api();
  traceprism_comm_args_v1 out{};
  out.struct_size = sizeof out;
  ASSERT_EQ(api->comm_args(run.ctx(), 1, &out), TRACEPRISM_OK);
  EXPECT_EQ(out.in_nelems, 6637568);
  EXPECT_EQ(out.group_size, 8);
  EXPECT_EQ(std::string(out.dtype.data, out.dtype.size), "BFloat16");
  EXPECT_EQ(out.collective.data, nullptr);
  EXPECT_EQ(api->comm_args(run.ctx(), 2, &out), TRACEPRISM_ABSENT);
  EXPECT_EQ(api->comm_args(run.ctx(), 99, &out), TRACEPRISM_ABSENT);
  traceprism_comm_args_v1 small{};
  small.struct_size = 8;  // older than the struct: refused, not overrun
  EXPECT_EQ(api->comm_args(run.ctx(), 0, &small), TRACEPRISM_ABSENT);
  // The SDK's element sizes: 6637568 BFloat16 elements are 13.3 MB.
  const CommArgs sdk{out.in_nelems, out.out_nelems, out.group_size, "BFloat16", ""};
  EXPECT_DOUBLE_EQ(sdk.message_bytes(), 6637568.0 * 2);
  EXPECT_DOUBLE_EQ((CommArgs{10, 40, 2, "Float", "allgather"}).message_bytes(), 160.0);
  EXPECT_DOUBLE_EQ((CommArgs{10, 10, 2, "Quaternion", ""}).message_bytes(), 0.0);
}

}  // namespace
}  // namespace traceprism
