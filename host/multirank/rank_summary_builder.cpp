#include "multirank/rank_summary_builder.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>

#include <traceprism/intervals.hpp>

#include "model/collective_instances.hpp"
#include "model/gpu_timeline.hpp"
#include "model/profiler_steps.hpp"

namespace traceprism::multirank {

using index::EventIndex;
using index::EventKind;
using index::Row;

namespace {

using Span = Interval<std::int64_t>;

SummaryMeta meta_of(const EventIndex& index) {
  SummaryMeta meta;
  meta.tool_version = TRACEPRISM_VERSION;
  const index::TraceMetadata& m = index.metadata();
  if (m.distributed) {
    meta.trace_rank = m.distributed->rank;
    meta.world_size = m.distributed->world_size;
    meta.backend = m.distributed->backend;
  }
  if (!m.devices.empty()) meta.device_name = m.devices.front().name;
  meta.device_count = static_cast<std::int64_t>(m.devices.size());
  meta.events_read = index.size();
  return meta;
}

// The GPU activity of the trace as two unions, on the written clock.
struct GpuUnions {
  std::vector<Span> compute, comm, memcpy;
  std::uint64_t kernels = 0;
  std::vector<std::int64_t> kernel_starts;  // sorted, for per-step counts
};

GpuUnions gpu_unions(const EventIndex& index) {
  model::GpuActivityByName activity(index);
  GpuUnions u;
  for (EventKind kind : {EventKind::kKernel, EventKind::kGpuMemset, EventKind::kGpuMemcpy}) {
    for (Row r : index.rows_of_kind(kind)) {
      if (!index.valid(r)) continue;
      const Span s{index.ts_ns(r), index.end_ns(r)};
      switch (activity(r)) {
        case model::GpuActivity::kComputation:
          u.compute.push_back(s);
          break;
        case model::GpuActivity::kCommunication:
          u.comm.push_back(s);
          break;
        case model::GpuActivity::kMemcpy:
          u.memcpy.push_back(s);
          break;
      }
      if (kind == EventKind::kKernel) u.kernel_starts.push_back(s.start);
    }
  }
  u.compute = merge_intervals(std::move(u.compute));
  u.comm = merge_intervals(std::move(u.comm));
  u.memcpy = merge_intervals(std::move(u.memcpy));
  std::sort(u.kernel_starts.begin(), u.kernel_starts.end());
  u.kernels = u.kernel_starts.size();
  return u;
}

std::int64_t within(const std::vector<Span>& merged, std::int64_t a, std::int64_t b) {
  std::int64_t total = 0;
  auto it = std::lower_bound(merged.begin(), merged.end(), a,
                             [](const Span& s, std::int64_t t) { return s.end <= t; });
  for (; it != merged.end() && it->start < b; ++it)
    total += std::min(it->end, b) - std::max(it->start, a);
  return total;
}

// Where the GPU time of [start, end) went (written clock in, absolute clock out).
ActivityTotals totals_in(const GpuUnions& u, std::int64_t start, std::int64_t end,
                         std::int64_t base_ns) {
  ActivityTotals t;
  t.gpu_start_ns = start + base_ns;
  t.gpu_end_ns = end + base_ns;
  t.compute_ns = within(u.compute, start, end);
  t.comm_ns = within(u.comm, start, end);
  const std::vector<Span> exposed_comm = subtract_intervals(u.comm, u.compute);
  t.exposed_comm_ns = within(exposed_comm, start, end);
  const std::vector<Span> exposed_memcpy =
      subtract_intervals(subtract_intervals(u.memcpy, u.compute), u.comm);
  t.memcpy_ns = within(exposed_memcpy, start, end);
  t.gpu_busy_ns = t.compute_ns + t.exposed_comm_ns + t.memcpy_ns;
  t.idle_ns = std::max<std::int64_t>(0, (end - start) - t.gpu_busy_ns);
  t.kernel_count = static_cast<std::uint64_t>(
      std::lower_bound(u.kernel_starts.begin(), u.kernel_starts.end(), end) -
      std::lower_bound(u.kernel_starts.begin(), u.kernel_starts.end(), start));
  return t;
}

struct StepSpans {
  std::int64_t cpu_start = -1, cpu_end = -1, gpu_start = -1, gpu_end = -1;
};

std::map<std::int64_t, StepSpans> step_spans(const EventIndex& index) {
  std::map<std::int64_t, StepSpans> steps;
  for (EventKind kind : {EventKind::kUserAnnotation, EventKind::kGpuUserAnnotation}) {
    for (Row r : index.rows_of_kind(kind)) {
      const std::optional<std::int64_t> n = model::profiler_step_number(index.name(r));
      if (!n || !index.valid(r)) continue;
      StepSpans& s = steps[*n];
      std::int64_t& start = kind == EventKind::kUserAnnotation ? s.cpu_start : s.gpu_start;
      std::int64_t& end = kind == EventKind::kUserAnnotation ? s.cpu_end : s.gpu_end;
      if (start < 0) start = index.ts_ns(r), end = index.end_ns(r);  // the first of duplicates
    }
  }
  return steps;
}

std::vector<KernelTotal> top_kernels(const EventIndex& index) {
  model::GpuActivityByName activity(index);
  std::unordered_map<index::StringId, KernelTotal> by_name;
  for (Row r : index.rows_of_kind(EventKind::kKernel)) {
    if (!index.valid(r) || activity(r) != model::GpuActivity::kComputation) continue;
    KernelTotal& k = by_name[index.name_id(r)];
    ++k.count;
    k.total_ns += index.dur_ns(r);
  }
  std::vector<KernelTotal> kernels;
  kernels.reserve(by_name.size());
  for (auto& [name, k] : by_name) {
    k.name = std::string(index.strings().view(name));
    kernels.push_back(std::move(k));
  }
  std::sort(kernels.begin(), kernels.end(), [](const KernelTotal& a, const KernelTotal& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (kernels.size() > kMaxSummaryKernels) kernels.resize(kMaxSummaryKernels);
  return kernels;
}

}  // namespace

RankSummary summarize_rank(const EventIndex& index, const model::LaunchLinks& links) {
  RankSummary summary;
  summary.meta = meta_of(index);
  const model::RankCollectives collectives = model::collective_instances(index, links);
  const std::int64_t base = collectives.time_base_ns;
  const GpuUnions gpu = gpu_unions(index);
  for (const auto& [number, spans] : step_spans(index)) {
    StepSummary step;
    step.step = number;
    const std::int64_t gpu_start = spans.gpu_start >= 0 ? spans.gpu_start : spans.cpu_start;
    const std::int64_t gpu_end = spans.gpu_start >= 0 ? spans.gpu_end : spans.cpu_end;
    step.totals = totals_in(gpu, gpu_start, gpu_end, base);
    step.totals.cpu_start_ns = spans.cpu_start >= 0 ? spans.cpu_start + base : -1;
    step.totals.cpu_end_ns = spans.cpu_end >= 0 ? spans.cpu_end + base : -1;
    summary.steps.push_back(step);
  }
  if (summary.steps.size() > kMaxSummarySteps) summary.steps.resize(kMaxSummarySteps);
  const std::int64_t first =
      gpu.compute.empty() && gpu.comm.empty()
          ? 0
          : std::min(gpu.compute.empty() ? INT64_MAX : gpu.compute.front().start,
                     gpu.comm.empty() ? INT64_MAX : gpu.comm.front().start);
  const std::int64_t last = std::max(gpu.compute.empty() ? 0 : gpu.compute.back().end,
                                     gpu.comm.empty() ? 0 : gpu.comm.back().end);
  summary.profile.totals = totals_in(gpu, first, std::max(first, last), base);
  summary.kernels = top_kernels(index);
  for (const model::CollectiveInstance& c : collectives.instances)
    summary.collectives.push_back({0, model::MatchTier::kTimeline, c});
  return summary;
}

bool read_by_rank_summary(EventKind kind, std::string_view name) {
  if (kind == EventKind::kPythonFunction) return false;
  if (kind != EventKind::kCpuOp) return true;
  return name == "record_param_comms" || name.starts_with("c10d::");
}

}  // namespace traceprism::multirank
