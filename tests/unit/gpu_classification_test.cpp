#include <gtest/gtest.h>

#include "model/gpu_timeline.hpp"

using traceprism::index::EventKind;
using traceprism::model::classify_gpu_event;
using traceprism::model::GpuActivity;

// trace-format spec §4.1.
TEST(GpuClassification, MemcpyEventsAndRocmLegacyCopyKernels) {
  EXPECT_EQ(classify_gpu_event(EventKind::kGpuMemcpy, "Memcpy DtoH (Device -> Pinned)"),
            GpuActivity::kMemcpy);
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "MEMORY_COPY_HOST_TO_DEVICE"),
            GpuActivity::kMemcpy);
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "MEMORY_COPY_DEVICE_TO_DEVICE.kd"),
            GpuActivity::kMemcpy);
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "__amd_rocclr_copyBuffer"),
            GpuActivity::kMemcpy);
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "__amd_rocclr_copyBufferRectAligned.kd"),
            GpuActivity::kMemcpy);
  // Near misses are ordinary kernels.
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "MEMORY_COPY_HOST_TO_HOST"),
            GpuActivity::kComputation);
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "__amd_rocclr_copyBufferX"),
            GpuActivity::kComputation);
  // A memset is never memcpy.
  EXPECT_EQ(classify_gpu_event(EventKind::kGpuMemset, "MEMORY_COPY_HOST_TO_DEVICE"),
            GpuActivity::kComputation);
}

TEST(GpuClassification, FillKernelsAreComputation) {
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "__amd_rocclr_fillBufferAligned.kd"),
            GpuActivity::kComputation);
}

TEST(GpuClassification, CollectivesAreCommunicationInAnyCase) {
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel,
                               "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"),
            GpuActivity::kCommunication);
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "void NCCL_kernel<...>"),
            GpuActivity::kCommunication);
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "rcclGenericKernel"),
            GpuActivity::kCommunication);
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "vllm::cross_device_reduce_1stage<bf16>"),
            GpuActivity::kCommunication);
  EXPECT_EQ(classify_gpu_event(EventKind::kGpuMemset, "nccl memset"), GpuActivity::kCommunication);
  EXPECT_EQ(classify_gpu_event(EventKind::kGpuMemcpy, "nccl copy"), GpuActivity::kMemcpy);
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "sm90_xmma_gemm_bf16"),
            GpuActivity::kComputation);
}

// diagnosis.md §4: collective kernels outside NCCL's naming are communication too, and kernels
// that only look like them stay computation.
TEST(GpuClassification, NonNcclCollectivesAreCommunication) {
  for (const char* name :
       {"void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 8, 16>()",
        "one_shot_all_reduce_kernel", "two_shot_all_reduce_kernel", "custom_all_reduce_kernel",
        "allreduce_fusion_kernel_oneshot_lamport", "multimem_all_gather_kernel",
        "quickreduce::allreduce_prototype_twoshot<T>"}) {
    EXPECT_EQ(classify_gpu_event(EventKind::kKernel, name), GpuActivity::kCommunication) << name;
  }
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "triton_poi_fused_all_gather_copy_in_0"),
            GpuActivity::kComputation);
  EXPECT_EQ(classify_gpu_event(EventKind::kKernel, "small_gather_kernel"),
            GpuActivity::kComputation);
}
