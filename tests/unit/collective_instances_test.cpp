// Collective instances of one rank (multi-rank.md §5.1) on small hand-written traces: grouping
// by the owning record_param_comms, metadata precedence, legacy sizes, steps, exposure and the
// split of the time before an instance. The kind and dtype tables of §5.1.
#include <gtest/gtest.h>

#include <string>

#include "ingest/trace_reader.hpp"
#include "model/collective_instances.hpp"
#include "model/launch_links.hpp"
#include "support/trace_builder.hpp"

namespace model = traceprism::model;
using model::CollectiveDtype;
using model::CollectiveKind;
using traceprism::testing::TraceText;

namespace {

model::RankCollectives instances_of(const std::string& json) {
  const auto trace = traceprism::ingest::read_trace_bytes(json, "rank.json");
  return model::collective_instances(trace.index, model::LaunchLinks::build(trace.index));
}

// A launch call with correlation `id` at host time `ts` and its kernel on stream `stream`.
void launch(TraceText& t, int id, double ts, const std::string& kernel, double k_ts, double k_dur,
            int stream, const std::string& kernel_args = "") {
  const std::string corr = std::to_string(id);
  t.x("cuda_runtime", "cudaLaunchKernel", std::to_string(ts), "1",
      "{\"correlation\":" + corr + "}");
  t.x("kernel", kernel, std::to_string(k_ts), std::to_string(k_dur),
      "{\"correlation\":" + corr + ",\"stream\":" + std::to_string(stream) + ",\"device\":0" +
          kernel_args + "}",
      "0", std::to_string(stream));
  t.flow(id, std::to_string(ts), std::to_string(k_ts), stream);
}

const char* kAllReduceKernel = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage)";

TEST(CollectiveKinds, NormalisedNamesOfOpsAnnotationsAndArgs) {
  EXPECT_EQ(model::kind_from_name("allreduce"), CollectiveKind::kAllReduce);
  EXPECT_EQ(model::kind_from_name("c10d::allreduce_"), CollectiveKind::kAllReduce);
  EXPECT_EQ(model::kind_from_name("nccl:all_reduce"), CollectiveKind::kAllReduce);
  EXPECT_EQ(model::kind_from_name("barrier"), CollectiveKind::kAllReduce);
  EXPECT_EQ(model::kind_from_name("c10d::_allgather_base_"), CollectiveKind::kAllGather);
  EXPECT_EQ(model::kind_from_name("nccl:_all_gather_base"), CollectiveKind::kAllGather);
  EXPECT_EQ(model::kind_from_name("all_gather_into_tensor_coalesced"), CollectiveKind::kAllGather);
  EXPECT_EQ(model::kind_from_name("_reduce_scatter_base"), CollectiveKind::kReduceScatter);
  EXPECT_EQ(model::kind_from_name("reduce_scatter_tensor"), CollectiveKind::kReduceScatter);
  EXPECT_EQ(model::kind_from_name("c10d::alltoall_base_"), CollectiveKind::kAllToAll);
  EXPECT_EQ(model::kind_from_name("all_to_allv"), CollectiveKind::kAllToAllV);
  EXPECT_EQ(model::kind_from_name("Broadcast"), CollectiveKind::kBroadcast);
  EXPECT_EQ(model::kind_from_name("send"), CollectiveKind::kSend);
  EXPECT_EQ(model::kind_from_name("recv"), CollectiveKind::kRecv);
  EXPECT_EQ(model::kind_from_name("coalesced"), CollectiveKind::kCoalesced);
  EXPECT_EQ(model::kind_from_name("wait"), CollectiveKind::kUnknown);
  EXPECT_EQ(model::kind_from_name("c10d::"), CollectiveKind::kUnknown);
  EXPECT_EQ(model::kind_from_name(""), CollectiveKind::kUnknown);
  EXPECT_STREQ(model::kind_name(CollectiveKind::kReduceScatter), "reducescatter");
  EXPECT_TRUE(model::is_symmetric(CollectiveKind::kAllToAll));
  EXPECT_FALSE(model::is_symmetric(CollectiveKind::kAllToAllV));
  EXPECT_TRUE(model::is_point_to_point(CollectiveKind::kRecv));
}

TEST(CollectiveDtypes, ProfilerNamesAndSizes) {
  EXPECT_EQ(model::dtype_bytes(model::dtype_from_name("Float")), 4);
  EXPECT_EQ(model::dtype_bytes(model::dtype_from_name("BFloat16")), 2);
  EXPECT_EQ(model::dtype_bytes(model::dtype_from_name("Long")), 8);
  EXPECT_EQ(model::dtype_bytes(model::dtype_from_name("Float8_e4m3fn")), 1);
  EXPECT_EQ(model::dtype_bytes(model::dtype_from_name("ComplexDouble")), 16);
  EXPECT_EQ(model::dtype_bytes(model::dtype_from_name("Float4_e2m1fn_x2")), 1);
  EXPECT_EQ(model::dtype_from_name("float"), CollectiveDtype::kUnknown);  // C++ spelling
  EXPECT_EQ(model::dtype_bytes(CollectiveDtype::kUnknown), 0);
  EXPECT_STREQ(model::dtype_name(CollectiveDtype::kHalf), "Half");
}

TEST(CollectiveKernelNames, NcclRcclAndCustomAllReduceOnly) {
  EXPECT_TRUE(model::is_collective_kernel_name(kAllReduceKernel));
  EXPECT_TRUE(model::is_collective_kernel_name("rcclGenericKernel<1, false>(ncclDevKernelArgs)"));
  EXPECT_TRUE(model::is_collective_kernel_name("void vllm::Cross_Device_Reduce_1stage<float>"));
  EXPECT_FALSE(model::is_collective_kernel_name("multimem_all_reduce_kernel"));
  EXPECT_FALSE(model::is_collective_kernel_name("ampere_sgemm_128x64_nn"));
}

// Two kernels under one record_param_comms are one instance spanning both; the kernel's args
// win over the op's, the op fills what the kernel lacks.
TEST(CollectiveInstances, KernelsOfOneRecordParamCommsFormOneInstance) {
  TraceText t;
  t.x("user_annotation", "ProfilerStep#7", "0", "1000");
  t.x("cpu_op", "c10d::allreduce_", "100", "50");
  t.x("cpu_op", "record_param_comms", "101", "40",
      "{\"Collective name\":\"allreduce\",\"dtype\":\"BFloat16\",\"In msg nelems\":1000,"
      "\"Out msg nelems\":1000,\"Group size\":4,\"Process Group Name\":\"3\","
      "\"Process Group Description\":\"tp\",\"Process Group Ranks\":\"[0, 1, 2, 3]\","
      "\"Seq\":17,\"Comms Id\":18446744073709551615,\"Rank\":2}");
  launch(t, 1, 105, kAllReduceKernel, 200, 10, 21, ",\"dtype\":\"Float\",\"Seq\":18");
  launch(t, 2, 110, kAllReduceKernel, 215, 5, 21);
  const model::RankCollectives r = instances_of(t.str());
  ASSERT_EQ(r.instances.size(), 1u);
  const model::CollectiveInstance& c = r.instances[0];
  EXPECT_EQ(c.kernels, 2);
  EXPECT_EQ(c.start_ns, 200000);
  EXPECT_EQ(c.duration_ns, 20000);  // 200 µs to 220 µs
  EXPECT_EQ(c.launch_ns, 105000);   // the first launch
  EXPECT_EQ(c.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(c.dtype, CollectiveDtype::kFloat);  // the kernel's args first
  EXPECT_EQ(c.seq, 18);
  EXPECT_EQ(c.order, 18u);
  EXPECT_EQ(c.metadata, model::MetadataSource::kKernel);
  EXPECT_EQ(c.in_nelems, 1000);  // from the op
  EXPECT_EQ(c.in_bytes, 4000);   // 1000 Float
  EXPECT_EQ(c.group_size, 4);
  EXPECT_EQ(c.group_rank, 2);
  EXPECT_EQ(c.comms_id, 18446744073709551615ull);  // unsigned 64-bit hash
  EXPECT_EQ(c.pg_name, "3");
  EXPECT_EQ(c.pg_description, "tp");
  EXPECT_EQ(c.pg_ranks, "[0, 1, 2, 3]");
  EXPECT_EQ(c.step, 7);
  EXPECT_EQ(c.stream, 21);
  EXPECT_EQ(r.without_owner, 0u);
}

// Without metadata (2023 traces): the kind from the enclosing c10d op, sizes from a *_base_
// op's (output, input) Input Dims and C++ type names; all-gather group size = out / in.
TEST(CollectiveInstances, LegacyKindAndSizesFromTheC10dBaseOp) {
  TraceText t;
  t.x("cpu_op", "c10d::_allgather_base_", "100", "50",
      "{\"Input Dims\":[[1024],[256],[]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\","
      "\"\"]}");
  t.x("user_annotation", "nccl:_all_gather_base", "102", "40");
  launch(t, 1, 105, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)", 200, 10, 84);
  t.x("cpu_op", "c10d::allreduce_", "300", "50",
      "{\"Input Dims\":[[],[]],\"Input type\":[\"TensorList\",\"Scalar\"]}");
  launch(t, 2, 305, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)", 400, 10, 84);
  const model::RankCollectives r = instances_of(t.str());
  ASSERT_EQ(r.instances.size(), 2u);
  const model::CollectiveInstance& gather = r.instances[0];
  EXPECT_EQ(gather.kind, CollectiveKind::kAllGather);
  EXPECT_EQ(gather.out_bytes, 2048);
  EXPECT_EQ(gather.in_bytes, 512);
  EXPECT_EQ(gather.group_size, 4);
  EXPECT_EQ(gather.metadata, model::MetadataSource::kNone);
  EXPECT_EQ(gather.step, -1);
  const model::CollectiveInstance& reduce = r.instances[1];
  EXPECT_EQ(reduce.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(reduce.in_bytes, -1);  // TensorList: no size
}

// A kernel that names its collective but has no launch and no op: one lone instance, kind from
// the kernel name; a generic kernel names none.
TEST(CollectiveInstances, LoneKernelsTakeTheKindOfTheirName) {
  TraceText t;
  t.x("kernel", "ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE(ncclDevKernelArgsStorage)", "100",
      "10", "{\"stream\":7,\"device\":0}", "0", "7");
  t.x("kernel", "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage)", "200", "10",
      "{\"stream\":9,\"device\":0}", "0", "9");
  const model::RankCollectives r = instances_of(t.str());
  ASSERT_EQ(r.instances.size(), 2u);
  EXPECT_EQ(r.instances[0].kind, CollectiveKind::kReduceScatter);
  EXPECT_EQ(r.instances[1].kind, CollectiveKind::kUnknown);
  EXPECT_EQ(r.without_owner, 2u);
  // Channels are the streams' first-use order.
  EXPECT_EQ(r.instances[0].channel, 0);
  EXPECT_EQ(r.instances[1].channel, 1);
}

// A kernel without a launch finds its record_param_comms by External id (PyTorch 2.x copies
// the op's id onto the kernel).
TEST(CollectiveInstances, KernelWithoutLaunchFindsItsOpByExternalId) {
  TraceText t;
  t.x("cpu_op", "record_param_comms", "100", "40",
      "{\"External id\":55,\"Collective name\":\"all_to_allv\",\"Process Group Name\":\"0\","
      "\"In split size\":\"[1, 2]\",\"Out split size\":\"[1, 2]\"}");
  t.x("kernel", kAllReduceKernel, "200", "10", "{\"stream\":7,\"device\":0,\"External id\":55}",
      "0", "7");
  const model::RankCollectives r = instances_of(t.str());
  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_EQ(r.instances[0].kind, CollectiveKind::kAllToAllV);
  EXPECT_EQ(r.instances[0].pg_name, "0");
  EXPECT_EQ(r.instances[0].launch_ns, -1);
  EXPECT_EQ(r.without_owner, 0u);
}

// Unequal split sizes make an all-to-all an all-to-allv; equal ones leave it.
TEST(CollectiveInstances, SplitSizesTellAllToAllVFromAllToAll) {
  auto kind_with_splits = [](const std::string& splits) {
    TraceText t;
    t.x("cpu_op", "record_param_comms", "100", "40",
        "{\"Collective name\":\"all_to_all\",\"In split size\":\"" + splits +
            "\",\"Out split size\":\"" + splits + "\"}");
    launch(t, 1, 105, kAllReduceKernel, 200, 10, 7);
    return instances_of(t.str()).instances.at(0).kind;
  };
  EXPECT_EQ(kind_with_splits("[]"), CollectiveKind::kAllToAll);
  EXPECT_EQ(kind_with_splits("[4, 4, 4]"), CollectiveKind::kAllToAll);
  EXPECT_EQ(kind_with_splits("[4, 5, 4]"), CollectiveKind::kAllToAllV);
}

// Exposure: the instance's time not under a computation kernel. Before it, from the step's CPU
// start (the anchor), the exclusive split into compute, exposed communication and idle.
TEST(CollectiveInstances, ExposureAndTheSplitOfTheTimeBeforeIt) {
  TraceText t;
  t.x("user_annotation", "ProfilerStep#3", "0", "2000");
  launch(t, 1, 10, "ampere_sgemm_128x64_nn", 100, 100, 7);             // compute 100-200
  launch(t, 2, 20, "ncclDevKernel_Broadcast_RING_LL(x)", 250, 50, 9);  // other comm 250-300
  launch(t, 3, 30, "ampere_sgemm_128x64_nn", 280, 40, 7);              // compute 280-320
  t.x("cpu_op", "record_param_comms", "35", "10", "{\"Collective name\":\"allreduce\"}");
  launch(t, 4, 40, kAllReduceKernel, 400, 100, 9);         // the instance 400-500
  launch(t, 5, 50, "ampere_sgemm_128x64_nn", 450, 20, 7);  // compute 450-470
  const model::RankCollectives r = instances_of(t.str());
  ASSERT_EQ(r.instances.size(), 2u);
  const model::CollectiveInstance& c = r.instances[1];
  ASSERT_EQ(c.start_ns, 400000);
  EXPECT_EQ(c.step, 3);
  EXPECT_EQ(c.exposed_ns, 80000);  // 100 µs minus the 20 µs kernel under it
  EXPECT_EQ(c.anchor_ns, 0);       // the step's CPU start
  // [0, 400]: compute 100-200 and 280-320 = 140 µs; the broadcast's 250-280 is exposed
  // communication (30 µs; 280-300 is under compute); idle the other 230 µs.
  EXPECT_EQ(c.pre_compute_ns, 140000);
  EXPECT_EQ(c.pre_comm_ns, 30000);
  EXPECT_EQ(c.pre_idle_ns, 230000);
}

// Outside any step the anchor is the end of the previous instance of the same group, and the
// step of a launch outside every CPU step span comes from the GPU step span.
TEST(CollectiveInstances, AnchorWithoutStepsAndTheGpuStepFallback) {
  TraceText t;
  t.x("gpu_user_annotation", "ProfilerStep#9", "150", "1000", "{}", "0", "9");
  t.x("cpu_op", "record_param_comms", "5", "10",
      "{\"Collective name\":\"allreduce\",\"Process Group Name\":\"1\"}");
  launch(t, 1, 10, kAllReduceKernel, 100, 50, 9);
  t.x("cpu_op", "record_param_comms", "25", "10",
      "{\"Collective name\":\"allreduce\",\"Process Group Name\":\"1\"}");
  launch(t, 2, 30, kAllReduceKernel, 300, 50, 9);
  const model::RankCollectives r = instances_of(t.str());
  ASSERT_EQ(r.instances.size(), 2u);
  EXPECT_EQ(r.instances[0].step, -1);  // starts at 100 µs, before the GPU step's span
  EXPECT_EQ(r.instances[0].anchor_ns, -1);
  EXPECT_EQ(r.instances[1].step, 9);
  EXPECT_EQ(r.instances[1].anchor_ns, 150000);  // the first instance's end
  EXPECT_EQ(r.instances[1].pre_idle_ns, 150000);
}

// baseTimeNanoseconds moves every time onto the absolute clock.
TEST(CollectiveInstances, TimesAreOnTheAbsoluteClock) {
  TraceText t;
  t.x("cpu_op", "record_param_comms", "5", "10", "{\"Collective name\":\"send\",\"Dst Rank\":3}");
  launch(t, 1, 10, kAllReduceKernel, 100, 50, 9);
  const model::RankCollectives r =
      instances_of(t.str("\"baseTimeNanoseconds\":1700000000000000000"));
  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_EQ(r.time_base_ns, 1700000000000000000);
  EXPECT_EQ(r.instances[0].start_ns, 1700000000000100000);
  EXPECT_EQ(r.instances[0].launch_ns, 1700000000000010000);
  EXPECT_TRUE(r.instances[0].p2p);
  EXPECT_EQ(r.instances[0].peer_rank, 3);
}

}  // namespace
