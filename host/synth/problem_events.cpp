// The problems `synth --inject` writes into each step, shaped as a real PyTorch profiler trace
// shows them. The idle kinds hold the host for AMOUNT after the GPU has run out of queued work,
// so each adds AMOUNT of GPU idle per step whatever the host's run-ahead was; the compute and
// communication kinds add AMOUNT of GPU time of their kind.
#include <algorithm>
#include <string>

#include "synth/synthesizer.hpp"

namespace traceprism::synth::detail {

// ---- host causes of GPU idle

void Synthesizer::fetch_batch() {
  const i64 amount = injected(Problem::kDataloader);
  if (amount == 0) {
    // Worker processes prefetch: __next__ only takes a ready batch off their queue.
    Scope next = annotation("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
    Scope py = python("torch/utils/data/dataloader.py(631): __next__");
    Scope data = python("torch/utils/data/dataloader.py(1329): _next_data");
    work(40'000, 120'000);
    return;
  }
  // num_workers=0: the main process reads and collates every sample itself.
  const i64 start = now_, until = std::max(now_, drained()) + amount;
  Scope next = annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  Scope py = python("torch/utils/data/dataloader.py(631): __next__");
  Scope data = python("torch/utils/data/dataloader.py(675): _next_data");
  Scope fetch = python("torch/utils/data/_utils/fetch.py(51): fetch");
  {
    Scope samples = python("torch/utils/data/_utils/fetch.py(51): <listcomp>");
    for (i64 i = 0; i < B; ++i) {
      Scope item = python("dataset.py(27): __getitem__");
      Scope load = python("dataset.py(41): _load_tokens");
      hold_until(start + (until - start) * 9 * (i + 1) / (10 * B));
    }
  }
  Scope collate = python("torch/utils/data/_utils/collate.py(277): default_collate");
  Scope inner = python("torch/utils/data/_utils/collate.py(145): collate");
  Scope stack = op("aten::stack", {scalar("", "TensorList"), scalar("0")});
  Scope cat = op("aten::cat", {scalar("", "TensorList"), scalar("0")});
  hold_until(until);
}

// loss.item(): _local_scalar_dense copies the scalar into pageable host memory, and such a copy
// returns only once it has run. The copy runs AMOUNT after the GPU drained, at the end of the
// call, so the GPU idles through the call and until the next step's first launch.
void Synthesizer::blocking_copy() {
  const i64 amount = injected(Problem::kBlockingCopy);
  Scope log = python("train.py(57): log_loss");
  Scope item = op("aten::item", {f32({})});
  Scope dense = op("aten::_local_scalar_dense", {f32({})});
  const i64 copy_ns = rng_.between(1500, 2500);
  const i64 copy_start = std::max(now_, drained()) + std::max<i64>(0, amount - copy_ns);
  memcpy(Copy::kDtoHPageable, 4, copy_ns, {.not_before = copy_start, .blocking = true});
  runtime_call(v_.stream_sync, kCbidStreamSync);  // memcpy_and_sync: already done, returns
}

// A step timer that calls torch.cuda.synchronize(): the call returns AMOUNT after the GPU ran
// dry (a device-wide sync waits for every stream).
void Synthesizer::synchronize_stall() {
  const i64 amount = injected(Problem::kSync);
  if (amount == 0) return;
  Scope timer = python("utils/timer.py(18): __exit__");
  Scope sync = python("torch/cuda/__init__.py(801): synchronize");
  runtime_call(v_.device_sync, kCbidDeviceSync, std::max(now_, drained()) + amount);
}

// The caching allocator has no cached block that fits the logits: it releases its cached
// blocks (cudaFree synchronizes the device first) and asks the driver for new memory.
void Synthesizer::allocator_stall() {
  const i64 amount = injected(Problem::kAllocator);
  if (amount == 0) return;
  const std::string size = "[" + std::to_string(T) + ", " + std::to_string(kVocab) + "]";
  const std::string stride = "[" + std::to_string(kVocab) + ", 1]";
  Scope empty = op("aten::empty_strided",
                   {scalar(size, "ScalarList"), scalar(stride, "ScalarList"), scalar("15")});
  const i64 until = std::max(now_, drained()) + amount;
  runtime_call(v_.free, kCbidFree, until - amount / 2);
  runtime_call(v_.malloc, kCbidMalloc, until);
}

// A Python loop of tiny ops, one kernel each: clip_grad_norm_(foreach=False) in training, a
// token sampler in inference. Each op's dispatch and launch take longer than its 1-3 us kernel,
// so once the queue is empty the GPU idles between kernels; the loop runs until that idle adds
// up to AMOUNT.
void Synthesizer::tiny_kernel_loop() {
  const i64 amount = injected(Problem::kLaunchOverhead);
  if (amount == 0) return;
  const i64 idle_before = compute_idle_ns_;
  auto idle_below = [&](i64 target) { return compute_idle_ns_ - idle_before < target; };
  auto tiny_kernel = [&](K k) { kernel(k, rng_.between(1000, 3000), Grid{1, 1, 1}); };
  const In param = bf16({H});
  if (o_.training) {
    Scope clip = python("torch/nn/utils/clip_grad.py(76): clip_grad_norm_");
    while (idle_below(amount / 2)) {  // one norm per parameter
      Scope norm = op("aten::linalg_vector_norm",
                      {param, scalar("2.0"), scalar("", ""), scalar("False"), scalar("", "")});
      tiny_kernel(K::kVectorNorm);
    }
    leaf("aten::stack", {scalar("", "TensorList"), scalar("0")});
    while (idle_below(amount)) {  // then every gradient is scaled by the clip coefficient
      Scope mul = op("aten::mul_", {param, f32({})});
      tiny_kernel(K::kMul);
    }
    return;
  }
  Scope sample = python("generate.py(96): sample_next_token");
  const In logits = bf16({B, kVocab});
  while (idle_below(amount / 2)) {  // temperature, one small op at a time
    Scope div = op("aten::mul", {logits, scalar("1.25")});
    tiny_kernel(K::kMul);
  }
  while (idle_below(amount)) {  // repetition penalties
    Scope add = op("aten::add", {logits, logits, scalar("1")});
    tiny_kernel(K::kAdd);
  }
}

// Metrics computed on CPU tensors between the forward and the backward pass: host work that
// launches nothing, while the GPU runs out of queued work and then waits.
void Synthesizer::host_compute() {
  const i64 amount = injected(Problem::kHostCompute);
  if (amount == 0) return;
  const i64 start = now_, until = std::max(now_, drained()) + amount;
  auto part = [&](i64 i) { return start + (until - start) * i / 4; };
  const In scores = f32({65536});
  Scope log = python("train.py(47): log_metrics");
  Scope update = python("metrics.py(33): update");
  {
    Scope cat = op("aten::cat", {scalar("", "TensorList"), scalar("0")});
    hold_until(part(1));
  }
  {
    Scope sort = op("aten::sort", {scores, scalar("False"), scalar("-1"), scalar("True")});
    hold_until(part(2));
  }
  {
    Scope cumsum = op("aten::cumsum", {scores, scalar("0"), scalar("", "")});
    hold_until(part(3));
  }
  Scope auroc = python("metrics.py(58): _auroc");
  hold_until(until);
}

// ---- compute

// Each FP32 linear's kernels (the forward, and dgrad + wgrad in training) share AMOUNT; the
// count is what the SIMT rate needs for that time, at least one.
int Synthesizer::fp32_linear_count() const {
  const i64 amount = injected(Problem::kFp32Gemm);
  const i64 per_linear = (2 * T * H * H / (v_.fp32_gemm_tflops * 1000)) * (o_.training ? 3 : 1);
  return static_cast<int>(std::clamp<i64>((amount + per_linear / 2) / per_linear, 1, 64));
}

// A head kept outside autocast: its linears run on FP32 inputs, hence FP32 SIMT kernels.
void Synthesizer::fp32_linears() {
  const i64 amount = injected(Problem::kFp32Gemm);
  if (amount == 0) return;
  const int count = fp32_linear_count();
  const i64 dur = amount / (count * (o_.training ? 3 : 1));
  for (int i = 0; i < count; ++i) {
    Scope m = module("nn.Module: Linear_", 4 * o_.layers + 1 + i,
                     "torch/nn/modules/linear.py(125): forward");
    Scope lin = op("aten::linear", {f32({B, S, H}), f32({H, H}), f32({H})});
    leaf("aten::t", {f32({H, H})});
    Scope addmm =
        op("aten::addmm",
           {f32({H}), f32({T, H}), tensor("float", {H, H}, true), scalar("1"), scalar("1")},
           take_seq());
    memory(T * H * 4);
    kernel(K::kSgemmFwd, dur, gemm_grid(T, H));
  }
}

void Synthesizer::fp32_linears_backward() {
  const i64 amount = injected(Problem::kFp32Gemm);
  if (amount == 0) return;
  const int count = fp32_linear_count();
  const i64 dur = amount / (count * 3);
  for (int i = 0; i < count; ++i) {
    Scope node = grad_node(TP_GRAD_NODE("AddmmBackward0"));
    {
      Scope mm = op("aten::mm", {f32({T, H}), f32({H, H})});
      memory(T * H * 4);
      kernel(K::kSgemmDgrad, dur, gemm_grid(T, H));
    }
    leaf("aten::t", {f32({T, H})});
    Scope mm = op("aten::mm", {tensor("float", {H, T}, true), f32({T, H})});
    kernel(K::kSgemmWgrad, dur, gemm_grid(H, H));
  }
}

// The first k blocks are checkpointed, k being the number of block forwards that AMOUNT holds
// (at least one, at most all), from the forward's time as the duration formulas give it.
bool Synthesizer::checkpointed(int layer) const {
  const i64 amount = injected(Problem::kRecompute);
  if (amount == 0) return false;
  const i64 block = 2 * memory_ns(T * H * 4) + gemm_ns(T, 3 * H, H) + gemm_ns(T, H, H) +
                    gemm_ns(T, 4 * H, H) + gemm_ns(T, H, 4 * H) + attention_ns(false) +
                    2 * memory_ns(T * H * 6) + memory_ns(T * 4 * H * 4);
  const i64 blocks = std::clamp<i64>((amount + block / 2) / block, 1, o_.layers);
  return layer < blocks;
}

// Reentrant checkpointing: the block's backward node reruns the block's forward with grad
// enabled and backpropagates through it, all on the autograd thread. The rerun's kernels are
// scaled so that the recomputed GPU time per step is AMOUNT.
void Synthesizer::recompute_checkpointed(int layer) {
  int blocks = 0;
  while (blocks < o_.layers && checkpointed(blocks)) ++blocks;
  Scope evaluate = op("autograd::engine::evaluate_function: CheckpointFunctionBackward", {});
  Scope node = op("CheckpointFunctionBackward", {});
  Scope py = python("torch/utils/checkpoint.py(288): backward");
  {
    Scope rerun = python("torch/utils/checkpoint.py(303): backward");
    recompute_scale_num_ = injected(Problem::kRecompute);
    recompute_scale_den_ = std::max<i64>(1, blocks * layer_forward_ns_);
    recomputing_ = true;
    layer_forward(layer);
    recomputing_ = false;
  }
  Scope inner = python("torch/autograd/__init__.py(267): backward");
  layer_backward();
}

// .contiguous() / .clone() of the hidden state between the blocks: a device-to-device copy on
// the compute stream, which nothing overlaps. Each block boundary copies AMOUNT / layers.
void Synthesizer::device_copy(int layer) {
  const i64 amount = injected(Problem::kD2dCopy);
  if (amount == 0) return;
  const i64 dur = amount / o_.layers;
  const i64 bytes = std::max<i64>(2 * H, dur * v_.hbm_gbps / 2);  // read and written: half of HBM
  const In x = bf16({bytes / (2 * H), H});
  if (layer % 2 == 0) {
    Scope contiguous = op("aten::contiguous", {x, scalar("0")});
    Scope clone = op("aten::clone", {x, scalar("0")});
    leaf("aten::empty_like", {x, scalar("", ""), scalar("", ""), scalar("", ""), scalar("0")});
    Scope copy = op("aten::copy_", {x, x, scalar("False")});
    memcpy(Copy::kDtoD, bytes, dur);
  } else {
    Scope clone = op("aten::clone", {x, scalar("", "")});
    leaf("aten::empty_like", {x, scalar("", ""), scalar("", ""), scalar("", ""), scalar("", "")});
    Scope copy = op("aten::copy_", {x, x, scalar("False")});
    memcpy(Copy::kDtoD, bytes, dur);
  }
}

// A block boundary that converts the activations to channels-last and back, each conversion a
// layout-transpose kernel under aten::contiguous; together AMOUNT per step.
void Synthesizer::layout_transpose() {
  const i64 amount = injected(Problem::kLayoutTranspose);
  if (amount == 0) return;
  const i64 dur = amount / (2 * o_.layers);
  const In x = bf16({B, H, S, 1});
  for (K k : {K::kNchwToNhwc, K::kNhwcToNchw}) {
    Scope contiguous = op("aten::contiguous", {x, scalar(k == K::kNchwToNhwc ? "2" : "0")});
    Scope clone = op("aten::clone", {x, scalar(k == K::kNchwToNhwc ? "2" : "0")});
    leaf("aten::empty_like", {x, scalar("", ""), scalar("", ""), scalar("", ""), scalar("", "")});
    Scope copy = op("aten::copy_", {x, x, scalar("False")});
    kernel(k, dur, Grid{ceil_div(S, 32), ceil_div(H, 32), B});
  }
}

// ---- communication

// Every gradient in one bucket after the backward pass: nothing is left to overlap it with, and
// the compute stream waits for it. In inference: a tensor-parallel all-reduce of the output.
void Synthesizer::exposed_all_reduce() {
  const i64 amount = injected(Problem::kExposedAllreduce);
  if (amount == 0) return;
  Scope py = python(o_.training ? "train.py(50): all_reduce_gradients"
                                : "model.py(88): all_reduce_hidden");
  Scope logger = python("torch/distributed/c10d_logger.py(83): wrapper");
  Scope all = python("torch/distributed/distributed_c10d.py(2501): all_reduce");
  // The ring sends and receives 2 * 7/8 of the message per rank at the bus bandwidth.
  const i64 bytes = std::max<i64>(2, (amount - 8000) * v_.busbw_gbps * 8 / 14) / 2 * 2;
  all_reduce(bytes, K::kAllReduceLarge, "BFloat16", amount);
  compute_.free_at = std::max(compute_.free_at, comm_.free_at);
}

// One all-reduce per small FP32 tensor (biases, norm weights) instead of one bucket: each is
// latency-bound on the LL protocol (about 20 us), and compute waits for all of them.
void Synthesizer::small_all_reduces() {
  const i64 amount = injected(Problem::kSmallAllreduce);
  if (amount == 0) return;
  const i64 count = std::max<i64>(1, (amount + 10'000) / 20'000);
  const i64 mean = amount / count;
  Scope py = python(o_.training ? "train.py(53): all_reduce_small_tensors"
                                : "model.py(92): all_reduce_small_tensors");
  for (i64 i = 0; i < count; ++i) {
    Scope all = python("torch/distributed/distributed_c10d.py(2501): all_reduce");
    all_reduce(4 * rng_.between(256, 16384), K::kAllReduceSmall, "Float", rng_.jitter(mean, 40));
  }
  compute_.free_at = std::max(compute_.free_at, comm_.free_at);
}

}  // namespace traceprism::synth::detail
