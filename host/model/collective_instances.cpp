#include "model/collective_instances.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

#include <traceprism/collective.hpp>
#include <traceprism/intervals.hpp>

#include "model/gpu_timeline.hpp"
#include "model/profiler_steps.hpp"

namespace traceprism::model {

using index::EventIndex;
using index::EventKind;

namespace {

using Span = Interval<std::int64_t>;

constexpr std::int32_t kNone = -1;

// --- the host ops around a launch ---------------------------------------------------------------

enum class Role : std::uint8_t { kRecordParamComms, kC10dOp, kNcclAnnotation };

struct ContextEvent {
  std::uint32_t thread;
  std::int64_t start_ns, end_ns;
  Row row;
  Role role;
};

// The innermost host op of each role enclosing a launch (kNone where none does).
struct LaunchContext {
  std::int32_t record_param_comms = kNone;
  std::int32_t c10d_op = kNone;
  std::int32_t annotation = kNone;
};

std::optional<Role> role_of(const EventIndex& index, Row r) {
  const std::string_view name = index.name(r);
  if (index.kind(r) == EventKind::kCpuOp) {
    if (name == "record_param_comms") return Role::kRecordParamComms;
    if (name.substr(0, 6) == "c10d::" && kind_from_name(name) != CollectiveKind::kUnknown)
      return Role::kC10dOp;
  } else if (index.kind(r) == EventKind::kUserAnnotation) {
    if (name.substr(0, 5) == "nccl:" && kind_from_name(name) != CollectiveKind::kUnknown)
      return Role::kNcclAnnotation;
  }
  return std::nullopt;
}

// Host ops that can own or name a collective, by thread, then start, outer before inner.
std::vector<ContextEvent> context_events(const EventIndex& index) {
  std::unordered_map<index::StringId, std::optional<Role>> role_by_name;
  std::vector<ContextEvent> events;
  for (EventKind kind : {EventKind::kCpuOp, EventKind::kUserAnnotation}) {
    for (Row r : index.rows_of_kind(kind)) {
      auto [it, fresh] = role_by_name.try_emplace(index.name_id(r));
      if (fresh) it->second = role_of(index, r);
      if (!it->second || !index.valid(r) || index.thread(r) == index::kNoThread) continue;
      events.push_back({index.thread(r), index.ts_ns(r), index.end_ns(r), r, *it->second});
    }
  }
  std::sort(events.begin(), events.end(), [](const ContextEvent& a, const ContextEvent& b) {
    return std::tie(a.thread, a.start_ns, b.end_ns, a.row) <
           std::tie(b.thread, b.start_ns, a.end_ns, b.row);
  });
  return events;
}

// The context of each anchor row (a launching call, or a record_param_comms found by External
// id): one sweep per thread with the stack of ops open at the anchor. Host ops nest on a
// thread, so once the stack's top covers the anchor every op below it does too.
std::vector<LaunchContext> contexts_of(const EventIndex& index, const std::vector<Row>& anchors) {
  std::vector<LaunchContext> contexts(anchors.size());
  const std::vector<ContextEvent> events = context_events(index);
  std::vector<std::size_t> order(anchors.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](std::size_t i) {
    return std::make_tuple(index.thread(anchors[i]), index.ts_ns(anchors[i]), anchors[i]);
  };
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  std::vector<const ContextEvent*> open;
  std::uint32_t thread = index::kNoThread;
  std::size_t next = 0;
  for (std::size_t i : order) {
    const Row anchor = anchors[i];
    const std::uint32_t t = index.thread(anchor);
    const std::int64_t at = index.ts_ns(anchor);
    if (t != thread) open.clear(), thread = t;
    while (next < events.size() && events[next].thread < t) ++next;
    for (; next < events.size() && events[next].thread == t && events[next].start_ns <= at; ++next)
      open.push_back(&events[next]);
    while (!open.empty() && open.back()->end_ns < at) open.pop_back();
    LaunchContext& c = contexts[i];
    for (auto it = open.rbegin(); it != open.rend(); ++it) {
      const ContextEvent& e = **it;
      if (e.end_ns < at) continue;
      std::int32_t* slot = e.role == Role::kRecordParamComms ? &c.record_param_comms
                           : e.role == Role::kC10dOp         ? &c.c10d_op
                                                             : &c.annotation;
      if (*slot == kNone && e.row != anchor) *slot = static_cast<std::int32_t>(e.row);
    }
  }
  return contexts;
}

// --- kernels and their anchors -----------------------------------------------------------------

std::vector<Row> collective_kernels(const EventIndex& index) {
  std::unordered_map<index::StringId, bool> is_collective;
  std::vector<Row> kernels;
  for (Row r : index.rows_of_kind(EventKind::kKernel)) {
    auto [it, fresh] = is_collective.try_emplace(index.name_id(r), false);
    if (fresh) it->second = is_collective_kernel_name(index.name(r));
    if (it->second && index.valid(r)) kernels.push_back(r);
  }
  return kernels;
}

// The row whose host context places a kernel: its launching call, else the record_param_comms
// that carries its External id (2024+ traces copy the op's id onto the kernel), else none.
std::vector<std::int32_t> anchors_of(const EventIndex& index, const LaunchLinks& links,
                                     const std::vector<Row>& kernels) {
  std::unordered_map<std::int64_t, Row> record_by_external_id;
  for (Row r : index.rows_of_kind(EventKind::kCpuOp)) {
    if (index.external_id(r) != index::kNoId && index.name(r) == "record_param_comms")
      record_by_external_id.try_emplace(index.external_id(r), r);
  }
  std::vector<std::int32_t> anchors(kernels.size(), kNone);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (links.linked(kernels[i])) {
      anchors[i] = links.launcher(kernels[i]);
    } else if (auto it = record_by_external_id.find(index.external_id(kernels[i]));
               it != record_by_external_id.end()) {
      anchors[i] = static_cast<std::int32_t>(it->second);
    }
  }
  return anchors;
}

// --- metadata ----------------------------------------------------------------------------------

std::string text_of(const EventIndex& index, index::StringId id) {
  return id == index::kNoString ? std::string() : std::string(index.strings().view(id));
}

// Legacy (2023) sizes: a *_base_ op lists (output, input) tensors; "Input type" gives their
// element types in C++ spelling.
int legacy_type_bytes(std::string_view type) {
  if (type == "unsigned char" || type == "signed char" || type == "bool") return 1;
  if (type == "c10::BFloat16" || type == "c10::Half") return 2;
  if (type == "int" || type == "float") return 4;
  if (type == "long" || type == "long int" || type == "double") return 8;
  return 0;
}

std::int64_t tensor_bytes(const index::InputShapes& shapes, const std::vector<std::string>& types,
                          std::size_t arg) {
  if (arg >= shapes.arg_count() || arg >= types.size()) return -1;
  if (shapes.arg(arg).is_list || shapes.arg(arg).tensor_count != 1) return -1;
  const int element = legacy_type_bytes(types[arg]);
  if (element == 0) return -1;
  std::int64_t elements = 1;
  for (std::int64_t d : shapes.arg_dims(arg)) {
    if (d < 0 || (d > 0 && elements > INT64_MAX / d)) return -1;
    elements *= d;
  }
  return elements > INT64_MAX / element ? -1 : elements * element;
}

void apply_legacy_sizes(const EventIndex& index, Row c10d_op, CollectiveInstance& c) {
  const std::string_view name = index.name(c10d_op);
  constexpr std::string_view kBase = "_base_";
  if (name.size() < kBase.size() || name.substr(name.size() - kBase.size()) != kBase) return;
  const std::optional<index::OpArgs> args = index.op_args(c10d_op);
  if (!args || args->input_dims == index::kNoString) return;
  index::InputShapes shapes;
  if (!shapes.parse(index.strings().view(args->input_dims))) return;
  const std::vector<std::string> types =
      index::parse_string_list(text_of(index, args->input_types));
  if (c.out_bytes < 0) c.out_bytes = tensor_bytes(shapes, types, 0);
  if (c.in_bytes < 0) c.in_bytes = tensor_bytes(shapes, types, 1);
  if (c.group_size < 0 && c.kind == CollectiveKind::kAllGather && c.in_bytes > 0 &&
      c.out_bytes > 0 && c.out_bytes % c.in_bytes == 0)
    c.group_size = c.out_bytes / c.in_bytes;
}

// True when a split-size list like "[3, 3, 5]" has two different entries.
bool unequal_splits(std::string_view list) {
  std::optional<std::int64_t> first;
  const char* p = list.data();
  const char* end = list.data() + list.size();
  while (p < end) {
    if (*p < '0' || *p > '9') {
      ++p;
      continue;
    }
    std::int64_t v = 0;
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc()) return false;
    if (first && *first != v) return true;
    first = v;
    p = next;
  }
  return false;
}

// Fills the fields one record of comm args has and the instance still lacks.
void apply_comm_args(const EventIndex& index, const index::CommArgs& a, CollectiveInstance& c) {
  auto take_int = [](std::int64_t v, auto& field) {
    if (field < 0 && v != index::kNoId && v >= 0)
      field = static_cast<std::decay_t<decltype(field)>>(v);
  };
  auto take_text = [&](index::StringId id, std::string& field) {
    if (field.empty() && id != index::kNoString) field = text_of(index, id);
  };
  if (c.kind == CollectiveKind::kUnknown && a.collective != index::kNoString)
    c.kind = kind_from_name(index.strings().view(a.collective));
  if (c.dtype == CollectiveDtype::kUnknown && a.dtype != index::kNoString)
    c.dtype = dtype_from_name(index.strings().view(a.dtype));
  take_text(a.pg_name, c.pg_name);
  take_text(a.pg_description, c.pg_description);
  take_text(a.pg_ranks, c.pg_ranks);
  take_int(a.in_nelems, c.in_nelems);
  take_int(a.out_nelems, c.out_nelems);
  take_int(a.group_size, c.group_size);
  take_int(a.global_rank_start, c.global_rank_start);
  take_int(a.global_rank_stride, c.global_rank_stride);
  take_int(a.group_rank, c.group_rank);
  take_int(a.seq, c.seq);
  if (c.comms_id == 0) c.comms_id = a.comms_id;
  if (a.async >= 0) c.async = c.async || a.async == 1;
  if (c.peer_rank < 0) {
    const std::int64_t peer = a.dst_rank != index::kNoId ? a.dst_rank : a.src_rank;
    if (peer != index::kNoId && peer >= 0) c.peer_rank = static_cast<std::int32_t>(peer);
  }
  if (a.in_split_sizes != index::kNoString &&
      (unequal_splits(index.strings().view(a.in_split_sizes)) ||
       unequal_splits(text_of(index, a.out_split_sizes))) &&
      (c.kind == CollectiveKind::kAllToAll || c.kind == CollectiveKind::kUnknown))
    c.kind = CollectiveKind::kAllToAllV;
}

CollectiveKind kind_from_kernel_name(std::string_view name) {
  using collective::Type;
  switch (collective::classify_kernel(name).type) {
    case Type::kAllReduce:
      return CollectiveKind::kAllReduce;
    case Type::kAllGather:
      return CollectiveKind::kAllGather;
    case Type::kReduceScatter:
      return CollectiveKind::kReduceScatter;
    case Type::kBroadcast:
      return CollectiveKind::kBroadcast;
    case Type::kReduce:
      return CollectiveKind::kReduce;
    default:  // SendRecv and generic kernels name no kind (§5.1)
      return CollectiveKind::kUnknown;
  }
}

bool is_in_network_reduction(std::string_view kernel_name) {
  return kernel_name.find("NVLS") != std::string_view::npos ||
         kernel_name.find("COLLNET") != std::string_view::npos;
}

// --- steps -------------------------------------------------------------------------------------

struct StepSpan {
  std::int64_t start_ns, end_ns;
  std::int32_t number;
};

std::vector<StepSpan> step_spans(const EventIndex& index, EventKind kind) {
  std::vector<StepSpan> spans;
  for (Row r : index.rows_of_kind(kind)) {
    if (!index.valid(r)) continue;
    if (std::optional<std::int64_t> n = profiler_step_number(index.name(r)))
      spans.push_back({index.ts_ns(r), index.end_ns(r), static_cast<std::int32_t>(*n)});
  }
  std::sort(spans.begin(), spans.end(), [](const StepSpan& a, const StepSpan& b) {
    return std::tie(a.start_ns, a.number) < std::tie(b.start_ns, b.number);
  });
  return spans;
}

// The last step starting at or before t whose span holds t.
const StepSpan* step_at(const std::vector<StepSpan>& spans, std::int64_t t) {
  auto it = std::upper_bound(spans.begin(), spans.end(), t,
                             [](std::int64_t v, const StepSpan& s) { return v < s.start_ns; });
  while (it != spans.begin()) {
    --it;
    if (it->end_ns >= t) return &*it;
    if (it->start_ns < t - (std::int64_t{1} << 40)) break;  // spans do not last 18 minutes
  }
  return nullptr;
}

// --- GPU activity ------------------------------------------------------------------------------

// A union of intervals with prefix sums, for "how much of [a, b] does it cover" queries.
class CoveredTime {
 public:
  explicit CoveredTime(std::vector<Span> merged) : spans_(std::move(merged)) {
    prefix_.reserve(spans_.size() + 1);
    prefix_.push_back(0);
    for (const Span& s : spans_) prefix_.push_back(prefix_.back() + (s.end - s.start));
  }

  std::int64_t within(std::int64_t a, std::int64_t b) const {
    return b <= a ? 0 : covered_before(b) - covered_before(a);
  }

 private:
  std::int64_t covered_before(std::int64_t t) const {
    auto it = std::upper_bound(spans_.begin(), spans_.end(), t,
                               [](std::int64_t v, const Span& s) { return v < s.start; });
    const std::size_t i = static_cast<std::size_t>(it - spans_.begin());
    if (i == 0) return 0;
    return prefix_[i - 1] + (std::min(t, spans_[i - 1].end) - spans_[i - 1].start);
  }

  std::vector<Span> spans_;
  std::vector<std::int64_t> prefix_;
};

struct GpuActivityTimes {
  CoveredTime computation;
  CoveredTime exposed_communication;  // communication not under computation
};

GpuActivityTimes gpu_activity_times(const EventIndex& index) {
  GpuActivityByName activity(index);
  std::vector<Span> computation, communication;
  for (EventKind kind : {EventKind::kKernel, EventKind::kGpuMemset}) {
    for (Row r : index.rows_of_kind(kind)) {
      if (!index.valid(r)) continue;
      const GpuActivity a = activity(r);
      if (a == GpuActivity::kComputation) computation.push_back({index.ts_ns(r), index.end_ns(r)});
      if (a == GpuActivity::kCommunication)
        communication.push_back({index.ts_ns(r), index.end_ns(r)});
    }
  }
  std::vector<Span> compute_union = merge_intervals(std::move(computation));
  std::vector<Span> exposed =
      subtract_intervals(merge_intervals(std::move(communication)), compute_union);
  return {CoveredTime(std::move(compute_union)), CoveredTime(std::move(exposed))};
}

// --- assembling --------------------------------------------------------------------------------

void add_kernel(const EventIndex& index, CollectiveInstance& c, Row kernel) {
  const std::int64_t start = index.ts_ns(kernel), end = index.end_ns(kernel);
  if (c.kernels == 0) {
    c.start_ns = start;
    c.duration_ns = end - start;
  } else {
    const std::int64_t first = std::min(c.start_ns, start);
    c.duration_ns = std::max(c.end_ns(), end) - first;
    c.start_ns = first;
  }
  if (c.kernels < UINT16_MAX) ++c.kernels;
  if (const std::optional<index::GpuStream> g = index.gpu_stream(kernel); g && c.stream < 0)
    c.stream = g->stream;
  if (is_in_network_reduction(index.name(kernel))) c.nvls = true;
}

std::int64_t time_base(const EventIndex& index) {
  const auto& keys = index.metadata().keys;
  auto it = keys.find("baseTimeNanoseconds");
  if (it == keys.end()) return 0;
  std::int64_t base = 0;
  auto [ptr, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), base);
  return ec == std::errc() && ptr == it->second.data() + it->second.size() ? base : 0;
}

void fill_metadata(const EventIndex& index, const std::vector<Row>& kernels,
                   const LaunchContext& context, CollectiveInstance& c) {
  for (Row k : kernels) {
    if (std::optional<index::CommArgs> a = index.comm_args(k)) {
      if (c.metadata == MetadataSource::kNone) c.metadata = MetadataSource::kKernel;
      apply_comm_args(index, *a, c);
    }
  }
  if (context.record_param_comms != kNone) {
    if (std::optional<index::CommArgs> a =
            index.comm_args(static_cast<Row>(context.record_param_comms))) {
      if (c.metadata == MetadataSource::kNone) c.metadata = MetadataSource::kOp;
      apply_comm_args(index, *a, c);
    }
  }
  if (c.kind == CollectiveKind::kUnknown && context.c10d_op != kNone)
    c.kind = kind_from_name(index.name(static_cast<Row>(context.c10d_op)));
  if (c.kind == CollectiveKind::kUnknown && context.annotation != kNone)
    c.kind = kind_from_name(index.name(static_cast<Row>(context.annotation)));
  for (Row k : kernels) {
    if (c.kind != CollectiveKind::kUnknown) break;
    c.kind = kind_from_kernel_name(index.name(k));
  }
  if (context.c10d_op != kNone) apply_legacy_sizes(index, static_cast<Row>(context.c10d_op), c);
  if (c.in_bytes < 0 && c.in_nelems >= 0 && dtype_bytes(c.dtype) > 0)
    c.in_bytes = c.in_nelems * dtype_bytes(c.dtype);
  if (c.out_bytes < 0 && c.out_nelems >= 0 && dtype_bytes(c.dtype) > 0)
    c.out_bytes = c.out_nelems * dtype_bytes(c.dtype);
  c.p2p = c.p2p || is_point_to_point(c.kind);
  if (c.seq >= 0) c.order = static_cast<std::uint32_t>(c.seq);
}

// Step, anchor and the exclusive split of [anchor, start] (multi-rank.md §5.1, §7.3).
void place_in_time(const EventIndex& index, std::vector<CollectiveInstance>& instances,
                   const std::vector<std::int64_t>& launch_written_ns, std::int64_t base_ns) {
  const std::vector<StepSpan> cpu_steps = step_spans(index, EventKind::kUserAnnotation);
  const std::vector<StepSpan> gpu_steps = step_spans(index, EventKind::kGpuUserAnnotation);
  const GpuActivityTimes gpu = gpu_activity_times(index);
  std::map<std::string, std::int64_t> previous_end_by_group;  // written clock
  std::map<std::int64_t, std::uint16_t> channel_of_stream;
  for (std::size_t i = 0; i < instances.size(); ++i) {
    CollectiveInstance& c = instances[i];
    const std::int64_t launch = launch_written_ns[i];
    const StepSpan* step = launch >= 0 ? step_at(cpu_steps, launch) : nullptr;
    std::int64_t anchor = step ? step->start_ns : -1;
    if (!step) step = step_at(gpu_steps, c.start_ns);
    c.step = step ? step->number : -1;
    const std::string group = c.pg_name.empty() ? "stream " + std::to_string(c.stream) : c.pg_name;
    if (anchor < 0) {
      auto it = previous_end_by_group.find(group);
      if (it != previous_end_by_group.end()) anchor = it->second;
    }
    previous_end_by_group[group] = c.end_ns();
    c.exposed_ns = c.duration_ns - gpu.computation.within(c.start_ns, c.end_ns());
    if (anchor >= 0 && anchor <= c.start_ns) {
      c.pre_compute_ns = gpu.computation.within(anchor, c.start_ns);
      c.pre_comm_ns = gpu.exposed_communication.within(anchor, c.start_ns);
      c.pre_idle_ns = (c.start_ns - anchor) - c.pre_compute_ns - c.pre_comm_ns;
      c.anchor_ns = anchor + base_ns;
    }
    c.channel = channel_of_stream
                    .try_emplace(c.stream, static_cast<std::uint16_t>(channel_of_stream.size()))
                    .first->second;
    c.launch_ns = launch >= 0 ? launch + base_ns : -1;
    c.start_ns += base_ns;
  }
}

}  // namespace

bool is_collective_kernel_name(std::string_view name) {
  return collective::detail::find_ignore_case(name, "nccl") != std::string_view::npos ||
         collective::detail::find_ignore_case(name, "rccl") != std::string_view::npos ||
         collective::detail::find_ignore_case(name, "cross_device_reduce") !=
             std::string_view::npos;
}

RankCollectives collective_instances(const EventIndex& index, const LaunchLinks& links) {
  RankCollectives out;
  out.time_base_ns = time_base(index);
  const std::vector<Row> kernels = collective_kernels(index);
  out.kernels = kernels.size();
  const std::vector<std::int32_t> anchors = anchors_of(index, links, kernels);
  std::vector<Row> anchored;
  for (std::int32_t a : anchors)
    if (a != kNone) anchored.push_back(static_cast<Row>(a));
  const std::vector<LaunchContext> anchored_contexts = contexts_of(index, anchored);

  // Group the kernels by owner: record_param_comms, else the c10d op, else the kernel alone.
  struct Group {
    LaunchContext context;
    std::int64_t launch_ns = -1;
    std::vector<Row> kernels;
  };
  std::map<Row, Group> groups;  // by owner row: deterministic order
  std::size_t next_anchored = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    LaunchContext context;
    std::int64_t launch_ns = -1;
    if (anchors[i] != kNone) {
      const Row anchor = static_cast<Row>(anchors[i]);
      context = anchored_contexts[next_anchored++];
      if (index.name(anchor) == "record_param_comms") {
        context.record_param_comms = anchors[i];
      } else {
        launch_ns = index.ts_ns(anchor);
      }
    }
    const Row owner = context.record_param_comms != kNone ? Row(context.record_param_comms)
                      : context.c10d_op != kNone          ? Row(context.c10d_op)
                                                          : kernels[i];
    if (owner == kernels[i]) ++out.without_owner;
    Group& g = groups[owner];
    g.context = context;
    if (g.launch_ns < 0 || (launch_ns >= 0 && launch_ns < g.launch_ns)) g.launch_ns = launch_ns;
    g.kernels.push_back(kernels[i]);
  }

  struct Built {
    CollectiveInstance instance;
    std::int64_t launch_ns;
    Row owner;
  };
  std::vector<Built> built;
  built.reserve(groups.size());
  for (const auto& [owner, g] : groups) {
    CollectiveInstance c;
    for (Row k : g.kernels) add_kernel(index, c, k);
    fill_metadata(index, g.kernels, g.context, c);
    built.push_back({std::move(c), g.launch_ns, owner});
  }
  std::sort(built.begin(), built.end(), [](const Built& a, const Built& b) {
    return std::tie(a.instance.start_ns, a.owner) < std::tie(b.instance.start_ns, b.owner);
  });
  std::vector<std::int64_t> launches;
  for (Built& b : built) {
    out.instances.push_back(std::move(b.instance));
    launches.push_back(b.launch_ns);
  }
  place_in_time(index, out.instances, launches, out.time_base_ns);
  return out;
}

}  // namespace traceprism::model
