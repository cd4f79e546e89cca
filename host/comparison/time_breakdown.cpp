#include "comparison/time_breakdown.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include <traceprism/intervals.hpp>

#include "index/memcpy_kind.hpp"

namespace traceprism::comparison {

namespace {

using Interval = traceprism::Interval<std::int64_t>;

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string signed_ms(double us) {
  return (us >= 0 ? "+" : "-") + fixed(std::fabs(us) / 1e3, 2);
}

std::string copy_label(std::string_view direction) {
  if (direction == "HtoD") return "host-to-device copies";
  if (direction == "DtoH") return "device-to-host copies";
  if (direction == "DtoD") return "device-to-device copies";
  if (direction == "HtoH") return "host-to-host copies";
  if (direction == "PtoP") return "peer-to-peer copies";
  return "copies of unknown direction";
}

std::string idle_label(std::string cause) {
  std::replace(cause.begin(), cause.end(), '_', ' ');
  return "idle: " + cause;
}

const char* count_unit(TimeGroup g) {
  switch (g) {
    case TimeGroup::kIdle:
      return "gaps";
    case TimeGroup::kExposedComm:
      return "kernels";
    case TimeGroup::kExposedCopies:
      return "copies";
    default:
      return "";
  }
}

// Rows of one group from both sides, keyed by `key`.
class GroupRows {
 public:
  explicit GroupRows(TimeGroup group) : group_(group) {}
  void add(int side, const std::string& key, const std::string& label, double us,
           std::int64_t count = -1) {
    TimeRow& row = rows_[key];
    row.group = group_;
    row.key = key;
    row.label = label;
    (side == 1 ? row.us_trace1 : row.us_trace2) += us;
    if (count >= 0) {
      std::int64_t& c = side == 1 ? row.count_trace1 : row.count_trace2;
      c = std::max<std::int64_t>(c, 0) + count;
    }
  }
  // Largest first (the larger side), then by key.
  void append_to(std::vector<TimeRow>& out) {
    std::vector<TimeRow> rows;
    for (auto& [key, row] : rows_) {
      if (row.count_trace1 >= 0 || row.count_trace2 >= 0) {
        row.count_trace1 = std::max<std::int64_t>(row.count_trace1, 0);
        row.count_trace2 = std::max<std::int64_t>(row.count_trace2, 0);
      }
      rows.push_back(std::move(row));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const TimeRow& a, const TimeRow& b) {
      return std::max(a.us_trace1, a.us_trace2) > std::max(b.us_trace1, b.us_trace2);
    });
    for (TimeRow& r : rows) out.push_back(std::move(r));
  }

 private:
  TimeGroup group_;
  std::map<std::string, TimeRow> rows_;
};

void add_timeline_rows(std::vector<TimeRow>& out, const model::GpuTimeline& a,
                       const model::GpuTimeline& b) {
  const std::pair<const char*, double model::GpuTimeline::*> fields[] = {
      {"total", &model::GpuTimeline::total_us},
      {"computation", &model::GpuTimeline::computation_us},
      {"exposed communication", &model::GpuTimeline::exposed_comm_us},
      {"exposed memory copies", &model::GpuTimeline::exposed_memcpy_us},
      {"idle", &model::GpuTimeline::idle_us}};
  for (const auto& [name, field] : fields) {
    TimeRow row;
    row.key = name;
    row.label = name;
    row.us_trace1 = a.*field;
    row.us_trace2 = b.*field;
    out.push_back(std::move(row));
  }
}

void add_trace(GroupRows& computation, GroupRows& idle, GroupRows& comm, GroupRows& copies,
               int side, const TraceTimeFigures& t) {
  for (const findings::CategoryShare& c : t.computation_by_category)
    computation.add(side, c.category, c.category, c.time_us);
  for (const findings::CauseIdle& c : t.idle_by_cause)
    idle.add(side, c.cause, idle_label(c.cause), c.idle_us, static_cast<std::int64_t>(c.gaps));
  for (const findings::CollectiveRow& c : t.collectives)
    comm.add(side, c.type, "exposed " + c.type, c.exposed_us, static_cast<std::int64_t>(c.count));
  for (const CopyDirectionFigures& c : t.copies)
    copies.add(side, c.direction, copy_label(c.direction), c.exposed_us,
               static_cast<std::int64_t>(c.count));
}

std::string difference_item(const TimeRow& row) {
  std::string s = signed_ms(row.diff_us()) + " ms " + row.label;
  if (row.count_trace1 >= 0 && row.count_trace1 != row.count_trace2) {
    const std::int64_t d = row.count_trace1 - row.count_trace2;
    s += " (" + std::string(d > 0 ? "+" : "") + std::to_string(d) + " " + count_unit(row.group) +
         ")";
  }
  return s;
}

}  // namespace

std::vector<CopyDirectionFigures> copies_by_direction(const GpuEventSet& set) {
  const index::EventIndex& x = set.index;
  auto counted = [&](index::Row r) {
    return x.valid(r) && (set.include_unlinked || set.links.linked(r));
  };
  // Computation and communication hide a copy; ROCm's copy kernels are copies themselves.
  model::GpuActivityByName activity(x);
  std::vector<Interval> kernels;
  for (auto kind : {index::EventKind::kKernel, index::EventKind::kGpuMemset})
    for (index::Row r : x.rows_of_kind(kind))
      if (counted(r) && activity(r) != model::GpuActivity::kMemcpy)
        kernels.push_back({x.ts_ns(r), x.end_ns(r)});
  const std::vector<Interval> busy = merge_intervals(std::move(kernels));
  std::map<std::string, std::pair<CopyDirectionFigures, std::vector<Interval>>> by_direction;
  for (index::Row r : x.rows_of_kind(index::EventKind::kGpuMemcpy)) {
    if (!counted(r)) continue;
    const auto args = x.gpu_args(r);
    const std::string direction(
        index::copy_direction_name(args ? args->copy.direction : index::CopyDirection::kUnknown));
    auto& [figures, intervals] = by_direction[direction];
    figures.direction = direction;
    ++figures.count;
    figures.time_us += static_cast<double>(std::max<std::int64_t>(0, x.dur_ns(r))) / 1e3;
    intervals.push_back({x.ts_ns(r), x.end_ns(r)});
  }
  std::vector<CopyDirectionFigures> out;
  for (auto& [direction, entry] : by_direction) {
    const auto exposed = subtract_intervals(merge_intervals(std::move(entry.second)), busy);
    entry.first.exposed_us = static_cast<double>(total_length(exposed)) / 1e3;
    out.push_back(std::move(entry.first));
  }
  return out;
}

std::string_view time_group_title(TimeGroup g) {
  switch (g) {
    case TimeGroup::kTimeline:
      return "GPU timeline";
    case TimeGroup::kComputation:
      return "Computation by category";
    case TimeGroup::kIdle:
      return "Idle by cause";
    case TimeGroup::kExposedComm:
      return "Exposed communication by collective";
    case TimeGroup::kExposedCopies:
      return "Exposed memory copies by direction";
  }
  return "";
}

std::vector<TimeRow> time_breakdown(const TraceTimeFigures& trace1,
                                    const TraceTimeFigures& trace2) {
  std::vector<TimeRow> out;
  add_timeline_rows(out, trace1.timeline, trace2.timeline);
  GroupRows computation(TimeGroup::kComputation), idle(TimeGroup::kIdle),
      comm(TimeGroup::kExposedComm), copies(TimeGroup::kExposedCopies);
  add_trace(computation, idle, comm, copies, 1, trace1);
  add_trace(computation, idle, comm, copies, 2, trace2);
  for (GroupRows* g : {&computation, &idle, &comm, &copies}) g->append_to(out);
  return out;
}

std::vector<const TimeRow*> material_differences(const std::vector<TimeRow>& rows,
                                                 double window_us) {
  const double threshold = window_us * kMaterialPercent / 100;
  std::vector<const TimeRow*> out;
  for (const TimeRow& r : rows)
    if (r.group != TimeGroup::kTimeline && std::fabs(r.diff_us()) > 0 &&
        std::fabs(r.diff_us()) >= threshold)
      out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const TimeRow* a, const TimeRow* b) {
    return std::fabs(a->diff_us()) > std::fabs(b->diff_us());
  });
  if (out.size() > 4) out.resize(4);
  return out;
}

std::string gap_summary(const TraceTimeFigures& trace1, const TraceTimeFigures& trace2,
                        const std::vector<TimeRow>& rows) {
  const double w1 = trace1.timeline.total_us, w2 = trace2.timeline.total_us;
  if (trace1.timeline.events == 0 && trace2.timeline.events == 0)
    return "Neither trace has GPU activity linked to a host launch, so their GPU time cannot be "
           "compared.";
  const double window = std::max(w1, w2);
  const auto parts = material_differences(rows, window);
  const double d = w1 - w2;
  const std::string both = fixed(w1 / 1e3, 2) + " ms vs " + fixed(w2 / 1e3, 2) + " ms";
  if (std::fabs(d) < window * kMaterialPercent / 100 && parts.empty())
    return "The two traces take the same time (" + both +
           "), and no part of their GPU timelines differs by " + fixed(kMaterialPercent, 0) +
           "% of the window or more.";
  std::string s = "Trace 1 is " + fixed(std::fabs(d) / 1e3, 2) + " ms";
  if (w2 > 0) s += " (" + fixed(std::fabs(d) / w2 * 100, 1) + "%)";
  s += std::string(d >= 0 ? " slower" : " faster") + " than trace 2 (" + both + ")";
  if (parts.empty())
    return s + "; no single part of the GPU timeline differs by " + fixed(kMaterialPercent, 0) +
           "% of the window or more.";
  s += ": ";
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + difference_item(*parts[i]);
  return s + ".";
}

}  // namespace traceprism::comparison
