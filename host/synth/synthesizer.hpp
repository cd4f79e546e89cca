#pragma once

// The generator behind write_synthetic_trace, shared by synthetic_trace.cpp (the document, the
// host and GPU timelines, the transformer workload) and problem_events.cpp (the problems that
// --inject writes into each step). Not part of the synth API: include synthetic_trace.hpp.

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "io/output_file.hpp"
#include "synth/injected_problems.hpp"
#include "synth/synthetic_trace.hpp"

namespace traceprism::synth::detail {

using i64 = std::int64_t;

constexpr i64 kHostPid = 19392;
constexpr i64 kMainTid = 19392;
constexpr i64 kAutogradTid = 19460;  // backward runs on the autograd engine's device thread
constexpr i64 kTraceStartNs = 1'419'247'332'500'000;
// The header's baseTimeNanoseconds (node 0's clock); the absolute time of a ts is base + ts.
constexpr i64 kTraceBaseNs = 1'700'000'000'000'000'000;
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

inline void append_int(std::string& s, i64 v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

// `scaled` / 10^decimals, e.g. (984848, 6) -> "0.984848"; timestamps are (ns, 3) -> microseconds.
inline void append_fixed(std::string& s, i64 scaled, int decimals) {
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
  std::string_view malloc, free, event_record, stream_wait_event;
  i64 gemm_tflops, fp32_gemm_tflops, attention_tflops, hbm_gbps, pageable_gbps, busbw_gbps;
  i64 sms, max_warps_per_sm, warp_size;
  // The gap between two activities queued back to back on one stream, in ns.
  i64 queued_gap_lo, queued_gap_hi;
  bool amd;
};

const VendorSpec& vendor_spec(Vendor vendor);

// CUPTI callback ids, as Kineto reports them in args.cbid.
constexpr int kCbidLaunch = 211, kCbidLaunchEx = 430, kCbidMemcpy = 41, kCbidMemset = 51,
              kCbidStreamSync = 131, kCbidDeviceSync = 165, kCbidMalloc = 20, kCbidFree = 22,
              kCbidEventRecord = 135, kCbidStreamWaitEvent = 147;

// clang-format off
enum class K : std::uint8_t {
  kGemmFwd, kGemmDgrad, kGemmWgrad, kAdd, kMul, kGelu, kGeluBackward, kLayerNorm,
  kLayerNormBackward, kGammaBeta, kFlashFwd, kFlashBwd, kEmbedding, kEmbeddingBackward,
  kSoftmax, kLogSoftmax, kLogSoftmaxBackward, kNllLoss, kNllLossBackward, kAdamW, kAllReduce,
  // kernels of injected problems
  kSgemmFwd, kSgemmDgrad, kSgemmWgrad, kAllReduceLarge, kAllReduceSmall, kVectorNorm,
  kNchwToNhwc, kNhwcToNchw,
  // FSDP's collectives (synth --collectives fsdp)
  kAllGather, kReduceScatter,
};
// clang-format on

// One input of a cpu_op, as "Input Dims" / "Input type" / "Input Strides" / "Concrete Inputs".
struct In {
  std::array<i64, 4> dims{};
  int rank = 0;
  std::string_view type;
  std::string_view concrete;
  bool transposed = false;  // a .t() view of a 2-D tensor: the strides of the transpose
};

inline In tensor(std::string_view type, std::initializer_list<i64> dims, bool transposed = false) {
  In in;
  in.type = type;
  in.transposed = transposed;
  for (i64 d : dims) in.dims[in.rank++] = d;
  return in;
}
inline In bf16(std::initializer_list<i64> dims, bool transposed = false) {
  return tensor("c10::BFloat16", dims, transposed);
}
inline In f32(std::initializer_list<i64> dims) {
  return tensor("float", dims);
}
inline In i64t(std::initializer_list<i64> dims) {
  return tensor("long int", dims);
}
inline In scalar(std::string_view value, std::string_view type = "Scalar") {
  In in;
  in.type = type;
  in.concrete = value;
  return in;
}

struct Grid {
  i64 x, y, z;
};

inline i64 ceil_div(i64 a, i64 b) {
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

// A collective as record_param_comms and its kernel describe it.
struct Collective {
  i64 nelems;                           // In msg nelems
  std::string_view dtype;               // "BFloat16", "Float"
  i64 seq = 0;                          // the process group's sequence number (multi-rank traces)
  const ProcessGroup* group = nullptr;  // multi-rank: the group it runs on
  std::string_view name = "allreduce";  // "Collective name": "_allgather_base", ...
  i64 out_nelems = -1;                  // Out msg nelems; -1: nelems
  std::string_view kind = "allreduce";  // the normalised kind synth_truth.json gives
};

// Where a launched activity may start, and whether its call returns only after it ends.
struct Placement {
  i64 not_before = 0;                      // earliest GPU start (0: once the stream is free)
  bool blocking = false;                   // the call returns once the activity has finished
  const Collective* collective = nullptr;  // args of a communication kernel
};

enum class Copy : std::uint8_t { kHtoDPageable, kDtoHPinned, kDtoHPageable, kDtoD };

class Synthesizer {
 public:
  Synthesizer(const SynthOptions& o, io::OutputFile& out);

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
    bool hidden = false;               // recorded inside a graph replay: not written
  };
  // A GPU stream runs its activities in order. `pending` holds the end times of those launched
  // and not yet finished (as of the last launch), for the launch queue's depth.
  struct Stream {
    i64 id, free_at;
    std::deque<i64> pending;
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
  bool distributed() const;
  i64 base_time_ns() const;
  // The ts written for a time: relative to baseTimeNanoseconds, or with --time-base epoch the
  // absolute time itself (what a reader gets from base + ts either way).
  i64 written_ts(i64 ns) const;

  // -- host timeline
  void work(i64 lo_ns, i64 hi_ns) { now_ += rng_.between(lo_ns, hi_ns); }
  void hold_until(i64 t) { now_ = std::max(now_, t); }
  std::size_t open(Kind kind, std::string_view cat, std::string_view name, int suffix);
  void close();
  // `own_ext` false: the annotation's children keep reporting the enclosing op's External id,
  // as runtime calls under nccl:all_reduce do.
  void open_annotation(std::string_view name, int suffix, bool own_ext = true);
  void open_python(std::string_view name, int suffix);
  void open_op(std::string_view name, std::initializer_list<In> inputs, i64 seq);
  void open_comm_op(const Collective& c);
  Scope annotation(std::string_view name, int suffix = -1, bool own_ext = true) {
    open_annotation(name, suffix, own_ext);
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
  // A runtime call that launches nothing; it returns no earlier than `wait_until`.
  Call runtime_call(std::string_view name, int cbid, i64 wait_until = 0);
  // `kernel`: the args.kernel ROCm writes on launch calls (graph captures align by it).
  std::size_t open_runtime(std::string_view name, int cbid, std::string_view kernel = {});
  i64 place(Stream& stream, i64 launch_start, i64 duration, i64 not_before);
  i64 queue_slot(Stream& stream) const;
  template <class ExtraArgs>
  void launch(std::string_view api, int cbid, std::string_view cat, std::string_view name,
              Stream& stream, i64 duration, const Placement& placement, ExtraArgs&& extra_args);
  void kernel(K k, i64 duration, Grid grid, Stream& stream, const Placement& placement);
  void kernel(K k, i64 duration, Grid grid) { kernel(k, duration, grid, compute_, {}); }
  void memcpy(Copy copy, i64 bytes, i64 duration = 0, const Placement& placement = {});
  void memset(i64 bytes);
  i64 drained() const { return std::max({compute_.free_at, comm_.free_at, tp_comm_.free_at}); }
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
  void serving_step();  // GraphMode::kReplay
  void capture();       // GraphMode::kCapture
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
  // `tensor_parallel`: on this rank's --tp group and its stream; else on the data-parallel
  // group (the whole world without --tp).
  void all_reduce(i64 bytes, K k, std::string_view dtype, i64 duration,
                  bool tensor_parallel = false);
  void all_reduce_events(i64 bytes, K k, std::string_view dtype, i64 duration,
                         bool tensor_parallel);
  // -- multi-rank (synth --ranks): no-ops or single-rank values when o_.rank is null
  int world() const { return o_.rank ? o_.rank->world : 8; }
  void write_comm_args(Fields& args, const Collective& c) const;
  bool comm_args_on(bool kernel) const;
  bool tensor_parallel() const { return o_.rank && o_.rank->tp_group; }
  bool epoch_times() const { return o_.rank && o_.rank->time_base == TimeBase::kEpoch; }
  i64 meet_at_collective(Stream& stream, i64 start, i64 transfer, i64 correlation,
                         const Collective& c);
  void fill_gradient_bucket(i64 bytes);
  void delay_next_kernel();
  void tp_all_reduce(bool backward);
  bool fsdp() const { return o_.rank && o_.rank->collectives == Collectives::kFsdp; }
  void fsdp_all_gather(bool backward, bool after_optimizer);
  void fsdp_reduce_scatter();
  void fsdp_collective(bool reduce_scatter, bool wait_for_compute);
  void fsdp_collective_events(bool reduce_scatter, bool wait_for_compute);
  void optimizer_step();
  void read_loss();
  void record_computation(std::string_view cat, i64 start, i64 duration,
                          const Placement& placement);
  void report_exposures();

  // -- injected problems (problem_events.cpp); each is a no-op unless injected
  i64 injected(Problem p) const { return inject_ns_[static_cast<std::size_t>(p)]; }
  void fetch_batch();
  void blocking_copy();
  void synchronize_stall();
  void allocator_stall();
  void tiny_kernel_loop();
  void host_compute();
  void fp32_linears();
  void fp32_linears_backward();
  void recompute_checkpointed(int layer);
  bool checkpointed(int layer) const;
  void device_copy(int layer);
  void layout_transpose();
  void exposed_all_reduce();
  void small_all_reduces();
  int fp32_linear_count() const;

  const SynthOptions& o_;
  const VendorSpec& v_;
  io::OutputFile& out_;
  Rng rng_;
  const i64 B, S, H, T, heads_;
  const std::string hidden_list_;  // the normalized_shape argument of layer_norm, "[1024]"
  const std::string flat_shape_;   // [tokens, hidden], the LM head's view of its input
  const std::string step_name_, capture_name_;  // the vLLM annotations of graph mode
  std::array<i64, kProblemCount> inject_ns_{};  // per-step amount of each problem; 0: off

  i64 now_ = kTraceStartNs;  // host clock
  i64 tid_ = kMainTid;       // the host thread recording now
  Stream compute_, comm_;
  Stream tp_comm_;  // --tp: the tensor-parallel group's NCCL stream (unused otherwise)
  i64 step_gpu_begin_ = 0, step_gpu_end_ = 0, step_ext_ = 0;
  i64 compute_idle_ns_ = 0;   // device idle before each compute-stream activity, summed
  i64 compute_busy_ns_ = 0;   // sum of compute-stream activity durations
  i64 layer_forward_ns_ = 0;  // GPU time of one block's forward, measured on the first
  i64 recompute_scale_num_ = 1, recompute_scale_den_ = 1;  // kernel durations while recomputing
  bool recomputing_ = false;
  // Graph mode: while replaying, host events are hidden and kernels carry the graph launch's
  // correlation; while capturing, launch calls launch nothing.
  int hidden_ = 0;
  i64 graph_correlation_ = 0;
  bool capturing_ = false;
  // Multi-rank: collectives so far (their position in every rank's sequence), the sequence
  // numbers of the data-parallel (default) group and of the --tp group, the --skew-us delay
  // the next compute kernel takes before a tensor-parallel all-reduce, and whether the current
  // collective is left out of this rank's file.
  std::uint64_t collectives_ = 0;
  i64 group_seq_ = 0;
  i64 tp_seq_ = 0;
  i64 next_kernel_delay_ns_ = 0;
  bool dropping_ = false;
  Rng drop_rng_;
  // For the truth file's exposures: this rank's computation kernels as written, and the
  // collectives it met (their group, instance and its own window).
  struct Busy {
    i64 start, end;
  };
  std::vector<Busy> computation_;
  struct Joined {
    int group;
    std::uint64_t instance;
    i64 start, end;
  };
  std::vector<Joined> joined_;

  std::vector<HostEvent> events_;
  std::vector<std::size_t> open_;  // indexes in events_ of the spans still open
  std::vector<i64> ext_stack_, python_stack_, seqs_;
  std::string args_, host_buf_, gpu_buf_;  // reused every step: no allocation after the first
  i64 next_ext_ = 1, next_correlation_ = 1, next_python_id_ = 1, next_seq_ = 1, ev_idx_ = 0;
  i64 allocated_ = 0, next_addr_ = 0;
  bool first_event_ = true;
  SynthSummary summary_;
};

}  // namespace traceprism::synth::detail
