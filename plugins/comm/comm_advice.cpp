#include "comm_advice.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <cmath>

namespace traceprism::plugins::comm {
namespace {

using collective::Protocol;
using collective::Type;

// A count per step: whole numbers without decimals, others with one.
std::string count_text(double n) {
  return n == std::floor(n) ? support::fixed(n, 0) : support::fixed(n, 1);
}

const TypeStats* find_type(const CollectiveStats& s, Type type) {
  for (const TypeStats& t : s.types)
    if (t.type == type) return &t;
  return nullptr;
}

// Whether every one of two or more steps launches at least one kernel of this type.
bool in_every_step(const TypeStats& t, const std::vector<Step>& steps) {
  return steps.size() >= 2 &&
         std::all_of(t.per_step.begin(), t.per_step.end(), [](std::size_t n) { return n > 0; });
}

// Many collectives per step with small messages: their sizes where the trace gives them
// (diagnosis.md §4), else most on the LL protocol NCCL picks for small messages.
bool many_small(const TypeStats& t, const CollectiveStats& s, const AdviceContext& c) {
  if (per_step(t, s.steps) < c.many_per_step) return false;
  if (const std::optional<double> size = t.median_message_bytes())
    return *size < c.small_message_bytes;
  std::size_t ll = 0;
  return t.main_protocol(&ll) == Protocol::kLL && 2 * ll >= t.count();
}

std::string many_small_all_reduce(const TypeStats& t, const CollectiveStats& s,
                                  const AdviceContext& c) {
  std::size_t ll = 0;
  t.main_protocol(&ll);
  const std::string many = "The " + count_text(per_step(t, s.steps)) + " all-reduces " +
                           (s.steps.empty() ? "of the trace" : "per step");
  const std::optional<double> size = t.median_message_bytes();
  const std::string seen =
      size ? many + " move " + support::bytes_text(*size) +
                 " each (median message), small enough that each pays a fixed latency: "
           : many + " run mostly on NCCL's LL protocol (" + std::to_string(ll) + " of " +
                 std::to_string(t.count()) +
                 "), which NCCL picks for small messages, so each pays a fixed latency: ";
  if (c.training)
    return seen +
           "bucket the gradients into fewer, larger all-reduces (DDP's `bucket_cap_mb`; "
           "gradients all-reduced one tensor at a time by hand belong in DDP or a flat buffer).";
  return seen +
         "issue fewer, larger all-reduces, use a one-shot all-reduce for small tensors (a custom "
         "or symmetric-memory all-reduce), or fuse the all-reduce with its neighbouring kernels.";
}

std::string all_reduce(const TypeStats& t, const CollectiveStats& s, const AdviceContext& c) {
  if (many_small(t, s, c)) return many_small_all_reduce(t, s, c);
  if (c.training)
    return "Overlap the all-reduces with compute: DDP starts each gradient bucket's all-reduce "
           "during the backward pass as soon as the bucket is ready, while all-reduces issued "
           "by hand after `backward()` stay exposed.";
  return "Overlap the all-reduces with independent compute (a separate stream, or fused GEMM + "
         "all-reduce kernels) or issue fewer of them: without a backward pass to hide under, each "
         "one sits on the critical path.";
}

std::string all_gather(const AdviceContext& c) {
  if (c.training)
    return "Prefetch the all-gathers so that they run under the previous unit's compute: FSDP's "
           "`forward_prefetch=True` and `backward_prefetch=BackwardPrefetch.BACKWARD_PRE` "
           "(FSDP2: `set_modules_to_forward_prefetch`, `set_modules_to_backward_prefetch`); "
           "larger wrapping units give fewer, larger all-gathers.";
  return "Overlap the all-gathers with independent compute (a separate stream, or fused "
         "all-gather + GEMM kernels) or shrink them.";
}

std::string reduce_scatter(const AdviceContext& c) {
  if (c.training)
    return "Overlap the gradient reduce-scatters with the rest of the backward pass (FSDP issues "
           "each unit's reduce-scatter as soon as its gradients are ready; DeepSpeed ZeRO: "
           "`overlap_comm`); larger wrapping units give fewer, larger reduce-scatters.";
  return "Overlap the reduce-scatters with independent compute (a separate stream, or fused "
         "GEMM + reduce-scatter kernels) or shrink them.";
}

std::string exchange() {
  return "Send/receive and all-to-all traffic is the exchange of embedding-sharded, "
         "expert-parallel (MoE) or pipeline-parallel models: overlap it with compute (exchange "
         "the next batch's embeddings or tokens under the current compute; interleaved pipeline "
         "schedules) or shrink it (fewer, larger messages; lower-precision payloads).";
}

std::string broadcast(const TypeStats& t, const CollectiveStats& s, const AdviceContext& c) {
  if (c.training && in_every_step(t, s.steps))
    return "Broadcasts in every step are typically DDP's buffer broadcast "
           "(`broadcast_buffers=True`, the default): set `broadcast_buffers=False` when the "
           "buffers (e.g. batch-norm running statistics) need not be synchronized each step.";
  return "Broadcast once and reuse the result where the data does not change, or overlap the "
         "broadcasts with compute.";
}

std::string reduce(const CollectiveStats& s) {
  std::string text = "Overlap the reduces with compute";
  if (find_type(s, Type::kBroadcast))
    text += ", or replace a reduce followed by a broadcast of its result with one all-reduce";
  return text + ".";
}

std::string unknown() {
  return "The kernels' names do not say which collective they run and no enclosing op names "
         "it (generic NCCL/RCCL kernels): overlap them with compute, and find the call site "
         "among their launching ops to see which collective to restructure.";
}

std::string sentence(const TypeStats& t, const CollectiveStats& s, const AdviceContext& c) {
  switch (t.type) {
    case Type::kAllReduce:
      return all_reduce(t, s, c);
    case Type::kAllGather:
      return all_gather(c);
    case Type::kReduceScatter:
      return reduce_scatter(c);
    case Type::kSendRecv:
    case Type::kAllToAll:
      return exchange();
    case Type::kBroadcast:
      return broadcast(t, s, c);
    case Type::kReduce:
      return reduce(s);
    default:
      return unknown();
  }
}

}  // namespace

double per_step(const TypeStats& t, const std::vector<Step>& steps) {
  if (steps.empty()) return static_cast<double>(t.count());
  return static_cast<double>(t.in_steps()) / static_cast<double>(steps.size());
}

std::string per_step_text(const TypeStats& t, const std::vector<Step>& steps) {
  if (steps.empty()) return "no ProfilerStep annotation, so no count per step";
  const std::size_t outside = t.count() - t.in_steps();
  std::string text;
  if (steps.size() == 1) {
    text = (outside == 0 ? "all in the trace's one step ("
                         : std::to_string(t.in_steps()) + " in the trace's one step (") +
           steps[0].name + ")";
  } else {
    text = count_text(per_step(t, steps)) + " per step over " + std::to_string(steps.size()) +
           " steps";
  }
  if (outside > 0 && steps.size() > 1) text += ", " + std::to_string(outside) + " outside any step";
  return text;
}

Advice advise(const CollectiveStats& stats, const AdviceContext& context) {
  Advice advice;
  const TypeStats* top = stats.most_exposed();
  if (top) advice.addressed.push_back(top);
  std::vector<const TypeStats*> others;
  for (const TypeStats& t : stats.types)
    if (&t != top && t.exposed_us > 0 && t.exposed_us >= context.material_us) others.push_back(&t);
  std::stable_sort(others.begin(), others.end(), [](const TypeStats* a, const TypeStats* b) {
    return a->exposed_us > b->exposed_us;
  });
  advice.addressed.insert(advice.addressed.end(), others.begin(), others.end());
  bool exchange_said = false;  // SendRecv and AllToAll share one sentence
  for (const TypeStats* t : advice.addressed) {
    const bool is_exchange = t->type == Type::kSendRecv || t->type == Type::kAllToAll;
    if (is_exchange && exchange_said) continue;
    exchange_said |= is_exchange;
    advice.action += std::string(collective::type_name(t->type)) + " (" +
                     support::ms(t->exposed_us / 1000) +
                     " exposed): " + sentence(*t, stats, context) + " ";
  }
  advice.action +=
      "A single rank's trace cannot show skew between ranks: part of the exposed time may be "
      "this rank waiting for a slower one, which only the other ranks' traces can show.";
  return advice;
}

}  // namespace traceprism::plugins::comm
