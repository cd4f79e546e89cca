#include "synth/synthetic_trace.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::synth {

namespace {

using i64 = std::int64_t;

constexpr i64 kHostPid = 19392;
constexpr i64 kMainTid = 19392;
constexpr i64 kAutogradTid = 19460;  // backward runs on the autograd engine's device thread
constexpr i64 kTraceStartNs = 1'419'247'332'500'000;
constexpr int kFirstStep = 2;  // what a wait=1, warmup=1 profiler schedule records first
constexpr i64 kVocab = 32000;
constexpr i64 kNoSeq = -1;

// splitmix64: std:: distributions are implementation-defined, and the output must be
// byte-identical for a seed whatever the standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi]; the modulo bias is far below anything visible in a trace.
  i64 between(i64 lo, i64 hi) {
    return lo + static_cast<i64>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  i64 jitter(i64 value, i64 percent) {
    i64 span = value * percent / 100;
    return value + between(-span, span);
  }

 private:
  std::uint64_t state_;
};

// ---- JSON text. Numbers go through std::to_chars and integer fixed point, never a double, so
// the text is exact and identical everywhere.

void append_int(std::string& s, i64 v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

// `scaled` / 10^decimals, e.g. (984848, 6) -> "0.984848"; timestamps are (ns, 3) -> microseconds.
void append_fixed(std::string& s, i64 scaled, int decimals) {
  if (scaled < 0) {
    s += '-';
    scaled = -scaled;
  }
  i64 unit = 1;
  for (int i = 0; i < decimals; ++i) unit *= 10;
  append_int(s, scaled / unit);
  s += '.';
  char digits[18];
  i64 frac = scaled % unit;
  for (int i = decimals - 1; i >= 0; --i, frac /= 10)
    digits[i] = static_cast<char>('0' + frac % 10);
  s.append(digits, static_cast<std::size_t>(decimals));
}

// Writes one JSON object into a reused buffer: '{' on construction, '}' on close(). Keys and
// string values are trusted literals from this file, so nothing needs escaping.
class Fields {
 public:
  explicit Fields(std::string& s) : s_(s) { s_ += '{'; }
  Fields& num(std::string_view key, i64 v) {
    write_key(key);
    append_int(s_, v);
    return *this;
  }
  Fields& fixed(std::string_view key, i64 scaled, int decimals) {
    write_key(key);
    append_fixed(s_, scaled, decimals);
    return *this;
  }
  Fields& time(std::string_view key, i64 ns) { return fixed(key, ns, 3); }
  Fields& str(std::string_view key, std::string_view v, int suffix = -1) {
    write_key(key);
    s_ += '"';
    s_ += v;
    if (suffix >= 0) append_int(s_, suffix);
    s_ += '"';
    return *this;
  }
  Fields& raw(std::string_view key, std::string_view json) {
    write_key(key);
    s_ += json;
    return *this;
  }
  template <std::size_t N>
  Fields& list(std::string_view key, const std::array<i64, N>& values, std::size_t size = N) {
    write_key(key);
    s_ += '[';
    for (std::size_t i = 0; i < size; ++i) {
      if (i > 0) s_ += ',';
      append_int(s_, values[i]);
    }
    s_ += ']';
    return *this;
  }
  Fields object(std::string_view key) {
    write_key(key);
    return Fields(s_);
  }
  void close() { s_ += '}'; }

 private:
  void write_key(std::string_view key) {
    if (!first_) s_ += ',';
    first_ = false;
    s_ += '"';
    s_ += key;
    s_ += "\":";
  }
  std::string& s_;
  bool first_ = true;
};

// ---- What differs between vendors. Throughputs are sustained rates, not datasheet peaks.

struct VendorSpec {
  std::string_view device_properties;
  std::string_view runtime_version;  // the top-level key and value, as JSON
  i64 gpu_pid, compute_stream, comm_stream;
  std::string_view launch, library_launch, comm_launch, memcpy, memset, stream_sync, device_sync;
  i64 gemm_tflops, attention_tflops, hbm_gbps, pageable_gbps, busbw_gbps;
  i64 sms, max_warps_per_sm, warp_size;
  bool amd;
};

// clang-format off
constexpr VendorSpec kNvidia{
    R"({"id":0,"name":"NVIDIA H100 80GB HBM3","totalGlobalMem":85018279936,"computeMajor":9,"computeMinor":0,"maxThreadsPerBlock":1024,"maxThreadsPerMultiprocessor":2048,"regsPerBlock":65536,"warpSize":32,"sharedMemPerBlock":49152,"numSms":132,"regsPerMultiprocessor":65536,"sharedMemPerBlockOptin":232448,"sharedMemPerMultiprocessor":233472})",
    R"("cuda_runtime_version":12040)", 0, 7, 20,
    "cudaLaunchKernel", "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync",
    "cudaMemsetAsync", "cudaStreamSynchronize", "cudaDeviceSynchronize",
    600, 420, 2600, 10, 360, 132, 64, 32, false};

constexpr VendorSpec kAmd{
    R"({"id":0,"name":"AMD Instinct MI300X","totalGlobalMem":205822885888,"computeMajor":9,"computeMinor":4,"maxThreadsPerBlock":1024,"maxThreadsPerMultiprocessor":2048,"regsPerBlock":65536,"warpSize":64,"sharedMemPerBlock":65536,"numSms":304,"regsPerMultiprocessor":65536,"sharedMemPerBlockOptin":65536,"sharedMemPerMultiprocessor":65536})",
    R"("hip_runtime_version":60241134)", 2, 0, 1,
    "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipExtLaunchKernel", "hipMemcpyAsync",
    "hipMemsetAsync", "hipStreamSynchronize", "hipDeviceSynchronize",
    520, 330, 3700, 12, 300, 304, 32, 64, true};
// clang-format on

// CUPTI callback ids, as Kineto reports them in args.cbid.
constexpr int kCbidLaunch = 211, kCbidLaunchEx = 430, kCbidMemcpy = 41, kCbidMemset = 51,
              kCbidStreamSync = 131, kCbidDeviceSync = 165;

// clang-format off
enum class K : std::uint8_t {
  kGemmFwd, kGemmDgrad, kGemmWgrad, kAdd, kMul, kGelu, kGeluBackward, kLayerNorm,
  kLayerNormBackward, kGammaBeta, kFlashFwd, kFlashBwd, kEmbedding, kEmbeddingBackward,
  kSoftmax, kLogSoftmax, kLogSoftmaxBackward, kNllLoss, kNllLossBackward, kAdamW, kAllReduce,
};
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

constexpr std::array<KernelSpec, 21> kKernels{{
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
}};

// clang-format on
#undef TP_GELU
#undef TP_ELEMENTWISE

// One input of a cpu_op, as "Input Dims" / "Input type" / "Input Strides" / "Concrete Inputs".
struct In {
  std::array<i64, 4> dims{};
  int rank = 0;
  std::string_view type;
  std::string_view concrete;
  bool transposed = false;  // a .t() view of a 2-D tensor: the strides of the transpose
};

In tensor(std::string_view type, std::initializer_list<i64> dims, bool transposed = false) {
  In in;
  in.type = type;
  in.transposed = transposed;
  for (i64 d : dims) in.dims[in.rank++] = d;
  return in;
}
In bf16(std::initializer_list<i64> dims, bool transposed = false) {
  return tensor("c10::BFloat16", dims, transposed);
}
In f32(std::initializer_list<i64> dims) {
  return tensor("float", dims);
}
In i64t(std::initializer_list<i64> dims) {
  return tensor("long int", dims);
}
In scalar(std::string_view value, std::string_view type = "Scalar") {
  In in;
  in.type = type;
  in.concrete = value;
  return in;
}

// `"key":[...]` with one item per input, written by `item`.
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

struct Grid {
  i64 x, y, z;
};

i64 ceil_div(i64 a, i64 b) {
  return (a + b - 1) / b;
}

// An autograd node as the backward thread records it: the engine's wrapper and the node itself.
struct GradNode {
  std::string_view evaluate, node;
};
#define TP_GRAD_NODE(n)                          \
  GradNode {                                     \
    "autograd::engine::evaluate_function: " n, n \
  }

class Synthesizer {
 public:
  Synthesizer(const SynthOptions& o, io::OutputFile& out)
      : o_(o),
        v_(o.vendor == Vendor::kAmd ? kAmd : kNvidia),
        out_(out),
        rng_(o.seed),
        B(o.batch),
        S(o.sequence),
        H(o.hidden),
        T(B * S),
        heads_(std::max<i64>(1, H / 128)),
        hidden_list_("[" + std::to_string(H) + "]"),
        flat_shape_("[" + std::to_string(T) + ", " + std::to_string(H) + "]"),
        compute_{v_.compute_stream, kTraceStartNs},
        comm_{v_.comm_stream, kTraceStartNs} {}

  SynthSummary run();

 private:
  enum class Kind : std::uint8_t { kAnnotation, kPython, kOp, kRuntime, kInstant };
  // A host event of the current step. Host events are kept until the step ends because a
  // parent's duration is only known after its children, and Kineto lists parents first.
  struct HostEvent {
    Kind kind;
    std::string_view cat, name;
    int suffix;
    i64 tid, start, end;
    std::size_t args_begin, args_end;  // its "args" object, in args_
    i64 flow;                          // ac2g flow id started at this runtime call, or -1
  };
  struct Stream {
    i64 id, free_at;
  };
  // Closes the spans it was opened with when it leaves scope, which keeps the op tree's shape
  // visible in the code that builds it.
  class [[nodiscard]] Scope {
   public:
    Scope(Synthesizer& s, int spans) : s_(s), spans_(spans) {}
    ~Scope() {
      for (int i = 0; i < spans_; ++i) s_.close();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Synthesizer& s_;
    int spans_;
  };

  // -- document
  void write_header();
  void write_metadata();
  Fields begin_event(std::string& buf, std::string_view ph, std::string_view cat,
                     std::string_view name, int suffix, i64 pid, i64 tid, i64 ts);
  void emit(std::string& buf);
  void flush_step();

  // -- host timeline
  void work(i64 lo_ns, i64 hi_ns) { now_ += rng_.between(lo_ns, hi_ns); }
  std::size_t open(Kind kind, std::string_view cat, std::string_view name, int suffix);
  void close();
  void open_annotation(std::string_view name, int suffix);
  void open_python(std::string_view name, int suffix);
  void open_op(std::string_view name, std::initializer_list<In> inputs, i64 seq);
  Scope annotation(std::string_view name, int suffix = -1) {
    open_annotation(name, suffix);
    return Scope(*this, 1);
  }
  Scope python(std::string_view name, int suffix = -1) {
    open_python(name, suffix);
    return Scope(*this, 1);
  }
  Scope op(std::string_view name, std::initializer_list<In> inputs, i64 seq = kNoSeq) {
    open_op(name, inputs, seq);
    return Scope(*this, 1);
  }
  Scope module(std::string_view name, int index, std::string_view forward);
  void leaf(std::string_view name, std::initializer_list<In> inputs) {
    open_op(name, inputs, kNoSeq);
    close();
  }
  Scope grad_node(GradNode node);
  void memory(i64 bytes);
  i64 take_seq();
  i64 pop_seq();

  // -- GPU
  struct Call {
    i64 correlation, start;
  };
  i64 current_ext() const { return ext_stack_.empty() ? 0 : ext_stack_.back(); }
  Call runtime_call(std::string_view name, int cbid, i64 wait_until = 0);
  i64 place(Stream& stream, i64 launch_start, i64 duration);
  template <class ExtraArgs>
  void launch(std::string_view api, int cbid, std::string_view cat, std::string_view name,
              Stream& stream, i64 duration, ExtraArgs&& extra_args);
  void kernel(K k, i64 duration, Grid grid, Stream& stream);
  void kernel(K k, i64 duration, Grid grid) { kernel(k, duration, grid, compute_); }
  void memcpy(bool to_device, i64 bytes);
  void memset(i64 bytes);
  void synchronize(bool whole_device);
  i64 gemm_ns(i64 m, i64 n, i64 k) const { return 2 * m * n * k / (v_.gemm_tflops * 1000) + 3000; }
  i64 memory_ns(i64 bytes) const { return bytes / v_.hbm_gbps + 2000; }
  i64 attention_ns(bool backward) const {
    i64 flops = 2 * B * S * S * H;  // causal: half of the 4*B*S*S*H of full attention
    if (backward) flops = flops * 5 / 2;
    return flops / (v_.attention_tflops * 1000) + 5000;
  }
  static Grid gemm_grid(i64 m, i64 n) { return {ceil_div(n, 128), ceil_div(m, 128), 1}; }
  static Grid flat_grid(i64 numel) { return {ceil_div(numel, 512), 1, 1}; }

  // -- the workload
  void step(int number);
  void forward();
  void layer_forward(int layer);
  void linear(int index, i64 in, i64 out);
  void layer_norm(int index);
  void elementwise(std::string_view name, K k, std::initializer_list<In> inputs, i64 numel);
  void loss();
  void backward();
  void layer_backward();
  void linear_backward(i64 in, i64 out, bool bias);
  void layer_norm_backward();
  void accumulate_grad(i64 numel);
  void all_reduce(i64 bytes);
  void optimizer_step();

  const SynthOptions& o_;
  const VendorSpec& v_;
  io::OutputFile& out_;
  Rng rng_;
  const i64 B, S, H, T, heads_;
  const std::string hidden_list_;  // the normalized_shape argument of layer_norm, "[1024]"
  const std::string flat_shape_;   // [tokens, hidden], the LM head's view of its input

  i64 now_ = kTraceStartNs;  // host clock
  i64 tid_ = kMainTid;       // the host thread recording now
  Stream compute_, comm_;
  i64 step_gpu_begin_ = 0, step_gpu_end_ = 0, step_ext_ = 0;

  std::vector<HostEvent> events_;
  std::vector<std::size_t> open_;  // indexes in events_ of the spans still open
  std::vector<i64> ext_stack_, python_stack_, seqs_;
  std::string args_, host_buf_, gpu_buf_;  // reused every step: no allocation after the first
  i64 next_ext_ = 1, next_correlation_ = 1, next_python_id_ = 1, next_seq_ = 1, ev_idx_ = 0;
  i64 allocated_ = 0, next_addr_ = 0;
  bool first_event_ = true;
  SynthSummary summary_;
};

// ---- document

void Synthesizer::write_header() {
  std::string h;
  h += "{\n\"schemaVersion\":1,\n\"deviceProperties\":[\n";
  h += v_.device_properties;
  h += "\n],\n";
  h += v_.runtime_version;
  h += ",\n\"record_shapes\":1,\n\"with_stack\":1,\n\"displayTimeUnit\":\"ms\",\n";
  h += "\"baseTimeNanoseconds\":1700000000000000000,\n";
  if (o_.nccl) h += "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0,\"world_size\":8},\n";
  h += "\"traceEvents\":[";
  out_.write(h);
}

void Synthesizer::write_metadata() {
  // `text` empty: the value is `number`.
  auto meta = [&](i64 pid, i64 tid, std::string_view what, std::string_view key,
                  std::string_view text, i64 number) {
    host_buf_ += ",\n";
    ++summary_.events;
    Fields ev(host_buf_);
    ev.str("name", what).str("ph", "M").time("ts", kTraceStartNs).num("pid", pid).num("tid", tid);
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
  if (o_.nccl) thread(gpu, comm_.id, "stream " + std::to_string(comm_.id) + " ");
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
  ev.time("ts", ts);
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
      flow.time("ts", e.start).str("cat", "ac2g").str("name", "ac2g").close();
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
  events_.push_back({kind, cat, name, suffix, tid_, now_, now_, args_.size(), args_.size(), -1});
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

void Synthesizer::open_annotation(std::string_view name, int suffix) {
  std::size_t i = open(Kind::kAnnotation, "user_annotation", name, suffix);
  ext_stack_.push_back(next_ext_++);
  Fields args(args_);
  args.num("External id", ext_stack_.back()).num("Record function id", 0).num("Ev Idx", ev_idx_++);
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
                     args_.size(), args_.size(), -1});
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
  if (!o_.training) return kNoSeq;
  seqs_.push_back(next_seq_++);
  return seqs_.back();
}

i64 Synthesizer::pop_seq() {
  i64 seq = seqs_.back();
  seqs_.pop_back();
  return seq;
}

// ---- GPU

// The call's flow start is recorded for every call; syncs get no flow end, as in real traces.
Synthesizer::Call Synthesizer::runtime_call(std::string_view name, int cbid, i64 wait_until) {
  const std::size_t i = open(Kind::kRuntime, "cuda_runtime", name, -1);
  const i64 correlation = next_correlation_++;
  Fields args(args_);
  args.num("External id", current_ext()).num("cbid", cbid).num("correlation", correlation).close();
  events_[i].args_end = args_.size();
  events_[i].flow = correlation;
  work(2000, 6000);
  if (wait_until > 0) now_ = std::max(now_, wait_until + rng_.between(1000, 3000));
  const Call call{correlation, events_[i].start};
  close();
  return call;
}

// Each stream runs its work in order: an activity starts once the stream is free and the launch
// has reached the device. When the host is the slower side this leaves idle gaps on the GPU.
i64 Synthesizer::place(Stream& stream, i64 launch_start, i64 duration) {
  const i64 start =
      std::max(stream.free_at + rng_.between(700, 2000), launch_start + rng_.between(4000, 9000));
  stream.free_at = start + duration;
  if (&stream == &compute_) {
    if (step_gpu_begin_ == 0) step_gpu_begin_ = start;
    step_gpu_end_ = stream.free_at;
  }
  return start;
}

// One GPU activity: the runtime call on the host, the activity on `stream`, and the ac2g flow
// between them. `extra_args` appends the activity-specific args.
template <class ExtraArgs>
void Synthesizer::launch(std::string_view api, int cbid, std::string_view cat,
                         std::string_view name, Stream& stream, i64 duration,
                         ExtraArgs&& extra_args) {
  const i64 ext = current_ext();
  const Call call = runtime_call(api, cbid);
  const i64 start = place(stream, call.start, duration);
  ++summary_.gpu_events;
  Fields ev = begin_event(gpu_buf_, "X", cat, name, -1, v_.gpu_pid, stream.id, start);
  ev.time("dur", duration);
  Fields args = ev.object("args");
  args.num("External id", ext);
  if (cat == "kernel") args.num("queued", 0);
  args.num("device", 0).num("context", 1).num("stream", stream.id);
  args.num("correlation", call.correlation);
  extra_args(args);
  args.close();
  ev.close();
  gpu_buf_ += ",\n";
  ++summary_.events;
  Fields flow(gpu_buf_);
  flow.str("ph", "f").num("id", call.correlation).num("pid", v_.gpu_pid).num("tid", stream.id);
  flow.time("ts", start).str("cat", "ac2g").str("name", "ac2g").str("bp", "e").close();
}

void Synthesizer::kernel(K k, i64 duration, Grid grid, Stream& stream) {
  const KernelSpec& spec = kKernels[static_cast<std::size_t>(k)];
  const bool comm = k == K::kAllReduce;
  const std::string_view api = comm ? v_.comm_launch : spec.library ? v_.library_launch : v_.launch;
  const std::string_view name = v_.amd && !spec.amd.empty() ? spec.amd : spec.nvidia;
  const i64 blocks = grid.x * grid.y * grid.z;
  const i64 warps = blocks * ceil_div(spec.block, v_.warp_size);
  const i64 occupancy =
      std::clamp<i64>(warps * 100 / (v_.sms * v_.max_warps_per_sm), 1, spec.occupancy);
  launch(
      api, comm ? kCbidLaunchEx : kCbidLaunch, "kernel", name, stream, rng_.jitter(duration, 4),
      [&](Fields& args) {
        args.num("registers per thread", spec.registers).num("shared memory", spec.shared_memory);
        args.fixed("blocks per SM", blocks * 1'000'000 / v_.sms, 6);
        args.fixed("warps per SM", warps * 1'000'000 / v_.sms, 6);
        args.list("grid", std::array<i64, 3>{grid.x, grid.y, grid.z});
        args.list("block", std::array<i64, 3>{spec.block, 1, 1});
        args.num("est. achieved occupancy %", occupancy);
      });
}

void Synthesizer::memcpy(bool to_device, i64 bytes) {
  // Pageable host memory goes through a staging buffer, hence the low bandwidth.
  const i64 dur = rng_.jitter(bytes / v_.pageable_gbps + 1500, 5);
  launch(v_.memcpy, kCbidMemcpy, "gpu_memcpy",
         to_device ? "Memcpy HtoD (Pageable -> Device)" : "Memcpy DtoH (Device -> Pinned)",
         compute_, dur, [&](Fields& args) {
           args.num("bytes", bytes).fixed("memory bandwidth (GB/s)", bytes * 1'000'000 / dur, 6);
         });
}

void Synthesizer::memset(i64 bytes) {
  const i64 dur = rng_.jitter(memory_ns(bytes), 5);
  launch(v_.memset, kCbidMemset, "gpu_memset", "Memset (Device)", compute_, dur, [&](Fields& args) {
    args.num("bytes", bytes).fixed("memory bandwidth (GB/s)", bytes * 1'000'000 / dur, 6);
  });
}

void Synthesizer::synchronize(bool whole_device) {
  const i64 drained = whole_device ? std::max(compute_.free_at, comm_.free_at) : compute_.free_at;
  runtime_call(whole_device ? v_.device_sync : v_.stream_sync,
               whole_device ? kCbidDeviceSync : kCbidStreamSync, drained);
}

// ---- the workload: a decoder-only transformer, LayerNorm -> attention -> LayerNorm -> MLP

void Synthesizer::step(int number) {
  step_gpu_begin_ = 0;
  open_annotation("ProfilerStep#", number);
  step_ext_ = current_ext();
  {
    Scope profiler_step(*this, 1);
    {
      Scope next = annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
      Scope py = python("torch/utils/data/dataloader.py(631): __next__");
      work(150'000, 600'000);  // collating the batch on the host: the GPU sits idle meanwhile
    }
    {
      Scope train = python("train.py(42): train_step");
      for (int i = 0; i < (o_.training ? 2 : 1); ++i) {  // input ids, then labels
        Scope to = op("aten::to", {i64t({B, S}), scalar("", ""), scalar("4"), scalar("False")});
        Scope to_copy = op("aten::_to_copy", {i64t({B, S}), scalar("4"), scalar("False")});
        leaf("aten::empty_strided", {scalar("", "ScalarList"), scalar("", "ScalarList")});
        Scope copy = op("aten::copy_", {i64t({B, S}), i64t({B, S}), scalar("True")});
        memcpy(true, T * 8);
      }
      {
        Scope zeros = op("aten::zeros", {scalar("", "ScalarList"), scalar("4")});
        Scope zero = op("aten::zero_", {i64t({B, S})});
        memset(T * 8);
      }
      forward();
      if (o_.training) {
        loss();
        backward();
        optimizer_step();
      }
      Scope item = op("aten::item", {f32({})});
      Scope dense = op("aten::_local_scalar_dense", {f32({})});
      memcpy(false, 4);
      synchronize(false);
    }
    Scope py = python("torch/cuda/__init__.py(801): synchronize");
    synchronize(true);
  }
  ++summary_.gpu_events;
  Fields ev = begin_event(gpu_buf_, "X", "gpu_user_annotation", "ProfilerStep#", number, v_.gpu_pid,
                          compute_.id, step_gpu_begin_);
  ev.time("dur", step_gpu_end_ - step_gpu_begin_);
  ev.object("args").num("External id", step_ext_).close();
  ev.close();
  flush_step();
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
  for (int layer = 0; layer < o_.layers; ++layer) layer_forward(layer);
  layer_norm(2 * o_.layers);
  Scope head =
      module("nn.Module: Linear_", 4 * o_.layers, "torch/nn/modules/linear.py(125): forward");
  Scope linear = op("aten::linear", {bf16({B, S, H}), bf16({kVocab, H}), scalar("", "")});
  leaf("aten::t", {bf16({kVocab, H})});
  Scope matmul = op("aten::matmul", {bf16({B, S, H}), bf16({H, kVocab}, true)});
  leaf("aten::view", {bf16({B, S, H}), scalar(flat_shape_, "ScalarList")});
  Scope mm = op("aten::mm", {bf16({T, H}), bf16({H, kVocab}, true)}, take_seq());
  memory(T * kVocab * 2);
  kernel(K::kGemmFwd, gemm_ns(T, kVocab, H), gemm_grid(T, kVocab));
  if (!o_.training) {
    Scope softmax = op("aten::softmax", {bf16({B, S, kVocab}), scalar("-1"), scalar("", "")});
    Scope inner = op("aten::_softmax", {bf16({B, S, kVocab}), scalar("-1"), scalar("False")});
    kernel(K::kSoftmax, memory_ns(T * kVocab * 4), Grid{T, 1, 1});
  }
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
    linear(4 * layer + 1, H, H);
  }
  elementwise("aten::add", K::kAdd, {x, x, scalar("1")}, T * H);
  layer_norm(2 * layer + 1);
  {
    Scope mlp = module("nn.Module: MLP_", layer, "model.py(58): forward");
    linear(4 * layer + 2, H, 4 * H);
    elementwise("aten::gelu", K::kGelu, {bf16({B, S, 4 * H}), scalar("none", "str")}, T * 4 * H);
    linear(4 * layer + 3, 4 * H, H);
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
  linear_backward(H, kVocab, false);
  layer_norm_backward();
  const i64 layer_grad_bytes = 12 * H * H * 2;
  for (int layer = o_.layers - 1; layer >= 0; --layer) {
    layer_backward();
    // DDP reduces gradients in buckets of two layers, as soon as a bucket is complete.
    if (o_.nccl && layer % 2 == 0) {
      all_reduce(layer_grad_bytes * (layer + 1 < o_.layers ? 2 : 1));
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
  if (o_.nccl)
    all_reduce(2 * kVocab * H * 2);  // the embedding and LM-head bucket, last and exposed
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
  linear_backward(H, 4 * H, true);
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
  linear_backward(H, 3 * H, true);
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

void Synthesizer::all_reduce(i64 bytes) {
  Scope c10d = op("c10d::allreduce_", {bf16({bytes / 2}), scalar("", "")});
  Scope comms = op("record_param_comms", {bf16({bytes / 2})});
  // The collective waits (through a CUDA event) for the gradients the compute stream produces,
  // then overlaps with the rest of the backward pass.
  comm_.free_at = std::max(comm_.free_at, compute_.free_at);
  const i64 ring_bytes = 2 * bytes * 7 / 8;  // sent and received per rank, ring of 8
  kernel(K::kAllReduce, ring_bytes / v_.busbw_gbps + 8000, Grid{24, 1, 1}, comm_);
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
  while (steps < min_steps || static_cast<double>(out_.bytes_written()) < target_bytes) {
    step(kFirstStep + steps);
    ++steps;
  }
  write_metadata();
  out_.write("\n]\n}\n");
  summary_.steps = steps;
  summary_.json_bytes = out_.bytes_written();
  return summary_;
}

}  // namespace

SynthSummary write_synthetic_trace(const SynthOptions& options, io::OutputFile& out) {
  if (options.layers < 1 || options.batch < 1 || options.sequence < 1 || options.hidden < 1) {
    throw std::invalid_argument(
        "synthetic trace: layers, batch, sequence and hidden must be positive");
  }
  return Synthesizer(options, out).run();
}

}  // namespace traceprism::synth
