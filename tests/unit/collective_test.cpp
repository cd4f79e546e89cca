// traceprism/collective.hpp: collective kernels by name (diagnosis.md §4). The names are those
// NCCL, RCCL, PyTorch symmetric memory, vLLM / SGLang / aiter and TensorRT-LLM / FlashInfer
// give their kernels (as Kineto writes them), and look-alikes that must stay computation.
#include <traceprism/collective.hpp>

#include <gtest/gtest.h>

#include <string>

namespace collective = traceprism::collective;
using collective::Protocol;
using collective::Type;

namespace {

struct Expected {
  const char* name;
  Type type;
  Protocol protocol;
  const char* algorithm;
};

void PrintTo(const Expected& e, std::ostream* os) {
  *os << e.name;
}

class KernelNames : public ::testing::TestWithParam<Expected> {};

TEST_P(KernelNames, TypeProtocolAndAlgorithm) {
  const Expected& e = GetParam();
  const collective::Kernel k = collective::classify_kernel(e.name);
  EXPECT_EQ(k.type, e.type);
  EXPECT_EQ(k.protocol, e.protocol);
  EXPECT_EQ(std::string(k.algorithm), e.algorithm);
}

INSTANTIATE_TEST_SUITE_P(
    Nccl, KernelNames,
    ::testing::Values(
        // NCCL 2.7-2.18: type, algorithm, protocol, reduction, dtype.
        Expected{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
                 Type::kAllReduce, Protocol::kLL, "RING"},
        Expected{"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
                 Type::kBroadcast, Protocol::kLL, "RING"},
        Expected{"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, "
                 "ncclWork*)",
                 Type::kSendRecv, Protocol::kSimple, "RING"},
        // NCCL 2.19+: reduction and dtype before algorithm and protocol.
        Expected{"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                 Type::kAllReduce, Protocol::kLL, "RING"},
        Expected{"ncclDevKernel_AllReduce_Sum_bf16_TREE_LL128(ncclDevKernelArgsStorage<4096ul>)",
                 Type::kAllReduce, Protocol::kLL128, "TREE"},
        Expected{"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                 Type::kAllGather, Protocol::kLL, "RING"},
        Expected{
            "ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE(ncclDevKernelArgsStorage<4096ul>)",
            Type::kReduceScatter, Protocol::kSimple, "RING"},
        Expected{"ncclDevKernel_AllReduce_Sum_bf16_NVLS_TREE_SIMPLE(ncclDevKernelArgsStorage)",
                 Type::kAllReduce, Protocol::kSimple, "NVLS_TREE"},
        Expected{"ncclDevKernel_AllReduce_Sum_f16_COLLNET_CHAIN_SIMPLE(ncclDevKernelArgsStorage)",
                 Type::kAllReduce, Protocol::kSimple, "COLLNET_CHAIN"},
        Expected{"ncclDevKernel_AllGather_PAT_SIMPLE(ncclDevKernelArgsStorage<4096ul>)",
                 Type::kAllGather, Protocol::kSimple, "PAT"},
        Expected{"ncclDevKernel_Reduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                 Type::kReduce, Protocol::kLL, "RING"},
        Expected{"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", Type::kSendRecv,
                 Protocol::kUnknown, ""},
        // RCCL's own collective and the older CamelCase names.
        Expected{"ncclKernel_AllToAllPivot_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long)",
                 Type::kAllToAll, Protocol::kSimple, "RING"},
        Expected{"ncclAllReduceRingLLKernel_sum_f32(CollectiveArgs)", Type::kAllReduce,
                 Protocol::kLL, "RING"},
        Expected{"ncclAllGatherTreeLL128Kernel_copy_i8(CollectiveArgs)", Type::kAllGather,
                 Protocol::kLL128, "TREE"},
        // Generic kernels name no type: the launching op decides.
        Expected{"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", Type::kUnknown,
                 Protocol::kUnknown, ""},
        Expected{"ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)", Type::kUnknown,
                 Protocol::kUnknown, ""},
        Expected{"rcclGenericKernel", Type::kUnknown, Protocol::kUnknown, ""},
        Expected{"void NCCL_kernel<...>", Type::kUnknown, Protocol::kUnknown, ""}));

INSTANTIATE_TEST_SUITE_P(
    NonNccl, KernelNames,
    ::testing::Values(
        Expected{"void c10d::symmetric_memory::(anonymous namespace)::multimem_all_reduce_kernel<"
                 "c10::BFloat16, 8, 16>(c10::BFloat16*, unsigned long, unsigned long, unsigned "
                 "int**, unsigned long, unsigned long)",
                 Type::kAllReduce, Protocol::kUnknown, "MULTIMEM"},
        Expected{"multimem_one_shot_all_reduce_kernel", Type::kAllReduce, Protocol::kUnknown,
                 "MULTIMEM"},
        Expected{"multimem_one_shot_reduce_kernel", Type::kReduce, Protocol::kUnknown, "MULTIMEM"},
        Expected{"void c10d::symmetric_memory::multimem_all_gather_kernel<16>(char*, unsigned "
                 "long)",
                 Type::kAllGather, Protocol::kUnknown, "MULTIMEM"},
        Expected{"void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 16, 8>(float**)",
                 Type::kAllReduce, Protocol::kUnknown, "ONE_SHOT"},
        Expected{"two_shot_all_reduce_kernel", Type::kAllReduce, Protocol::kUnknown, "TWO_SHOT"},
        Expected{"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*)",
                 Type::kAllReduce, Protocol::kUnknown, "ONE_SHOT"},
        Expected{
            "void aiter::cross_device_reduce_2stage_naive<__hip_bfloat16, 8>(aiter::RankData*)",
            Type::kAllReduce, Protocol::kUnknown, "TWO_SHOT"},
        Expected{"VLLM::CROSS_DEVICE_REDUCE", Type::kAllReduce, Protocol::kUnknown, ""},
        Expected{"void quickreduce::allreduce_prototype_twoshot<AllReduceTwoshot<__half, "
                 "CodecQ4<__half, 4>, true>, __half>(__half const*, __half*, unsigned int)",
                 Type::kAllReduce, Protocol::kUnknown, "TWO_SHOT"},
        Expected{"void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport"
                 "<(flashinfer::trtllm_allreduce_fusion::AllReduceFusionPattern)1, __nv_bfloat16, "
                 "8, false, false>(flashinfer::trtllm_allreduce_fusion::AllReduceFusionParams)",
                 Type::kAllReduce, Protocol::kUnknown, "ONE_SHOT"},
        Expected{"void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>("
                 "tensorrt_llm::kernels::AllReduceParams)",
                 Type::kAllReduce, Protocol::kUnknown, "ONE_SHOT"},
        Expected{"twoShotAllReduceKernel<float, 4>", Type::kAllReduce, Protocol::kUnknown,
                 "TWO_SHOT"},
        Expected{"custom_all_reduce_kernel", Type::kAllReduce, Protocol::kUnknown, ""},
        Expected{"all_gather_kernel<float>", Type::kAllGather, Protocol::kUnknown, ""},
        Expected{"ext::reduce_scatter_kernel", Type::kReduceScatter, Protocol::kUnknown, ""},
        Expected{"my_moe::all_to_all_dispatch", Type::kAllToAll, Protocol::kUnknown, ""}));

// Names that contain a pattern's letters but are computation.
INSTANTIATE_TEST_SUITE_P(
    NotCollectives, KernelNames,
    ::testing::Values(
        Expected{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", Type::kNone,
                 Protocol::kUnknown, ""},
        Expected{"void at::native::(anonymous namespace)::small_gather_kernel<float>()",
                 Type::kNone, Protocol::kUnknown, ""},
        // Inductor names its kernels after the ops they fuse, the FSDP copy-in included.
        Expected{"triton_poi_fused_all_gather_copy_in_0", Type::kNone, Protocol::kUnknown, ""},
        Expected{"triton_per_fused_reduce_scatter_tensor_1", Type::kNone, Protocol::kUnknown, ""},
        Expected{"void at::native::_scatter_gather_elementwise_kernel<128, 4>()", Type::kNone,
                 Protocol::kUnknown, ""},
        Expected{"Memset (Device)", Type::kNone, Protocol::kUnknown, ""},
        Expected{"overall_to_allocate_kernel", Type::kNone, Protocol::kUnknown, ""}));

TEST(CollectiveKernels, NcclFamilyIsMarked) {
  EXPECT_TRUE(collective::classify_kernel("ncclDevKernel_Generic_1(x)").nccl);
  EXPECT_FALSE(collective::classify_kernel("two_shot_all_reduce_kernel").nccl);
  EXPECT_TRUE(collective::classify_kernel("two_shot_all_reduce_kernel").is_collective());
  EXPECT_FALSE(collective::classify_kernel("gemm").is_collective());
}

TEST(CollectiveOps, TypeFromLaunchingOp) {
  EXPECT_EQ(collective::type_from_op("nccl:all_reduce"), Type::kAllReduce);
  EXPECT_EQ(collective::type_from_op("nccl:_all_gather_base"), Type::kAllGather);
  EXPECT_EQ(collective::type_from_op("nccl:_reduce_scatter_base"), Type::kReduceScatter);
  EXPECT_EQ(collective::type_from_op("nccl:all_to_all"), Type::kAllToAll);
  EXPECT_EQ(collective::type_from_op("nccl:broadcast"), Type::kBroadcast);
  EXPECT_EQ(collective::type_from_op("nccl:reduce"), Type::kReduce);
  EXPECT_EQ(collective::type_from_op("nccl:send"), Type::kSendRecv);
  EXPECT_EQ(collective::type_from_op("nccl:recv"), Type::kSendRecv);
  EXPECT_EQ(collective::type_from_op("c10d::allreduce_"), Type::kAllReduce);
  EXPECT_EQ(collective::type_from_op("c10d::_allgather_base_"), Type::kAllGather);
  EXPECT_EQ(collective::type_from_op("c10d::alltoall_base_"), Type::kAllToAll);
  EXPECT_EQ(collective::type_from_op("c10d::barrier"), Type::kAllReduce);
  EXPECT_EQ(collective::type_from_op("_c10d_functional::reduce_scatter_tensor"),
            Type::kReduceScatter);
  EXPECT_EQ(collective::type_from_op("_c10d_functional::all_to_all_single"), Type::kAllToAll);
  EXPECT_EQ(collective::type_from_op("symm_mem::one_shot_all_reduce"), Type::kAllReduce);
  // Ops that issue no collective, or name it only in their args.
  EXPECT_EQ(collective::type_from_op("_c10d_functional::wait_tensor"), Type::kNone);
  EXPECT_EQ(collective::type_from_op("record_param_comms"), Type::kNone);
  EXPECT_EQ(collective::type_from_op("aten::scatter_reduce"), Type::kNone);
  EXPECT_EQ(collective::type_from_op("aten::all_gather"), Type::kNone);
}

TEST(CollectiveOps, TypeFromCollectiveNameArg) {
  EXPECT_EQ(collective::type_from_collective_name("allreduce"), Type::kAllReduce);
  EXPECT_EQ(collective::type_from_collective_name("allreduce_coalesced"), Type::kAllReduce);
  EXPECT_EQ(collective::type_from_collective_name("_allgather_base"), Type::kAllGather);
  EXPECT_EQ(collective::type_from_collective_name("allgather_into_tensor_coalesced"),
            Type::kAllGather);
  EXPECT_EQ(collective::type_from_collective_name("reduce_scatter_tensor_coalesced"),
            Type::kReduceScatter);
  EXPECT_EQ(collective::type_from_collective_name("alltoall_base"), Type::kAllToAll);
  EXPECT_EQ(collective::type_from_collective_name("broadcast"), Type::kBroadcast);
  EXPECT_EQ(collective::type_from_collective_name("reduce"), Type::kReduce);
  EXPECT_EQ(collective::type_from_collective_name("gather"), Type::kSendRecv);
  EXPECT_EQ(collective::type_from_collective_name(""), Type::kNone);
}

TEST(CollectiveTypes, ReportOrderAndNames) {
  std::string names;
  for (Type t : collective::kTypes) names += std::string(collective::type_name(t)) + " ";
  EXPECT_EQ(names, "AllReduce AllGather ReduceScatter Broadcast Reduce SendRecv AllToAll Unknown ");
  EXPECT_STREQ(collective::type_name(Type::kNone), "");
  EXPECT_STREQ(collective::protocol_name(Protocol::kLL128), "LL128");
  EXPECT_STREQ(collective::protocol_name(Protocol::kUnknown), "");
}

}  // namespace
