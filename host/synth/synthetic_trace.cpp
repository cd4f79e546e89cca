#include "synth/synthetic_trace.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "synth/rendezvous.hpp"
#include "synth/synthesizer.hpp"

namespace traceprism::synth {

namespace detail {

namespace {

// clang-format off
constexpr VendorSpec kNvidia{
    R"({"id":0,"name":"NVIDIA H100 80GB HBM3","totalGlobalMem":85018279936,"computeMajor":9,"computeMinor":0,"maxThreadsPerBlock":1024,"maxThreadsPerMultiprocessor":2048,"regsPerBlock":65536,"warpSize":32,"sharedMemPerBlock":49152,"numSms":132,"regsPerMultiprocessor":65536,"sharedMemPerBlockOptin":232448,"sharedMemPerMultiprocessor":233472})",
    R"("cuda_runtime_version":12040)", 0, 7, 20,
    "cudaLaunchKernel", "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync",
    "cudaMemsetAsync", "cudaStreamSynchronize", "cudaDeviceSynchronize",
    "cudaMalloc", "cudaFree", "cudaEventRecord", "cudaStreamWaitEvent",
    600, 45, 420, 2600, 10, 360, 132, 64, 32, 300, 1000, false};

constexpr VendorSpec kAmd{
    R"({"id":0,"name":"AMD Instinct MI300X","totalGlobalMem":205822885888,"computeMajor":9,"computeMinor":4,"maxThreadsPerBlock":1024,"maxThreadsPerMultiprocessor":2048,"regsPerBlock":65536,"warpSize":64,"sharedMemPerBlock":65536,"numSms":304,"regsPerMultiprocessor":65536,"sharedMemPerBlockOptin":65536,"sharedMemPerMultiprocessor":65536})",
    R"("hip_runtime_version":60241134)", 2, 0, 1,
    "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipExtLaunchKernel", "hipMemcpyAsync",
    "hipMemsetAsync", "hipStreamSynchronize", "hipDeviceSynchronize",
    "hipMalloc", "hipFree", "hipEventRecord", "hipStreamWaitEvent",
    520, 80, 330, 3700, 12, 300, 304, 32, 64, 50, 400, true};
// clang-format on

struct KernelSpec {
  std::string_view nvidia;
  std::string_view amd;  // empty: ROCm builds of ATen keep the CUDA kernel name
  i64 registers, shared_memory, block, occupancy;
  bool library;  // launched from a library module (AMD: hipExtModuleLaunchKernel)
};

// clang-format off
#define TP_ELEMENTWISE(functor, arity)                                                        \
  "void at::native::vectorized_elementwise_kernel<4, " functor ", at::detail::Array<char*, " \
  arity "> >(int, " functor ", at::detail::Array<char*, " arity ">)"
#define TP_GELU(lambda)                                                                     \
  "at::native::Gelu" lambda "CUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)" \
  "::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const"

constexpr std::array<KernelSpec, 31> kKernels{{
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     "Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_1LDSB1_GRVW8_ISA942_K1_PGR2_PLR1_SU32_TT4_64_WG32_4_1_WGM8",
     168, 213248, 384, 19, true},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
     "Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI32x32x8x1_SN_1LDSB1_GRVW8_ISA942_K1_PGR2_PLR1_SU32_TT8_64_WG32_4_1_WGM8",
     168, 221184, 384, 19, true},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize256x128x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
     "Cijk_Alik_Bjlk_BBS_BH_MT256x128x64_MI32x32x8x1_SN_1LDSB1_GRVW8_ISA942_K1_PGR2_PLR1_SU32_TT8_64_WG32_4_1_WGM8",
     168, 221184, 384, 19, true},
    {TP_ELEMENTWISE("at::native::CUDAFunctor_add<c10::BFloat16>", "3"), "", 28, 0, 128, 88, false},
    {TP_ELEMENTWISE("at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >", "3"),
     "", 26, 0, 128, 87, false},
    {TP_ELEMENTWISE(TP_GELU("") "::{lambda(c10::BFloat16)#1}", "2"), "", 30, 0, 128, 86, false},
    {TP_ELEMENTWISE(TP_GELU("Backward") "::{lambda(c10::BFloat16, c10::BFloat16)#1}", "3"), "",
     32, 0, 128, 85, false},
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
     "", 40, 128, 256, 71, false},
    {"void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, c10::BFloat16*, int)",
     "", 48, 1024, 256, 68, false},
    {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<c10::BFloat16, float>(long, long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16*, c10::BFloat16*)",
     "", 64, 8448, 1024, 45, false},
    {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, false, true, false, false>(pytorch_flash::Flash_fwd_params)",
     "attn_fwd", 255, 49152, 128, 12, false},
    {"void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >, true, false, false, false, false, false, false>(pytorch_flash::Flash_bwd_params)",
     "bwd_kernel_dk_dv", 255, 147456, 256, 12, false},
    {"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)",
     "", 32, 0, 128, 82, false},
    {"void at::native::(anonymous namespace)::embedding_backward_feature_kernel<c10::BFloat16, float, long>(long const*, c10::BFloat16 const*, c10::BFloat16*, int, long, int, int)",
     "", 40, 4352, 1024, 49, false},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, c10::BFloat16, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, int)",
     "", 38, 64, 1024, 74, false},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, c10::BFloat16, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, int)",
     "", 38, 64, 1024, 74, false},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, c10::BFloat16, float, c10::BFloat16, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, long)",
     "", 36, 64, 1024, 73, false},
    {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<c10::BFloat16, float, long>(c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, long const*, c10::BFloat16 const*, bool, long, long, long, long)",
     "", 30, 4096, 1024, 3, false},
    {"void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<c10::BFloat16, long>(c10::BFloat16*, c10::BFloat16 const*, long const*, c10::BFloat16 const*, c10::BFloat16 const*, bool, int, int, long, long)",
     "", 26, 0, 1024, 40, false},
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<c10::BFloat16, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, float*, float*>(at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<c10::BFloat16, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, float*, float*)",
     "", 72, 0, 512, 42, false},
    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
     "ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)", 96, 8272, 640, 8, true},
    // FP32 GEMMs: cuBLAS picks CUTLASS SIMT kernels on H100 (no TF32 unless allowed), Tensile
    // its single-precision (_S_B_) kernels on MI300X.
    {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x128_8x4_tn_align1>(cutlass_80_simt_sgemm_128x128_8x4_tn_align1::Params)",
     "Cijk_Alik_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT128x128x16_MI16x16x1_SN_LDSB1_GRVWA4_GRVWB4_ISA942_K1_PGR2_PLR1_SU32_TT4_4_WG32_8_1_WGM8",
     122, 33280, 256, 25, true},
    {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x128_8x4_nn_align1>(cutlass_80_simt_sgemm_128x128_8x4_nn_align1::Params)",
     "Cijk_Ailk_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT128x128x16_MI16x16x1_SN_LDSB1_GRVWA4_GRVWB4_ISA942_K1_PGR2_PLR1_SU32_TT4_4_WG32_8_1_WGM8",
     122, 33280, 256, 25, true},
    {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x128_8x4_nt_align1>(cutlass_80_simt_sgemm_128x128_8x4_nt_align1::Params)",
     "Cijk_Ailk_Bjlk_S_B_Bias_HA_S_SAV_UserArgs_MT128x128x16_MI16x16x1_SN_LDSB1_GRVWA4_GRVWB4_ISA942_K1_PGR2_PLR1_SU32_TT4_4_WG32_8_1_WGM8",
     122, 33280, 256, 25, true},
    // RCCL builds one generic kernel; the collective is in the launching op's args.
    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL128(ncclDevComm*, unsigned long, ncclWork*)",
     "ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)", 96, 8272, 640, 8, true},
    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
     "ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)", 96, 8272, 640, 8, true},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::NormTwoOps<c10::BFloat16, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::NormTwoOps<c10::BFloat16, float, float>, unsigned int, float, 4>)",
     "", 32, 16, 512, 50, false},
    // Layout transposes: cuDNN's and MIOpen's.
    {"void cudnn::ops::nchwToNhwcKernel<__nv_bfloat16, __nv_bfloat16, float, false, true, (cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, __nv_bfloat16 const*, __nv_bfloat16*)",
     "batched_transpose_32x32_half", 32, 4224, 256, 100, true},
    {"void cudnn::ops::nhwcToNchwKernel<__nv_bfloat16, __nv_bfloat16, float, true, false, (cudnnKernelDataType_t)2>(cudnn::ops::nhwc2nchw_params_t<float>, __nv_bfloat16 const*, __nv_bfloat16*)",
     "batched_transpose_16x32_half", 32, 4224, 256, 100, true},
    // FSDP's parameter all-gather and gradient reduce-scatter; RCCL's generic kernel of the
    // ROCm 6 builds names no collective.
    {"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
     "rcclGenericKernel<1, false>(ncclDevKernelArgsStorage<4096ul>)", 96, 8272, 640, 8, true},
    {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
     "rcclGenericKernel<1, false>(ncclDevKernelArgsStorage<4096ul>)", 96, 8272, 640, 8, true},
}};

// clang-format on
#undef TP_GELU
#undef TP_ELEMENTWISE

template <class Item>
void input_list(Fields& args, std::string& s, std::string_view key,
                std::initializer_list<In> inputs, Item item) {
  args.raw(key, "[");
  for (const In& in : inputs) {
    if (&in != inputs.begin()) s += ',';
    item(in);
  }
  s += ']';
}

void append_inputs(Fields& args, std::initializer_list<In> inputs, std::string& s) {
  auto quoted = [&](std::string_view text) { (s += '"').append(text) += '"'; };
  // Each item is a bare list: a key-less Fields would add braces, so the values go in directly.
  auto ints = [&](const std::array<i64, 4>& values, int size) {
    s += '[';
    for (int i = 0; i < size; ++i) {
      if (i > 0) s += ',';
      append_int(s, values[i]);
    }
    s += ']';
  };
  input_list(args, s, "Input Dims", inputs, [&](const In& in) { ints(in.dims, in.rank); });
  input_list(args, s, "Input type", inputs, [&](const In& in) { quoted(in.type); });
  input_list(args, s, "Input Strides", inputs, [&](const In& in) {
    std::array<i64, 4> strides{};
    i64 stride = 1;
    for (int d = in.rank - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= in.dims[d];
    }
    if (in.transposed) strides = {1, in.dims[0], 0, 0};
    ints(strides, in.rank);
  });
  input_list(args, s, "Concrete Inputs", inputs, [&](const In& in) { quoted(in.concrete); });
}

}  // namespace

const VendorSpec& vendor_spec(Vendor vendor) {
  return vendor == Vendor::kAmd ? kAmd : kNvidia;
}

// The host runs at most this many activities ahead of each stream; a launch into a full queue
// blocks until the oldest one finishes. CUDA's own limit is about 1024, but a shallow queue
// bounds the run-ahead, so that an injected stall drains the GPU soon after it begins.
constexpr std::size_t kLaunchQueueDepth = 32;
constexpr i64 kWarmupTailNs = 400'000;

Synthesizer::Synthesizer(const SynthOptions& o, io::OutputFile& out)
    : o_(o),
      v_(vendor_spec(o.vendor)),
      out_(out),
      // Multi-rank: each rank its own stream of jitter, so that ranks differ as real ones do.
      rng_(o.rank ? o.seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(o.rank->rank + 1)
                  : o.seed),
      B(o.batch),
      S(o.sequence),
      H(o.hidden),
      T(B * S),
      heads_(std::max<i64>(1, H / 128)),
      hidden_list_("[" + std::to_string(H) + "]"),
      flat_shape_("[" + std::to_string(T) + ", " + std::to_string(H) + "]"),
      // A prefill step of B requests of S tokens each: the forward's shapes ([B, S, H]).
      step_name_("execute_" + std::to_string(T) + "_context_" + std::to_string(B) + "(sq" +
                 std::to_string(T) + "sk" + std::to_string(T) + "sqsq" + std::to_string(T * S) +
                 "sqsk" + std::to_string(T * S) + ")_generation_0(sq0sk0sqsq0sqsk0)"),
      capture_name_("capture_" + std::to_string(T) + "_FULL"),
      // The profiler starts recording while the GPU still runs the warm-up step's queue (whose
      // launches it did not record), so the first recorded step finds the host ahead, as in
      // the steady state, instead of a GPU that waits for every early launch.
      compute_{v_.compute_stream, kTraceStartNs + kWarmupTailNs, {}},
      comm_{v_.comm_stream, kTraceStartNs, {}},
      tp_comm_{v_.comm_stream + 4, kTraceStartNs, {}},
      drop_rng_(o.seed ^ (0xd1b54a32d192ed03ULL *
                          static_cast<std::uint64_t>(o.rank ? o.rank->rank + 1 : 0))) {
  for (const Injection& injection : o.inject) {
    inject_ns_[static_cast<std::size_t>(injection.problem)] = injection.amount_ns;
  }
}

// ---- document

// Communication appears with --nccl and with the injected all-reduces.
bool Synthesizer::distributed() const {
  return o_.nccl || injected(Problem::kExposedAllreduce) > 0 ||
         injected(Problem::kSmallAllreduce) > 0;
}

// A node whose clock runs ahead writes every time that much later (multi-rank.md §11).
i64 Synthesizer::base_time_ns() const {
  return kTraceBaseNs + (o_.rank ? o_.rank->clock_offset_ns : 0);
}

i64 Synthesizer::written_ts(i64 ns) const {
  return epoch_times() ? base_time_ns() + ns : ns;
}

void Synthesizer::write_header() {
  std::string h;
  h += "{\n\"schemaVersion\":1,\n\"deviceProperties\":[\n";
  h += v_.device_properties;
  // A rank's trace lists every GPU of its node, as torch.profiler does; only ids differ.
  const std::string first_id = "{\"id\":0,";
  for (int d = 1; o_.rank && d < o_.rank->devices_per_node; ++d)
    h += ",\n{\"id\":" + std::to_string(d) + "," +
         std::string(v_.device_properties.substr(first_id.size()));
  h += "\n],\n";
  h += v_.runtime_version;
  h += ",\n\"record_shapes\":1,\n\"with_stack\":1,\n\"displayTimeUnit\":\"ms\",\n";
  if (!epoch_times()) h += "\"baseTimeNanoseconds\":" + std::to_string(base_time_ns()) + ",\n";
  if (o_.rank) {
    h += "\"distributedInfo\":";
    Fields info(h);
    info.str("backend", "nccl").num("rank", o_.rank->rank).num("world_size", world());
    if (o_.rank->meta != NcclMeta::kNone) {
      // Every group of the job, as torch.distributed lists the groups it created.
      std::string config = "[";
      for (const ProcessGroup& g : *o_.rank->groups) {
        if (g.id) config += ",";
        config +=
            "{\"pg_name\":\"" + g.name + "\",\"pg_desc\":\"" + g.description +
            "\",\"backend_config\":\"cuda:nccl\",\"pg_size\":" + std::to_string(g.ranks.size()) +
            ",\"ranks\":[";
        for (std::size_t i = 0; i < g.ranks.size(); ++i)
          (i ? config += "," : config) += std::to_string(g.ranks[i]);
        config += "]}";
      }
      config += "]";
      info.num("pg_count", static_cast<i64>(o_.rank->groups->size())).raw("pg_config", config);
      info.str("nccl_version", "2.21.5");
    }
    info.close();
    h += ",\n";
  } else if (distributed()) {
    h += "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0,\"world_size\":8},\n";
  }
  h += "\"traceEvents\":[";
  out_.write(h);
}

void Synthesizer::write_metadata() {
  const i64 start = written_ts(kTraceStartNs);
  // `text` empty: the value is `number`.
  auto meta = [&](i64 pid, i64 tid, std::string_view what, std::string_view key,
                  std::string_view text, i64 number) {
    host_buf_ += ",\n";
    ++summary_.events;
    Fields ev(host_buf_);
    ev.str("name", what).str("ph", "M").time("ts", start).num("pid", pid).num("tid", tid);
    Fields args = ev.object("args");
    if (text.empty())
      args.num(key, number);
    else
      args.str(key, text);
    args.close();
    ev.close();
  };
  const i64 gpu = v_.gpu_pid;
  for (i64 pid : {kHostPid, gpu}) {
    meta(pid, 0, "process_name", "name", "python3", 0);
    meta(pid, 0, "process_labels", "labels", pid == gpu ? "GPU 0" : "CPU", 0);
    meta(pid, 0, "process_sort_index", "sort_index", "", pid == gpu ? 0x1000000 + gpu : pid);
  }
  auto thread = [&](i64 pid, i64 tid, const std::string& name) {
    meta(pid, tid, "thread_name", "name", name, 0);
    meta(pid, tid, "thread_sort_index", "sort_index", "", tid);
  };
  thread(kHostPid, kMainTid, "thread " + std::to_string(kMainTid) + " (python3)");
  if (o_.training) {
    thread(kHostPid, kAutogradTid, "thread " + std::to_string(kAutogradTid) + " (pt_autograd_0)");
  }
  thread(gpu, compute_.id, "stream " + std::to_string(compute_.id) + " ");
  if (distributed()) thread(gpu, comm_.id, "stream " + std::to_string(comm_.id) + " ");
  if (tensor_parallel()) thread(gpu, tp_comm_.id, "stream " + std::to_string(tp_comm_.id) + " ");
  emit(host_buf_);
}

Fields Synthesizer::begin_event(std::string& buf, std::string_view ph, std::string_view cat,
                                std::string_view name, int suffix, i64 pid, i64 tid, i64 ts) {
  // Every event starts with its separator so that buffers concatenate in any order; emit()
  // drops the document's very first one.
  buf += ",\n";
  ++summary_.events;
  Fields ev(buf);
  ev.str("ph", ph).str("cat", cat).str("name", name, suffix).num("pid", pid).num("tid", tid);
  ev.time("ts", written_ts(ts));
  return ev;
}

void Synthesizer::emit(std::string& buf) {
  std::string_view text = buf;
  if (first_event_ && !text.empty()) {
    text.remove_prefix(1);  // keep the newline, drop the comma
    first_event_ = false;
  }
  out_.write(text);
  buf.clear();
}

void Synthesizer::flush_step() {
  for (const HostEvent& e : events_) {
    if (e.hidden) continue;
    std::string_view args(args_.data() + e.args_begin, e.args_end - e.args_begin);
    if (e.kind == Kind::kInstant) {
      Fields ev = begin_event(host_buf_, "i", e.cat, e.name, e.suffix, kHostPid, e.tid, e.start);
      ev.str("s", "t").raw("args", args).close();
      continue;
    }
    Fields ev = begin_event(host_buf_, "X", e.cat, e.name, e.suffix, kHostPid, e.tid, e.start);
    ev.time("dur", e.end - e.start).raw("args", args).close();
    if (e.flow >= 0) {
      host_buf_ += ",\n";
      ++summary_.events;
      Fields flow(host_buf_);
      flow.str("ph", "s").num("id", e.flow).num("pid", kHostPid).num("tid", e.tid);
      flow.time("ts", written_ts(e.start)).str("cat", "ac2g").str("name", "ac2g").close();
    }
  }
  // Host events first, then the device's: the order in which Kineto writes its buffers.
  emit(host_buf_);
  emit(gpu_buf_);
  events_.clear();
  args_.clear();
}

// ---- host timeline

std::size_t Synthesizer::open(Kind kind, std::string_view cat, std::string_view name, int suffix) {
  // Time always advances before a start and before an end, so children sit strictly inside.
  work(250, 900);
  events_.push_back(
      {kind, cat, name, suffix, tid_, now_, now_, args_.size(), args_.size(), -1, hidden_ > 0});
  open_.push_back(events_.size() - 1);
  return events_.size() - 1;
}

void Synthesizer::close() {
  work(150, 600);
  HostEvent& e = events_[open_.back()];
  open_.pop_back();
  e.end = now_;
  if (e.kind == Kind::kOp || e.kind == Kind::kAnnotation) ext_stack_.pop_back();
  if (e.kind == Kind::kPython) python_stack_.pop_back();
}

void Synthesizer::open_annotation(std::string_view name, int suffix, bool own_ext) {
  std::size_t i = open(Kind::kAnnotation, "user_annotation", name, suffix);
  const i64 ext = next_ext_++;
  ext_stack_.push_back(own_ext ? ext : current_ext());
  Fields args(args_);
  args.num("External id", ext).num("Record function id", 0).num("Ev Idx", ev_idx_++);
  args.close();
  events_[i].args_end = args_.size();
}

void Synthesizer::open_python(std::string_view name, int suffix) {
  std::size_t i = open(Kind::kPython, "python_function", name, suffix);
  i64 parent = python_stack_.empty() ? 0 : python_stack_.back();
  python_stack_.push_back(next_python_id_++);
  Fields args(args_);
  args.num("Python parent id", parent)
      .num("Python id", python_stack_.back())
      .num("Python thread", 0);
  args.close();
  events_[i].args_end = args_.size();
  work(300, 1500);  // interpreter time of the frame itself
}

void Synthesizer::open_op(std::string_view name, std::initializer_list<In> inputs, i64 seq) {
  std::size_t i = open(Kind::kOp, "cpu_op", name, -1);
  ext_stack_.push_back(next_ext_++);
  Fields args(args_);
  args.num("External id", ext_stack_.back()).num("Record function id", 0);
  if (seq != kNoSeq) args.num("Sequence number", seq).num("Fwd thread id", 1);
  append_inputs(args, inputs, args_);
  args.num("Ev Idx", ev_idx_++).close();
  events_[i].args_end = args_.size();
  work(1200, 3500);  // dispatcher and argument handling
}

// The args PyTorch's record_param_comms writes for a collective of its process group.
void Synthesizer::open_comm_op(const Collective& c) {
  std::size_t i = open(Kind::kOp, "cpu_op", "record_param_comms", -1);
  ext_stack_.push_back(next_ext_++);
  Fields args(args_);
  args.num("External id", ext_stack_.back()).num("Record function id", 0);
  if (comm_args_on(false)) {
    write_comm_args(args, c);
    args.num("Global rank start", c.group ? c.group->ranks.front() : 0)
        .num("Global rank stride", c.group ? c.group->stride : 1);
  }
  args.num("Ev Idx", ev_idx_++).close();
  events_[i].args_end = args_.size();
  work(1200, 3500);
}

// "[0, 1, 2]"; a group of more than 30 members as the profiler truncates it: 29 ranks, "...",
// the last one.
static std::string group_ranks_text(const std::vector<int>& ranks) {
  std::string text = "[";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks.size() > 30 && i == 29) {
      text += "..., " + std::to_string(ranks.back());
      break;
    }
    if (i) text += ", ";
    text += std::to_string(ranks[i]);
  }
  return text + "]";
}

// The collective's identity and message, as the profiler writes it on record_param_comms and
// copies it onto the kernel.
void Synthesizer::write_comm_args(Fields& args, const Collective& c) const {
  const ProcessGroup* g = o_.rank ? c.group : nullptr;
  args.str("Collective name", c.name)
      .num("In msg nelems", c.nelems)
      .num("Out msg nelems", c.out_nelems >= 0 ? c.out_nelems : c.nelems)
      .num("Group size", g ? static_cast<i64>(g->ranks.size()) : world())
      .str("dtype", c.dtype)
      .str("In split size", "[]")
      .str("Out split size", "[]")
      .str("Process Group Name", g ? std::string_view(g->name) : "0")
      .str("Process Group Description", g ? std::string_view(g->description) : "default_pg");
  if (!g) {
    args.str("Process Group Ranks", "[0, 1, 2, 3, 4, 5, 6, 7]");
    return;
  }
  args.str("Process Group Ranks", group_ranks_text(g->ranks));
  if (o_.rank->meta != NcclMeta::kFull) return;
  // Comms Id: a hash of the group and the sequence number, equal on every member.
  std::uint64_t id = 0xcbf29ce484222325ULL;
  for (char ch : g->name + "/" + std::to_string(c.seq))
    id = (id ^ static_cast<unsigned char>(ch)) * 0x100000001b3ULL;
  // Rank: this rank's position in the group.
  const i64 group_rank =
      std::find(g->ranks.begin(), g->ranks.end(), o_.rank->rank) - g->ranks.begin();
  args.num("Seq", c.seq).raw("Comms Id", std::to_string(id)).num("Rank", group_rank);
}

bool Synthesizer::comm_args_on(bool kernel) const {
  if (!o_.rank) return true;
  if (o_.rank->meta == NcclMeta::kNone) return false;
  return o_.rank->meta_on == MetaOn::kBoth || (o_.rank->meta_on == MetaOn::kKernel) == kernel;
}

// An nn.Module call: the module frame and its forward() frame.
Synthesizer::Scope Synthesizer::module(std::string_view name, int index, std::string_view forward) {
  open_python(name, index);
  open_python(forward, -1);
  return Scope(*this, 2);
}

Synthesizer::Scope Synthesizer::grad_node(GradNode node) {
  i64 seq = pop_seq();
  open_op(node.evaluate, {}, seq);
  open_op(node.node, {}, seq);
  return Scope(*this, 2);
}

// A caching-allocator event; only the bytes matter, so addresses are a plain counter.
void Synthesizer::memory(i64 bytes) {
  if (allocated_ + bytes < 0) bytes = -allocated_;
  allocated_ += bytes;
  work(100, 300);
  std::size_t i = events_.size();
  events_.push_back({Kind::kInstant, "cpu_instant_event", "[memory]", -1, tid_, now_, now_,
                     args_.size(), args_.size(), -1, hidden_ > 0});
  Fields args(args_);
  const i64 reserved = (allocated_ / (1 << 21) + 16) * (1 << 21);
  args.num("Total Reserved", reserved).num("Total Allocated", allocated_).num("Bytes", bytes);
  args.num("Addr", 0x7f3a40000000 + (next_addr_++ % 4096) * 0x200000);
  args.num("Device Type", 1).num("Device Id", 0).close();
  events_[i].args_end = args_.size();
}

// Forward ops that record an autograd node carry its sequence number; backward pops them in
// reverse, which is the order the autograd engine runs the nodes in.
i64 Synthesizer::take_seq() {
  // A checkpointed block's rerun is backpropagated inside its backward node (see
  // recompute_checkpointed), so its nodes never reach the outer engine.
  if (!o_.training || recomputing_) return kNoSeq;
  seqs_.push_back(next_seq_++);
  return seqs_.back();
}

i64 Synthesizer::pop_seq() {
  i64 seq = seqs_.back();
  seqs_.pop_back();
  return seq;
}

// ---- GPU

std::size_t Synthesizer::open_runtime(std::string_view name, int cbid, std::string_view kernel) {
  const std::size_t i = open(Kind::kRuntime, "cuda_runtime", name, -1);
  const i64 correlation = next_correlation_++;
  Fields args(args_);
  args.num("External id", current_ext()).num("cbid", cbid).num("correlation", correlation);
  if (!kernel.empty()) args.str("kernel", kernel);
  args.close();
  events_[i].args_end = args_.size();
  events_[i].flow = correlation;
  return i;
}

// The call's flow start is recorded for every call; calls that launch nothing (syncs, events,
// allocations) get no flow end, as in real traces.
Synthesizer::Call Synthesizer::runtime_call(std::string_view name, int cbid, i64 wait_until) {
  const std::size_t i = open_runtime(name, cbid);
  work(2000, 6000);
  if (wait_until > 0) hold_until(wait_until + rng_.between(1000, 3000));
  const Call call{events_[i].flow, events_[i].start};
  close();
  return call;
}

// When the stream already holds kLaunchQueueDepth unfinished activities at the host's time, the
// time the oldest of them finishes; otherwise 0.
i64 Synthesizer::queue_slot(Stream& stream) const {
  std::deque<i64>& pending = stream.pending;
  while (!pending.empty() && pending.front() <= now_) pending.pop_front();
  if (pending.size() < kLaunchQueueDepth) return 0;
  return pending[pending.size() - kLaunchQueueDepth];
}

// Each stream runs its work in order: an activity starts once the stream is free and the launch
// has reached the device. When the host is the slower side this leaves idle gaps on the GPU.
i64 Synthesizer::place(Stream& stream, i64 launch_start, i64 duration, i64 not_before) {
  const i64 start = std::max({stream.free_at + rng_.between(v_.queued_gap_lo, v_.queued_gap_hi),
                              launch_start + rng_.between(4000, 9000), not_before});
  if (&stream == &compute_) {
    // Device-wide idle: the part of the gap that the communication stream does not cover
    // (its activities run back to back up to comm_.free_at).
    compute_idle_ns_ +=
        std::max<i64>(0, start - std::max({stream.free_at, comm_.free_at, tp_comm_.free_at}));
    compute_busy_ns_ += duration;
    if (step_gpu_begin_ == 0) step_gpu_begin_ = start;
    step_gpu_end_ = start + duration;
  }
  stream.free_at = start + duration;
  stream.pending.push_back(stream.free_at);
  return start;
}

// One GPU activity: the runtime call on the host, the activity on `stream`, and the ac2g flow
// between them. `extra_args` appends the activity-specific args.
template <class ExtraArgs>
void Synthesizer::launch(std::string_view api, int cbid, std::string_view cat,
                         std::string_view name, Stream& stream, i64 duration,
                         const Placement& placement, ExtraArgs&& extra_args) {
  const i64 ext = current_ext();
  const std::size_t i = open_runtime(api, cbid, capturing_ && v_.amd ? name : std::string_view{});
  const Call call{events_[i].flow, events_[i].start};
  work(2000, 6000);
  if (capturing_) {  // recorded into the graph: nothing runs
    events_[i].flow = -1;
    close();
    return;
  }
  if (const i64 slot = queue_slot(stream); slot > 0) hold_until(slot + rng_.between(500, 1500));
  const i64 start = place(stream, call.start, duration, placement.not_before);
  if (placement.collective && o_.rank)
    duration = meet_at_collective(stream, start, duration, call.correlation, *placement.collective);
  if (placement.blocking) hold_until(start + duration + rng_.between(1000, 3000));
  close();
  if (dropping_) return;  // a collective this rank's file leaves out
  record_computation(cat, start, duration, placement);
  ++summary_.gpu_events;
  Fields ev = begin_event(gpu_buf_, "X", cat, name, -1, v_.gpu_pid, stream.id, start);
  ev.time("dur", duration);
  Fields args = ev.object("args");
  if (graph_correlation_ == 0) args.num("External id", ext);
  if (cat == "kernel") args.num("queued", 0);
  args.num("device", 0).num("context", 1).num("stream", stream.id);
  args.num("correlation", graph_correlation_ ? graph_correlation_ : call.correlation);
  extra_args(args);
  args.close();
  ev.close();
  if (graph_correlation_) return;  // a graph's kernels link to its launch by correlation
  gpu_buf_ += ",\n";
  ++summary_.events;
  Fields flow(gpu_buf_);
  flow.str("ph", "f").num("id", call.correlation).num("pid", v_.gpu_pid).num("tid", stream.id);
  flow.time("ts", written_ts(start)).str("cat", "ac2g").str("name", "ac2g").str("bp", "e").close();
}

void Synthesizer::kernel(K k, i64 duration, Grid grid, Stream& stream, const Placement& placement) {
  const KernelSpec& spec = kKernels[static_cast<std::size_t>(k)];
  const Collective* c = placement.collective;
  const std::string_view api = c ? v_.comm_launch : spec.library ? v_.library_launch : v_.launch;
  std::string_view name = v_.amd && !spec.amd.empty() ? spec.amd : spec.nvidia;
  if (c && o_.rank && o_.rank->meta == NcclMeta::kNone && !v_.amd)
    name = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)";
  if (!c && next_kernel_delay_ns_ > 0) {  // --skew-us before a tensor-parallel all-reduce
    duration += next_kernel_delay_ns_;
    next_kernel_delay_ns_ = 0;
  }
  if (!c && o_.rank) duration = duration * o_.rank->compute_permille / 1000;
  const i64 blocks = grid.x * grid.y * grid.z;
  const i64 warps = blocks * ceil_div(spec.block, v_.warp_size);
  const i64 occupancy =
      std::clamp<i64>(warps * 100 / (v_.sms * v_.max_warps_per_sm), 1, spec.occupancy);
  // A recomputed block's kernels; its tensor-parallel all-reduces move the same bytes as before.
  if (recomputing_ && !c) duration = duration * recompute_scale_num_ / recompute_scale_den_;
  launch(
      api, c ? kCbidLaunchEx : kCbidLaunch, "kernel", name, stream, rng_.jitter(duration, 4),
      placement, [&](Fields& args) {
        args.num("registers per thread", spec.registers).num("shared memory", spec.shared_memory);
        args.fixed("blocks per SM", blocks * 1'000'000 / v_.sms, 6);
        args.fixed("warps per SM", warps * 1'000'000 / v_.sms, 6);
        args.list("grid", std::array<i64, 3>{grid.x, grid.y, grid.z});
        args.list("block", std::array<i64, 3>{spec.block, 1, 1});
        args.num("est. achieved occupancy %", occupancy);
        if (!c || !comm_args_on(true)) return;
        write_comm_args(args, *c);  // Kineto copies record_param_comms' args onto the kernel
      });
}

// `duration` 0: the copy's time from its bandwidth. Pageable host memory goes through a
// staging buffer, hence the low bandwidth; device-to-device copies read and write HBM.
void Synthesizer::memcpy(Copy copy, i64 bytes, i64 duration, const Placement& placement) {
  static constexpr std::array<std::string_view, 4> kNames{
      "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device -> Pinned)",
      "Memcpy DtoH (Device -> Pageable)", "Memcpy DtoD (Device -> Device)"};
  if (duration == 0) {
    duration =
        copy == Copy::kDtoD ? 2 * bytes / v_.hbm_gbps + 1500 : bytes / v_.pageable_gbps + 1500;
  }
  const i64 dur = rng_.jitter(duration, 5);
  launch(v_.memcpy, kCbidMemcpy, "gpu_memcpy", kNames[static_cast<std::size_t>(copy)], compute_,
         dur, placement, [&](Fields& args) {
           args.num("bytes", bytes).fixed("memory bandwidth (GB/s)", bytes * 1'000'000 / dur, 6);
         });
}

void Synthesizer::memset(i64 bytes) {
  const i64 dur = rng_.jitter(memory_ns(bytes), 5);
  launch(v_.memset, kCbidMemset, "gpu_memset", "Memset (Device)", compute_, dur, {},
         [&](Fields& args) {
           args.num("bytes", bytes).fixed("memory bandwidth (GB/s)", bytes * 1'000'000 / dur, 6);
         });
}

// ---- the workload: a decoder-only transformer, LayerNorm -> attention -> LayerNorm -> MLP

void Synthesizer::step(int number) {
  step_gpu_begin_ = 0;
  open_annotation("ProfilerStep#", number);
  step_ext_ = current_ext();
  {
    Scope profiler_step(*this, 1);
    fetch_batch();
    Scope train = python("train.py(42): train_step");
    for (int i = 0; i < (o_.training ? 2 : 1); ++i) {  // input ids, then labels
      Scope to = op("aten::to", {i64t({B, S}), scalar("", ""), scalar("4"), scalar("False")});
      Scope to_copy = op("aten::_to_copy", {i64t({B, S}), scalar("4"), scalar("False")});
      leaf("aten::empty_strided", {scalar("", "ScalarList"), scalar("", "ScalarList")});
      Scope copy = op("aten::copy_", {i64t({B, S}), i64t({B, S}), scalar("True")});
      memcpy(Copy::kHtoDPageable, T * 8);
    }
    {
      Scope zeros = op("aten::zeros", {scalar("", "ScalarList"), scalar("4")});
      Scope zero = op("aten::zero_", {i64t({B, S})});
      memset(T * 8);
    }
    forward();
    if (o_.training) loss();
    synchronize_stall();
    host_compute();
    if (o_.training) backward();
    tiny_kernel_loop();
    exposed_all_reduce();
    small_all_reduces();
    if (o_.training) optimizer_step();
    read_loss();
  }
  ++summary_.gpu_events;
  Fields ev = begin_event(gpu_buf_, "X", "gpu_user_annotation", "ProfilerStep#", number, v_.gpu_pid,
                          compute_.id, step_gpu_begin_);
  ev.time("dur", step_gpu_end_ - step_gpu_begin_);
  ev.object("args").num("External id", step_ext_).close();
  ev.close();
  flush_step();
}

// One vLLM prefill step in graph mode: the inputs copied in eagerly, then the whole forward as
// one graph launch that returns long before its kernels end, then the sampled tokens copied out.
void Synthesizer::serving_step() {
  step_gpu_begin_ = 0;
  {
    Scope step = annotation(step_name_);
    Scope execute = python("vllm/v1/worker/gpu_model_runner.py(1800): execute_model");
    {
      Scope copy = op("aten::copy_", {i64t({B, S}), i64t({B, S}), scalar("True")});
      memcpy(Copy::kHtoDPageable, T * 8);
    }
    const std::size_t launch =
        open_runtime(v_.amd ? "hipGraphLaunch" : "cudaGraphLaunch", kCbidLaunch);
    graph_correlation_ = events_[launch].flow;
    events_[launch].flow = -1;  // a graph launch starts no ac2g flow
    const i64 launched_at = now_;
    ++hidden_;  // the replayed forward: its kernels without its host events
    forward();
    --hidden_;
    graph_correlation_ = 0;
    now_ = launched_at;
    work(300'000, 600'000);
    close();
    {
      Scope copy = op("aten::copy_", {i64t({B}), i64t({B}), scalar("False")});
      memcpy(Copy::kDtoHPinned, B * 8);
    }
  }
  flush_step();
}

// The capture trace of that graph, as vLLM records it while it captures: one _dummy_run of the
// batch size under a capture_<B>_FULL annotation, its forward between a begin and an end of
// stream capture.
void Synthesizer::capture() {
  {
    Scope capture = python("vllm/v1/worker/gpu_model_runner.py(2400): capture_model");
    Scope annotated = annotation(capture_name_);
    Scope dummy_run = python("vllm/v1/worker/gpu_model_runner.py(2200): _dummy_run");
    runtime_call(v_.amd ? "hipStreamBeginCapture" : "cudaStreamBeginCapture", 0);
    capturing_ = true;
    forward();
    capturing_ = false;
    runtime_call(v_.amd ? "hipStreamEndCapture" : "cudaStreamEndCapture", 0);
  }
  flush_step();
}

// A healthy loop keeps the loss on the GPU and copies it to pinned memory without waiting; with
// blocking-copy injected it reads it with .item() instead.
void Synthesizer::read_loss() {
  if (injected(Problem::kBlockingCopy) > 0) {
    blocking_copy();
    return;
  }
  Scope to = op("aten::to", {f32({}), scalar("", ""), scalar("6"), scalar("True")});
  Scope to_copy = op("aten::_to_copy", {f32({}), scalar("6"), scalar("True")});
  leaf("aten::empty_strided", {scalar("[]", "ScalarList"), scalar("[]", "ScalarList")});
  Scope copy = op("aten::copy_", {f32({}), f32({}), scalar("True")});
  memcpy(Copy::kDtoHPinned, 4);
}

void Synthesizer::forward() {
  Scope model = module("nn.Module: Transformer_", 0, "model.py(131): forward");
  {
    Scope embedding =
        module("nn.Module: Embedding_", 0, "torch/nn/modules/sparse.py(162): forward");
    Scope e = op("aten::embedding",
                 {bf16({kVocab, H}), i64t({B, S}), scalar("-1"), scalar("False"), scalar("False")},
                 take_seq());
    leaf("aten::reshape", {i64t({B, S}), scalar("[-1]", "ScalarList")});
    Scope select = op("aten::index_select", {bf16({kVocab, H}), scalar("0"), i64t({T})});
    memory(T * H * 2);
    kernel(K::kEmbedding, memory_ns(T * H * 4), flat_grid(T * H));
  }
  elementwise("aten::mul", K::kMul, {bf16({B, S, H}), scalar("32.0")}, T * H);
  for (int layer = 0; layer < o_.layers; ++layer) {
    fsdp_all_gather(false, layer == 0);
    const i64 busy_before = compute_busy_ns_;
    if (checkpointed(layer)) {
      // torch.utils.checkpoint(block, x): the block's forward runs inside CheckpointFunction.
      Scope checkpoint = python("torch/utils/checkpoint.py(489): checkpoint");
      Scope apply = python("torch/autograd/function.py(574): apply");
      Scope function = python("torch/utils/checkpoint.py(257): forward");
      layer_forward(layer);
    } else {
      layer_forward(layer);
    }
    if (layer_forward_ns_ == 0) layer_forward_ns_ = compute_busy_ns_ - busy_before;
    device_copy(layer);
    layout_transpose();
  }
  layer_norm(2 * o_.layers);
  {
    Scope head =
        module("nn.Module: Linear_", 4 * o_.layers, "torch/nn/modules/linear.py(125): forward");
    Scope linear = op("aten::linear", {bf16({B, S, H}), bf16({kVocab, H}), scalar("", "")});
    leaf("aten::t", {bf16({kVocab, H})});
    Scope matmul = op("aten::matmul", {bf16({B, S, H}), bf16({H, kVocab}, true)});
    leaf("aten::view", {bf16({B, S, H}), scalar(flat_shape_, "ScalarList")});
    Scope mm = op("aten::mm", {bf16({T, H}), bf16({H, kVocab}, true)}, take_seq());
    allocator_stall();  // the logits are the step's largest allocation
    memory(T * kVocab * 2);
    kernel(K::kGemmFwd, gemm_ns(T, kVocab, H), gemm_grid(T, kVocab));
  }
  if (!o_.training) {
    Scope softmax = op("aten::softmax", {bf16({B, S, kVocab}), scalar("-1"), scalar("", "")});
    Scope inner = op("aten::_softmax", {bf16({B, S, kVocab}), scalar("-1"), scalar("False")});
    kernel(K::kSoftmax, memory_ns(T * kVocab * 4), Grid{T, 1, 1});
  }
  fp32_linears();
}

void Synthesizer::layer_forward(int layer) {
  Scope block = module("nn.Module: DecoderLayer_", layer, "model.py(73): forward");
  const In x = bf16({B, S, H});
  layer_norm(2 * layer);
  {
    Scope attention = module("nn.Module: Attention_", layer, "model.py(41): forward");
    linear(4 * layer, H, 3 * H);
    {
      const In q = bf16({B, heads_, S, H / heads_});
      leaf("aten::view", {bf16({B, S, 3 * H}), scalar("", "ScalarList")});
      leaf("aten::transpose", {bf16({B, S, heads_, H / heads_}), scalar("1"), scalar("2")});
      Scope sdpa = op("aten::scaled_dot_product_attention",
                      {q, q, q, scalar("", ""), scalar("0.0"), scalar("True")});
      Scope flash = op("aten::_scaled_dot_product_flash_attention",
                       {q, q, q, scalar("0.0"), scalar("True"), scalar("False")}, take_seq());
      Scope inner = op("aten::_flash_attention_forward", {q, q, q});
      memory(T * H * 2);
      kernel(K::kFlashFwd, attention_ns(false), Grid{ceil_div(S, 128), B, heads_});
    }
    delay_next_kernel();
    linear(4 * layer + 1, H, H);
    tp_all_reduce(false);  // the row-parallel output projection's partial sums
  }
  elementwise("aten::add", K::kAdd, {x, x, scalar("1")}, T * H);
  layer_norm(2 * layer + 1);
  {
    Scope mlp = module("nn.Module: MLP_", layer, "model.py(58): forward");
    linear(4 * layer + 2, H, 4 * H);
    elementwise("aten::gelu", K::kGelu, {bf16({B, S, 4 * H}), scalar("none", "str")}, T * 4 * H);
    delay_next_kernel();
    linear(4 * layer + 3, 4 * H, H);
    tp_all_reduce(false);  // the row-parallel down projection's partial sums
  }
  elementwise("aten::add", K::kAdd, {x, x, scalar("1")}, T * H);
}

void Synthesizer::linear(int index, i64 in, i64 out) {
  Scope m = module("nn.Module: Linear_", index, "torch/nn/modules/linear.py(125): forward");
  Scope lin = op("aten::linear", {bf16({B, S, in}), bf16({out, in}), bf16({out})});
  leaf("aten::t", {bf16({out, in})});
  // A 3-D input goes through addmm on its flattened [tokens, features] view.
  Scope addmm =
      op("aten::addmm",
         {bf16({out}), bf16({T, in}), bf16({in, out}, true), scalar("1"), scalar("1")}, take_seq());
  memory(T * out * 2);
  kernel(K::kGemmFwd, gemm_ns(T, out, in), gemm_grid(T, out));
}

void Synthesizer::layer_norm(int index) {
  Scope m =
      module("nn.Module: LayerNorm_", index, "torch/nn/modules/normalization.py(201): forward");
  const In x = bf16({B, S, H});
  const In shape = scalar(hidden_list_, "ScalarList");
  Scope ln =
      op("aten::layer_norm", {x, shape, bf16({H}), bf16({H}), scalar("1e-05"), scalar("True")});
  Scope native =
      op("aten::native_layer_norm", {x, shape, bf16({H}), bf16({H}), scalar("1e-05")}, take_seq());
  memory(T * H * 2);
  kernel(K::kLayerNorm, memory_ns(T * H * 4), Grid{T, 1, 1});
}

void Synthesizer::elementwise(std::string_view name, K k, std::initializer_list<In> inputs,
                              i64 numel) {
  Scope o = op(name, inputs, take_seq());
  memory(numel * 2);
  kernel(k, memory_ns(numel * 2 * static_cast<i64>(inputs.size())), flat_grid(numel));
}

void Synthesizer::loss() {
  Scope py = python("torch/nn/functional.py(3086): cross_entropy");
  const In logits = bf16({T, kVocab});
  Scope ce = op("aten::cross_entropy_loss",
                {logits, i64t({T}), scalar("", ""), scalar("1"), scalar("-100"), scalar("0.0")});
  {
    Scope ls = op("aten::log_softmax", {logits, scalar("1"), scalar("", "")});
    Scope inner = op("aten::_log_softmax", {logits, scalar("1"), scalar("False")}, take_seq());
    memory(T * kVocab * 2);
    kernel(K::kLogSoftmax, memory_ns(T * kVocab * 4), Grid{T, 1, 1});
  }
  Scope nd =
      op("aten::nll_loss_nd", {logits, i64t({T}), scalar("", ""), scalar("1"), scalar("-100")});
  Scope nll =
      op("aten::nll_loss", {logits, i64t({T}), scalar("", ""), scalar("1"), scalar("-100")});
  Scope fwd = op("aten::nll_loss_forward",
                 {logits, i64t({T}), scalar("", ""), scalar("1"), scalar("-100")}, take_seq());
  kernel(K::kNllLoss, memory_ns(T * 8), Grid{1, 1, 1});
}

void Synthesizer::backward() {
  Scope py = python("torch/_tensor.py(522): backward");
  Scope py_autograd = python("torch/autograd/__init__.py(267): backward");
  Scope py_engine = python("torch/autograd/graph.py(744): _engine_run_backward");
  // The engine runs the graph on its own device thread while the Python frames above wait.
  tid_ = kAutogradTid;
  const In logits = bf16({T, kVocab});
  {
    Scope node = grad_node(TP_GRAD_NODE("NllLossBackward0"));
    Scope o =
        op("aten::nll_loss_backward", {f32({}), logits, i64t({T}), scalar("", ""), scalar("1")});
    memory(T * kVocab * 2);
    kernel(K::kNllLossBackward, memory_ns(T * kVocab * 2), flat_grid(T * kVocab));
  }
  {
    Scope node = grad_node(TP_GRAD_NODE("LogSoftmaxBackward0"));
    Scope o = op("aten::_log_softmax_backward_data", {logits, logits, scalar("1"), scalar("6")});
    kernel(K::kLogSoftmaxBackward, memory_ns(T * kVocab * 6), Grid{T, 1, 1});
  }
  fp32_linears_backward();
  linear_backward(H, kVocab, false);
  layer_norm_backward();
  const i64 layer_grad_bytes = 12 * H * H * 2;
  for (int layer = o_.layers - 1; layer >= 0; --layer) {
    fsdp_all_gather(true, false);
    if (checkpointed(layer)) {
      recompute_checkpointed(layer);
    } else {
      layer_backward();
    }
    fsdp_reduce_scatter();
    // DDP reduces gradients in buckets of two layers, as soon as a bucket is complete.
    if (o_.nccl && !fsdp() && layer % 2 == 0) {
      all_reduce(layer_grad_bytes * (layer + 1 < o_.layers ? 2 : 1), K::kAllReduce, "BFloat16", 0);
    }
  }
  {
    Scope node = grad_node(TP_GRAD_NODE("MulBackward0"));
    Scope o = op("aten::mul", {bf16({B, S, H}), scalar("32.0")});
    kernel(K::kMul, memory_ns(T * H * 4), flat_grid(T * H));
  }
  {
    Scope node = grad_node(TP_GRAD_NODE("EmbeddingBackward0"));
    Scope o = op("aten::embedding_backward", {bf16({B, S, H}), i64t({B, S}), scalar("32000")});
    Scope dense =
        op("aten::embedding_dense_backward", {bf16({B, S, H}), i64t({B, S}), scalar("32000")});
    kernel(K::kEmbeddingBackward, memory_ns(T * H * 4), Grid{ceil_div(H, 32), 1, 1});
  }
  accumulate_grad(kVocab * H);
  if (o_.nccl && !fsdp()) {  // the embedding and LM-head bucket, last and exposed
    all_reduce(2 * kVocab * H * 2, K::kAllReduce, "BFloat16", 0);
  }
  memory(-allocated_);
  tid_ = kMainTid;
}

void Synthesizer::layer_backward() {
  { Scope node = grad_node(TP_GRAD_NODE("AddBackward0")); }
  linear_backward(4 * H, H, true);
  {
    Scope node = grad_node(TP_GRAD_NODE("GeluBackward0"));
    Scope o = op("aten::gelu_backward",
                 {bf16({B, S, 4 * H}), bf16({B, S, 4 * H}), scalar("none", "str")});
    kernel(K::kGeluBackward, memory_ns(T * 4 * H * 6), flat_grid(T * 4 * H));
  }
  delay_next_kernel();
  linear_backward(H, 4 * H, true);
  tp_all_reduce(true);  // the column-parallel up projection's input gradient
  layer_norm_backward();
  { Scope node = grad_node(TP_GRAD_NODE("AddBackward0")); }
  linear_backward(H, H, true);
  {
    Scope node = grad_node(TP_GRAD_NODE("ScaledDotProductFlashAttentionBackward0"));
    const In q = bf16({B, heads_, S, H / heads_});
    Scope o = op("aten::_scaled_dot_product_flash_attention_backward", {q, q, q, q, q});
    Scope inner = op("aten::_flash_attention_backward", {q, q, q, q, q});
    memory(3 * T * H * 2);
    kernel(K::kFlashBwd, attention_ns(true), Grid{ceil_div(S, 128), B, heads_});
  }
  delay_next_kernel();
  linear_backward(H, 3 * H, true);
  tp_all_reduce(true);  // the column-parallel QKV projection's input gradient
  layer_norm_backward();
  memory(-12 * T * H * 2);  // this layer's saved activations are freed
}

void Synthesizer::linear_backward(i64 in, i64 out, bool bias) {
  {
    Scope node = grad_node(bias ? TP_GRAD_NODE("AddmmBackward0") : TP_GRAD_NODE("MmBackward0"));
    {
      Scope mm = op("aten::mm", {bf16({T, out}), bf16({out, in})});
      memory(T * in * 2);
      kernel(K::kGemmDgrad, gemm_ns(T, in, out), gemm_grid(T, in));
    }
    leaf("aten::t", {bf16({T, out})});
    Scope mm = op("aten::mm", {bf16({out, T}, true), bf16({T, in})});
    memory(out * in * 2);
    kernel(K::kGemmWgrad, gemm_ns(out, in, T), gemm_grid(out, in));
  }
  accumulate_grad(out * in);
}

// The first accumulation only takes the gradient over: host work, no kernel.
void Synthesizer::accumulate_grad(i64 numel) {
  Scope evaluate = op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", {});
  Scope node = op("torch::autograd::AccumulateGrad", {});
  leaf("aten::detach", {bf16({numel})});
}

void Synthesizer::layer_norm_backward() {
  Scope node = grad_node(TP_GRAD_NODE("NativeLayerNormBackward0"));
  const In x = bf16({B, S, H});
  Scope o = op("aten::native_layer_norm_backward",
               {x, x, scalar(hidden_list_, "ScalarList"), f32({B, S, 1}), f32({B, S, 1}), bf16({H}),
                bf16({H}), scalar("[True, True, True]", "ScalarList")});
  memory(T * H * 2);
  kernel(K::kLayerNormBackward, memory_ns(T * H * 6), Grid{T, 1, 1});
  kernel(K::kGammaBeta, memory_ns(T * H * 4), Grid{ceil_div(H, 32), 1, 1});
}

// c10d::allreduce_ as ProcessGroupNCCL records it: the comm stream waits for the compute
// stream's event, then the kernel runs under nccl:all_reduce.
// `duration` 0: the time the ring takes at the link's bus bandwidth.
void Synthesizer::all_reduce(i64 bytes, K k, std::string_view dtype, i64 duration,
                             bool tensor_parallel) {
  dropping_ = o_.rank && o_.rank->drop_ppm > 0 && drop_rng_.next() % 1'000'000 < o_.rank->drop_ppm;
  if (dropping_) ++hidden_;
  all_reduce_events(bytes, k, dtype, duration, tensor_parallel);
  if (dropping_) --hidden_;
  dropping_ = false;
}

void Synthesizer::all_reduce_events(i64 bytes, K k, std::string_view dtype, i64 duration,
                                    bool tensor_parallel) {
  const i64 element = dtype == "Float" ? 4 : 2;
  if (o_.rank && !tensor_parallel) fill_gradient_bucket(bytes);
  const ProcessGroup* group =
      o_.rank ? (tensor_parallel ? o_.rank->tp_group : o_.rank->dp_group) : nullptr;
  const Collective collective{bytes / element, dtype, tensor_parallel ? ++tp_seq_ : ++group_seq_,
                              group};
  // Each process group has its own NCCL stream.
  Stream& stream = tensor_parallel ? tp_comm_ : comm_;
  Scope c10d =
      op("c10d::allreduce_",
         {tensor(dtype == "Float" ? "float" : "c10::BFloat16", {bytes / element}), scalar("", "")});
  open_comm_op(collective);
  Scope comms(*this, 1);
  runtime_call(v_.event_record, kCbidEventRecord);
  runtime_call(v_.stream_wait_event, kCbidStreamWaitEvent);
  stream.free_at = std::max(stream.free_at, compute_.free_at);
  Scope nccl = annotation("nccl:all_reduce", -1, false);
  // Sent and received per rank in a ring of n: 2 (n - 1) / n of the message.
  const i64 n = group ? static_cast<i64>(group->ranks.size()) : world();
  const i64 ring_bytes = 2 * bytes * (n - 1) / n;
  if (duration == 0) duration = ring_bytes / v_.busbw_gbps + 8000;
  // --slow-link: a group with a slow member moves its bytes at that fraction of the bandwidth,
  // so the whole transfer takes 1000 / link_permille as long.
  if (group && group->link_permille != 1000) duration = duration * 1000 / group->link_permille;
  kernel(k, duration, Grid{24, 1, 1}, stream, {.collective = &collective});
}

// Megatron's tensor-parallel all-reduce of the activations (B x S x H in BF16): forward, the
// partial sums of the row-parallel attention output and MLP down projections; backward, the
// input gradients of the column-parallel QKV and MLP up projections. What follows needs the
// reduced tensor: the compute stream waits for it. A no-op without --tp.
void Synthesizer::tp_all_reduce(bool backward) {
  if (!tensor_parallel()) return;
  Scope py = python(backward ? "megatron/core/tensor_parallel/mappings.py(246): backward"
                             : "megatron/core/tensor_parallel/mappings.py(242): forward");
  Scope reduce = python("megatron/core/tensor_parallel/mappings.py(21): _reduce");
  Scope all = python("torch/distributed/distributed_c10d.py(2501): all_reduce");
  all_reduce(T * H * 2, K::kAllReduce, "BFloat16", 0, true);
  compute_.free_at = std::max(compute_.free_at, tp_comm_.free_at);
}

// --skew-us before a tensor-parallel all-reduce: the kernel that produces its input takes up
// to that much longer on each rank (the gradient buckets' copy does it for the others).
void Synthesizer::delay_next_kernel() {
  if (tensor_parallel() && o_.rank->skew_ns > 0)
    next_kernel_delay_ns_ = rng_.between(0, o_.rank->skew_ns);
}

// PyTorch FSDP (synth --collectives fsdp), one FSDP unit per layer: before the layer's forward
// and again before its backward the unit all-gathers its flat parameter on the data-parallel
// group, and the compute that needs it waits for the gather (the compute stream waits on the NCCL
// stream); after its backward it reduce-scatters its gradients. A gather waits for no compute,
// except the step's first (the optimizer updated the shards), so it runs as soon as the host
// issues it and the NCCL stream is free; the reduce-scatter waits for the gradients. No-ops
// without fsdp.
void Synthesizer::fsdp_all_gather(bool backward, bool after_optimizer) {
  if (!fsdp()) return;
  Scope hook =
      python(backward ? "torch/distributed/fsdp/_runtime_utils.py(663): _pre_backward_hook"
                      : "torch/distributed/fsdp/_runtime_utils.py(410): _pre_forward_unshard");
  Scope unshard = python("torch/distributed/fsdp/_runtime_utils.py(290): _unshard");
  Scope flat = python("torch/distributed/fsdp/_flat_param.py(1332): unshard");
  Scope gather = python("torch/distributed/fsdp/_flat_param.py(1422): _all_gather_flat_param");
  Scope c10d = python("torch/distributed/distributed_c10d.py(2948): all_gather_into_tensor");
  fsdp_collective(false, after_optimizer);
  compute_.free_at = std::max(compute_.free_at, comm_.free_at);
  // --skew-us: the layer's backward, whose gradients the reduce-scatter waits for, starts with
  // a kernel that takes up to that much longer.
  if (backward && o_.rank->skew_ns > 0) next_kernel_delay_ns_ = rng_.between(0, o_.rank->skew_ns);
}

void Synthesizer::fsdp_reduce_scatter() {
  if (!fsdp()) return;
  Scope hook = python("torch/distributed/fsdp/_runtime_utils.py(715): _post_backward_hook");
  Scope reduce = python("torch/distributed/fsdp/_runtime_utils.py(803): _reduce_grad");
  Scope c10d = python("torch/distributed/distributed_c10d.py(3392): reduce_scatter_tensor");
  fsdp_collective(true, true);
}

void Synthesizer::fsdp_collective(bool reduce_scatter, bool wait_for_compute) {
  dropping_ = o_.rank->drop_ppm > 0 && drop_rng_.next() % 1'000'000 < o_.rank->drop_ppm;
  if (dropping_) ++hidden_;
  fsdp_collective_events(reduce_scatter, wait_for_compute);
  if (dropping_) --hidden_;
  dropping_ = false;
}

// `c10d::_allgather_base_` / `c10d::_reduce_scatter_base_` as ProcessGroupNCCL records them.
// The unit's flat parameter: the layer's 12 H^2 BF16 weights (its 1/T share with --tp), padded
// to a multiple of the group size n; each rank holds 1/n of it. The ring moves (n - 1) / n of
// the whole array (multi-rank.md §7.2) in 8 µs + that over the bus bandwidth.
void Synthesizer::fsdp_collective_events(bool reduce_scatter, bool wait_for_compute) {
  const ProcessGroup* group = o_.rank->dp_group;
  const i64 n = static_cast<i64>(group->ranks.size());
  const i64 tp = o_.rank->tp_group ? static_cast<i64>(o_.rank->tp_group->ranks.size()) : 1;
  const i64 shard = ceil_div(ceil_div(12 * H * H, tp), n);
  const i64 whole = shard * n;
  const Collective collective{reduce_scatter ? whole : shard,
                              "BFloat16",
                              ++group_seq_,
                              group,
                              reduce_scatter ? "_reduce_scatter_base" : "_allgather_base",
                              reduce_scatter ? shard : whole,
                              reduce_scatter ? "reducescatter" : "allgather"};
  // Input Dims: the output tensor, the input tensor, the process group.
  Scope c10d = op(reduce_scatter ? "c10d::_reduce_scatter_base_" : "c10d::_allgather_base_",
                  {bf16({reduce_scatter ? shard : whole}), bf16({reduce_scatter ? whole : shard}),
                   scalar("", "")});
  open_comm_op(collective);
  Scope comms(*this, 1);
  runtime_call(v_.event_record, kCbidEventRecord);
  runtime_call(v_.stream_wait_event, kCbidStreamWaitEvent);
  if (wait_for_compute) comm_.free_at = std::max(comm_.free_at, compute_.free_at);
  Scope nccl =
      annotation(reduce_scatter ? "nccl:_reduce_scatter_base" : "nccl:_all_gather_base", -1, false);
  i64 duration = whole * 2 * (n - 1) / n / v_.busbw_gbps + 8000;
  if (group->link_permille != 1000) duration = duration * 1000 / group->link_permille;
  kernel(reduce_scatter ? K::kReduceScatter : K::kAllGather, duration, Grid{24, 1, 1}, comm_,
         {.collective = &collective});
}

// DDP copies a bucket's gradients into one flat buffer before reducing it; with --skew-us the
// copy takes up to that much longer on each rank, so that ranks reach the collective apart.
void Synthesizer::fill_gradient_bucket(i64 bytes) {
  Scope copy = op("aten::copy_", {bf16({bytes / 2}), bf16({bytes / 2}), scalar("True")});
  const i64 skew = o_.rank->skew_ns > 0 ? rng_.between(0, o_.rank->skew_ns) : 0;
  kernel(K::kAdd, memory_ns(2 * bytes) + skew, flat_grid(bytes / 2));
}

// The ranks meet: this rank's part of the collective runs from its own start to the common
// end (the last arrival plus the transfer), plus up to 2 µs of its own.
i64 Synthesizer::meet_at_collective(Stream& stream, i64 start, i64 transfer, i64 correlation,
                                    const Collective& c) {
  const std::uint64_t position = collectives_++;
  // The group's k-th instance; every member counts its Seq alike.
  const std::uint64_t instance = static_cast<std::uint64_t>(c.seq - 1);
  Rendezvous& meeting = *o_.rank->rendezvous;
  const i64 end =
      meeting.arrive(o_.rank->rank, c.group->id, instance, position, start, transfer, c.kind) +
      rng_.between(0, 2000);
  meeting.record(o_.rank->rank, c.group->id, instance, end, correlation, !dropping_);
  joined_.push_back({c.group->id, instance, start, end});
  stream.free_at = end;
  stream.pending.back() = end;
  return end - start;
}

// Multi-rank only: a computation kernel this rank's file shows (what hides its collectives).
void Synthesizer::record_computation(std::string_view cat, i64 start, i64 duration,
                                     const Placement& placement) {
  if (!o_.rank || cat != "kernel" || placement.collective || graph_correlation_) return;
  computation_.push_back({start, start + duration});
}

// Tells the rendezvous how much of each collective this rank met ran with no computation
// kernel beside it (multi-rank.md §7.1's exposure x_r, per mille), from the kernels as written.
void Synthesizer::report_exposures() {
  if (!o_.rank) return;
  std::sort(computation_.begin(), computation_.end(),
            [](const Busy& a, const Busy& b) { return a.start < b.start; });
  std::vector<Busy> busy;  // the union, disjoint and ascending
  for (const Busy& k : computation_) {
    if (!busy.empty() && k.start <= busy.back().end)
      busy.back().end = std::max(busy.back().end, k.end);
    else
      busy.push_back(k);
  }
  for (const Joined& c : joined_) {
    i64 covered = 0;
    auto it = std::lower_bound(busy.begin(), busy.end(), c.start,
                               [](const Busy& b, i64 t) { return b.end <= t; });
    for (; it != busy.end() && it->start < c.end; ++it)
      covered += std::min(it->end, c.end) - std::max(it->start, c.start);
    const i64 duration = c.end - c.start;
    const i64 permille = duration > 0 ? (duration - covered) * 1000 / duration : 0;
    o_.rank->rendezvous->record_exposure(o_.rank->rank, c.group, c.instance, permille);
  }
}

void Synthesizer::optimizer_step() {
  {
    Scope step = annotation("Optimizer.step#AdamW.step");
    Scope py = python("torch/optim/adamw.py(187): step");
    // The update reads the reduced gradients: the compute stream waits for the NCCL stream.
    compute_.free_at = std::max(compute_.free_at, comm_.free_at);
    Scope fused = op("aten::_fused_adamw_", {bf16({H, H}), bf16({H, H}), f32({H, H}), f32({H, H}),
                                             scalar("0.0001"), scalar("0.9"), scalar("0.999")});
    // multi_tensor_apply handles up to 110 tensors per launch; each layer has 16 tensors.
    const i64 tensors = 16 * o_.layers + 6;
    const i64 launches = ceil_div(tensors, 110);
    const i64 params = (12 * H * H * o_.layers + 2 * kVocab * H) / launches;
    for (i64 i = 0; i < launches; ++i) {
      kernel(K::kAdamW, memory_ns(params * 22), Grid{ceil_div(params, 65536) * 4, 1, 1});
    }
  }
  Scope zero_grad = annotation("Optimizer.zero_grad#AdamW.zero_grad");
  work(20'000, 60'000);  // set_to_none over every parameter
}

SynthSummary Synthesizer::run() {
  write_header();
  const int min_steps = std::max(1, o_.steps);
  const double target_bytes = o_.target_mb * 1e6;
  int steps = 0;
  auto wants_step = [&] {
    const bool wanted =
        o_.graph == GraphMode::kCapture
            ? steps < 1
            : steps < min_steps || static_cast<double>(out_.bytes_written()) < target_bytes;
    return o_.rank ? o_.rank->rendezvous->another_step(steps, wanted) : wanted;
  };
  while (wants_step()) {
    if (o_.graph == GraphMode::kReplay)
      serving_step();
    else if (o_.graph == GraphMode::kCapture)
      capture();
    else
      step(kFirstStep + steps);
    ++steps;
  }
  write_metadata();
  out_.write("\n]\n}\n");
  report_exposures();
  summary_.steps = steps;
  summary_.json_bytes = out_.bytes_written();
  return summary_;
}

}  // namespace detail

void check_injections(const SynthOptions& options) {
  std::array<bool, kProblemCount> seen{};
  for (const Injection& injection : options.inject) {
    const ProblemInfo& info = problem_info(injection.problem);
    if (seen[static_cast<std::size_t>(injection.problem)]) {
      throw std::invalid_argument("--inject " + std::string(info.name) +
                                  " is given twice; give each kind once.");
    }
    seen[static_cast<std::size_t>(injection.problem)] = true;
    if (injection.amount_ns < 1) {
      throw std::invalid_argument("--inject " + std::string(info.name) +
                                  " needs a positive amount.");
    }
    if (injection.problem == Problem::kRecompute && !options.training) {
      throw std::invalid_argument(
          "--inject recompute needs a backward pass to recompute in; drop --inference.");
    }
  }
  if (options.graph != GraphMode::kEager && (options.training || !options.inject.empty())) {
    throw std::invalid_argument(
        "--graph-replay writes a serving trace: it needs --inference and no --inject.");
  }
}

SynthSummary write_synthetic_trace(const SynthOptions& options, io::OutputFile& out) {
  if (options.layers < 1 || options.batch < 1 || options.sequence < 1 || options.hidden < 1) {
    throw std::invalid_argument(
        "synthetic trace: layers, batch, sequence and hidden must be positive");
  }
  check_injections(options);
  return detail::Synthesizer(options, out).run();
}

}  // namespace traceprism::synth
