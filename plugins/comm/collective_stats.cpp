#include "collective_stats.hpp"

#include <traceprism/support.hpp>

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "../common/system_support.hpp"

namespace traceprism::plugins::comm {
namespace {

using collective::Type;
using support::Interval;

constexpr std::size_t kTypeCount = std::size(collective::kTypes);

std::size_t slot_of(Type type) {
  const auto* it = std::find(std::begin(collective::kTypes), std::end(collective::kTypes), type);
  return static_cast<std::size_t>(it - std::begin(collective::kTypes));
}

Interval interval_of(const EventView& ev, Row r) {
  const double start = support::reference_us(ev.ts_ns(r));
  return {start, start + support::reference_us(ev.dur_ns(r))};
}

std::vector<Step> profiler_steps(const Context& ctx) {
  const EventView ev = ctx.events();
  std::vector<Step> steps;
  for (Row r : ctx.rows(Kind::kUserAnnotation)) {
    const std::string_view name = ev.name(r);
    if (system::starts_with(name, "ProfilerStep#"))
      steps.push_back({std::string(name), ev.ts_ns(r), ev.end_ns(r)});
  }
  return steps;  // rows_of_kind is sorted by start
}

// The step whose span holds `t`, or steps.size().
std::size_t step_at(const std::vector<Step>& steps, std::int64_t t) {
  auto it = std::upper_bound(steps.begin(), steps.end(), t,
                             [](std::int64_t v, const Step& s) { return v < s.start_ns; });
  if (it == steps.begin()) return steps.size();
  --it;
  return t <= it->end_ns ? static_cast<std::size_t>(it - steps.begin()) : steps.size();
}

// What the names say, once per name.
class KernelNames {
 public:
  explicit KernelNames(const EventView& ev) : ev_(ev) {}
  const collective::Kernel& kernel(Row r) {
    auto [it, fresh] = kernels_.try_emplace(ev_.name_id(r));
    if (fresh) it->second = collective::classify_kernel(ev_.name(r));
    return it->second;
  }
  Type op_type(Row r) {
    auto [it, fresh] = ops_.try_emplace(ev_.name_id(r), Type::kNone);
    if (fresh) it->second = collective::type_from_op(ev_.name(r));
    return it->second;
  }

 private:
  const EventView& ev_;
  std::unordered_map<StringId, collective::Kernel> kernels_;
  std::unordered_map<StringId, Type> ops_;
};

// A generic kernel's type: the innermost host op above its launch that names a collective.
Type type_from_launching_ops(const EventView& ev, KernelNames& names, Row launcher) {
  for (Row r = ev.parent(launcher); r != kNoRow; r = ev.parent(r)) {
    const Type t = names.op_type(r);
    if (t != Type::kNone) return t;
  }
  return Type::kUnknown;
}

// The message of a collective kernel: its own args (PyTorch 2.x), else those of the innermost
// op above its launch that has them (record_param_comms, c10d ops); 0 when none says.
double message_bytes_of(const Context& ctx, const EventView& ev, Row kernel, Row launcher) {
  if (const std::optional<CommArgs> a = ctx.comm_args(kernel); a && a->message_bytes() > 0)
    return a->message_bytes();
  for (Row r = ev.parent(launcher); r != kNoRow; r = ev.parent(r))
    if (const std::optional<CommArgs> a = ctx.comm_args(r); a && a->message_bytes() > 0)
      return a->message_bytes();
  return 0;
}

void count_names(TypeStats& t, const collective::Kernel& k) {
  ++t.protocol_count[static_cast<std::size_t>(k.protocol)];
  if (!k.algorithm.empty()) ++t.algorithm_count[std::string(k.algorithm)];
}

// Union and exposed time of each type against the timeline's computation.
void measure_time(const EventView& ev, const std::vector<Interval>& computation, TypeStats& t) {
  std::vector<Interval> spans;
  for (Row r : t.rows) {
    spans.push_back(interval_of(ev, r));
    t.total_dur_us += ev.dur_us(r);
  }
  const std::vector<Interval> merged = support::merge(std::move(spans));
  t.time_us = support::total_length(merged);
  t.exposed_us = support::total_length(support::subtract(merged, computation));
}

}  // namespace

std::size_t TypeStats::in_steps() const {
  std::size_t n = 0;
  for (std::size_t c : per_step) n += c;
  return n;
}

collective::Protocol TypeStats::main_protocol(std::size_t* count) const {
  std::size_t best = 0, most = 0;  // 0: kUnknown
  for (std::size_t p = 1; p < 4; ++p)
    if (protocol_count[p] > most) best = p, most = protocol_count[p];
  if (count) *count = most;
  return static_cast<collective::Protocol>(best);
}

std::optional<double> TypeStats::median_message_bytes() const {
  if (message_bytes.empty() || 2 * message_bytes.size() < count()) return std::nullopt;
  std::vector<double> sizes = message_bytes;
  const auto mid = sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() / 2);
  std::nth_element(sizes.begin(), mid, sizes.end());
  return *mid;
}

std::string TypeStats::main_algorithm() const {
  std::string best;
  std::size_t n = 0;
  for (const auto& [name, c] : algorithm_count)
    if (c > n) best = name, n = c;  // map order breaks ties by name
  return best;
}

const TypeStats* CollectiveStats::most_exposed() const {
  const TypeStats* best = nullptr;
  for (const TypeStats& t : types)
    if (!best || t.exposed_us > best->exposed_us) best = &t;
  return best;
}

CollectiveStats measure_collectives(const Context& ctx) {
  const EventView ev = ctx.events();
  CollectiveStats out;
  out.steps = profiler_steps(ctx);
  KernelNames names(ev);
  std::vector<TypeStats> by_slot(kTypeCount);
  std::vector<Interval> computation;
  for (Row r : system::rows_of_class(ctx, {Kind::kKernel, Kind::kMemset}, GpuClass::kComputation)) {
    if (ev.launcher(r) != kNoRow) computation.push_back(interval_of(ev, r));
  }
  for (Row r :
       system::rows_of_class(ctx, {Kind::kKernel, Kind::kMemset}, GpuClass::kCommunication)) {
    const Row launcher = ev.launcher(r);
    if (launcher == kNoRow) continue;
    const collective::Kernel& k = names.kernel(r);
    Type type = k.type == Type::kNone ? Type::kUnknown : k.type;
    if (type == Type::kUnknown) type = type_from_launching_ops(ev, names, launcher);
    TypeStats& t = by_slot[slot_of(type)];
    t.type = type;
    t.rows.push_back(r);
    count_names(t, k);
    if (const double bytes = message_bytes_of(ctx, ev, r, launcher); bytes > 0)
      t.message_bytes.push_back(bytes);
    if (t.per_step.empty()) t.per_step.assign(out.steps.size(), 0);
    const std::size_t step = step_at(out.steps, ev.ts_ns(launcher));
    if (step < out.steps.size()) ++t.per_step[step];
  }
  const std::vector<Interval> compute = support::merge(std::move(computation));
  for (TypeStats& t : by_slot) {
    if (t.rows.empty()) continue;
    measure_time(ev, compute, t);
    out.types.push_back(std::move(t));
  }
  return out;
}

}  // namespace traceprism::plugins::comm
