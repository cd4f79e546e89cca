#include "model/collectives.hpp"

#include <algorithm>
#include <iterator>
#include <tuple>
#include <unordered_map>

#include <traceprism/collective.hpp>
#include <traceprism/intervals.hpp>

#include "index/sort_by_row.hpp"
#include "model/gpu_timeline.hpp"

namespace traceprism::model {

using collective::Type;
using index::EventKind;

namespace {

using Span = Interval<double>;

constexpr std::size_t kTypeCount = std::size(collective::kTypes);

// Position of a collective type in collective::kTypes.
std::size_t slot_of(Type type) {
  const auto* it = std::find(std::begin(collective::kTypes), std::end(collective::kTypes), type);
  return static_cast<std::size_t>(it - std::begin(collective::kTypes));
}

// A host op that names a collective, on its thread.
struct CollectiveOp {
  std::uint32_t thread;
  std::int64_t start_ns, end_ns;
  Type type;
};

// A generic collective kernel's launching call.
struct Launch {
  std::uint32_t thread;
  std::int64_t start_ns, end_ns;
  std::size_t item;  // its position in the caller's list
};

// cpu_ops and user annotations whose name names a collective (nccl:all_reduce,
// c10d::allreduce_, ...), by thread, then start, outer before inner.
std::vector<CollectiveOp> collective_ops(const index::EventIndex& index) {
  std::unordered_map<index::StringId, Type> type_of_name;
  std::vector<CollectiveOp> ops;
  for (EventKind kind : {EventKind::kCpuOp, EventKind::kUserAnnotation}) {
    for (Row r : index.rows_of_kind(kind)) {
      auto [it, fresh] = type_of_name.try_emplace(index.name_id(r), Type::kNone);
      if (fresh) it->second = collective::type_from_op(index.name(r));
      if (it->second == Type::kNone || index.thread(r) == index::kNoThread) continue;
      ops.push_back({index.thread(r), index.ts_ns(r), index.end_ns(r), it->second});
    }
  }
  std::sort(ops.begin(), ops.end(), [](const CollectiveOp& a, const CollectiveOp& b) {
    return std::tie(a.thread, a.start_ns, b.end_ns) < std::tie(b.thread, b.start_ns, a.end_ns);
  });
  return ops;
}

// For each launch, the type of the innermost collective op that encloses it on its thread
// (kUnknown when none does): one sweep per thread over ops and launches in time order, with the
// stack of ops open at the launch. Host ops nest on a thread, so the stack's top that still
// covers the launch is the innermost one.
std::vector<Type> types_of_launching_ops(const index::EventIndex& index,
                                         std::vector<Launch> launches) {
  std::vector<Type> types(launches.size(), Type::kUnknown);
  const std::vector<CollectiveOp> ops = collective_ops(index);
  std::sort(launches.begin(), launches.end(), [](const Launch& a, const Launch& b) {
    return std::tie(a.thread, a.start_ns, a.item) < std::tie(b.thread, b.start_ns, b.item);
  });
  std::size_t next = 0;
  std::vector<const CollectiveOp*> open;
  std::uint32_t thread = index::kNoThread;
  for (const Launch& l : launches) {
    if (l.thread != thread) open.clear(), thread = l.thread;
    while (next < ops.size() && ops[next].thread < l.thread) ++next;
    for (; next < ops.size() && ops[next].thread == l.thread && ops[next].start_ns <= l.start_ns;
         ++next) {
      // An op that ended before this one starts encloses no later launch either.
      while (!open.empty() && open.back()->end_ns < ops[next].start_ns) open.pop_back();
      open.push_back(&ops[next]);
    }
    while (!open.empty() && open.back()->end_ns < l.start_ns) open.pop_back();
    for (auto it = open.rbegin(); it != open.rend(); ++it) {
      if ((*it)->end_ns >= l.end_ns) {
        types[l.item] = (*it)->type;
        break;
      }
    }
  }
  return types;
}

// The collective type of a communication event's name, once per name.
class TypeByName {
 public:
  explicit TypeByName(const index::EventIndex& index)
      : index_(index), known_(index.strings().size(), kUnseen) {}
  Type operator()(Row r) {
    std::uint8_t& t = known_[index_.name_id(r)];
    if (t == kUnseen)
      t = static_cast<std::uint8_t>(collective::classify_kernel(index_.name(r)).type);
    return static_cast<Type>(t);
  }

 private:
  static constexpr std::uint8_t kUnseen = 0xFF;
  const index::EventIndex& index_;
  std::vector<std::uint8_t> known_;
};

}  // namespace

std::vector<CollectiveFigures> collective_figures(const index::EventIndex& index,
                                                  const LaunchLinks& links) {
  // File order, as compute_gpu_timeline reads the events.
  const std::vector<Row> rows = index::gpu_rows_in_file_order(index);

  GpuActivityByName activity(index);
  TypeByName type_of(index);
  std::vector<Span> computation;
  std::vector<Type> types;  // per communication row below
  std::vector<Row> communication;
  std::vector<Launch> generic;
  std::vector<std::size_t> generic_row;  // per generic launch: its position in communication
  for (Row r : rows) {
    if (!links.linked(r)) continue;
    const GpuActivity a = activity(r);
    if (a == GpuActivity::kComputation) computation.push_back({index.ts_us(r), index.end_us(r)});
    if (a != GpuActivity::kCommunication) continue;
    Type type = type_of(r);
    if (type == Type::kNone) type = Type::kUnknown;  // communication by a rule of its own
    if (type == Type::kUnknown) {
      const auto launch = static_cast<Row>(links.launcher(r));
      generic.push_back(
          {index.thread(launch), index.ts_ns(launch), index.end_ns(launch), generic.size()});
      generic_row.push_back(communication.size());
    }
    communication.push_back(r);
    types.push_back(type);
  }
  if (communication.empty()) return {};
  if (!generic.empty()) {
    const std::vector<Type> resolved = types_of_launching_ops(index, generic);
    for (std::size_t g = 0; g < generic.size(); ++g) types[generic_row[g]] = resolved[g];
  }

  std::vector<std::vector<Span>> spans(kTypeCount);
  for (std::size_t i = 0; i < communication.size(); ++i) {
    const Row r = communication[i];
    spans[slot_of(types[i])].push_back({index.ts_us(r), index.end_us(r)});
  }
  const std::vector<Span> compute = merge_intervals(std::move(computation));
  std::vector<CollectiveFigures> out;
  for (std::size_t s = 0; s < kTypeCount; ++s) {
    if (spans[s].empty()) continue;
    CollectiveFigures f;
    f.type = collective::type_name(collective::kTypes[s]);
    f.count = spans[s].size();
    const std::vector<Span> merged = merge_intervals(std::move(spans[s]));
    f.time_us = total_length(merged);
    f.exposed_us = total_length(subtract_intervals(merged, compute));
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace traceprism::model
