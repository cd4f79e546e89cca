#include "model/gpu_timeline.hpp"

#include <algorithm>

#include <traceprism/collective.hpp>
#include <traceprism/intervals.hpp>

#include "index/sort_by_row.hpp"

namespace traceprism::model {

using index::EventKind;

namespace {

bool strip_prefix(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

bool strip_suffix(std::string_view& s, std::string_view suffix) {
  if (s.size() < suffix.size() || s.substr(s.size() - suffix.size()) != suffix) return false;
  s.remove_suffix(suffix.size());
  return true;
}

// ^(MEMORY_COPY_(HOST_TO_DEVICE|DEVICE_TO_HOST|DEVICE_TO_DEVICE)|__amd_rocclr_copyBuffer(Rect)?(Aligned)?)(\.kd)?$
bool is_rocm_copy_kernel(std::string_view name) {
  strip_suffix(name, ".kd");
  if (strip_prefix(name, "MEMORY_COPY_")) {
    return name == "HOST_TO_DEVICE" || name == "DEVICE_TO_HOST" || name == "DEVICE_TO_DEVICE";
  }
  if (!strip_prefix(name, "__amd_rocclr_copyBuffer")) return false;
  strip_prefix(name, "Rect");
  strip_prefix(name, "Aligned");
  return name.empty();
}

// ^__amd_rocclr_fillBuffer(Aligned)?(\.kd)?$
bool is_rocm_fill_kernel(std::string_view name) {
  strip_suffix(name, ".kd");
  if (!strip_prefix(name, "__amd_rocclr_fillBuffer")) return false;
  strip_prefix(name, "Aligned");
  return name.empty();
}

}  // namespace

GpuActivityByName::GpuActivityByName(const index::EventIndex& index) : index_(index) {}

GpuActivity GpuActivityByName::operator()(Row gpu_row) {
  auto& known = known_[static_cast<int>(index_.kind(gpu_row))];
  if (known.empty()) known.assign(index_.strings().size(), kUnknown);
  std::uint8_t& a = known[index_.name_id(gpu_row)];
  if (a == kUnknown)
    a = static_cast<std::uint8_t>(classify_gpu_event(index_.kind(gpu_row), index_.name(gpu_row)));
  return static_cast<GpuActivity>(a);
}

GpuActivity classify_gpu_event(EventKind kind, std::string_view name) {
  if (kind == EventKind::kGpuMemcpy) return GpuActivity::kMemcpy;
  if (kind == EventKind::kKernel) {
    if (is_rocm_copy_kernel(name)) return GpuActivity::kMemcpy;
    if (is_rocm_fill_kernel(name)) return GpuActivity::kComputation;
  }
  // NCCL / RCCL kernels (the reference's rule) and the other collective kernels of
  // diagnosis.md §4 (symmetric-memory and custom all-reduces): communication, not computation.
  if (collective::classify_kernel(name).is_collective()) return GpuActivity::kCommunication;
  return GpuActivity::kComputation;
}

GpuTimeline compute_gpu_timeline(const index::EventIndex& index, const LaunchLinks& links,
                                 const GpuTimelineOptions& options) {
  using Span = Interval<double>;
  std::vector<Span> computation, communication, memcpy, all;
  // File order, as the reference's event list; the stable sort in merge keeps it for ties.
  const std::vector<Row> rows = index::gpu_rows_in_file_order(index);
  GpuActivityByName activity(index);
  // Most spans are computation: reserving for all of them spares the copies of regrowth, and
  // the capacity left untouched costs no memory.
  all.reserve(rows.size());
  computation.reserve(rows.size());
  for (Row r : rows) {
    if (!options.include_unlinked && !links.linked(r)) continue;
    Span span{index.ts_us(r), index.end_us(r)};
    all.push_back(span);
    switch (activity(r)) {
      case GpuActivity::kComputation:
        computation.push_back(span);
        break;
      case GpuActivity::kCommunication:
        communication.push_back(span);
        break;
      case GpuActivity::kMemcpy:
        memcpy.push_back(span);
        break;
    }
  }

  GpuTimeline t;
  t.events = all.size();
  if (all.empty()) return t;
  auto comp = merge_intervals(std::move(computation));
  auto comm = merge_intervals(std::move(communication));
  auto copy = merge_intervals(std::move(memcpy));
  auto busy = merge_intervals(std::move(all));
  t.total_us = busy.back().end - busy.front().start;
  t.computation_us = total_length(comp);
  t.total_comm_us = total_length(comm);
  t.exposed_comm_us = total_length(subtract_intervals(comm, comp));
  t.total_memcpy_us = total_length(copy);
  t.exposed_memcpy_us = total_length(subtract_intervals(subtract_intervals(copy, comp), comm));
  t.busy_us = total_length(busy);
  t.idle_us = t.total_us - t.busy_us;
  if (options.micro_idle_threshold_us > 0) {
    t.idle_split = true;
    const std::vector<Span> span = {{busy.front().start, busy.back().end}};
    for (const Span& gap : subtract_intervals(span, busy)) {
      const double length = gap.end - gap.start;
      (length < options.micro_idle_threshold_us ? t.micro_idle_us : t.macro_idle_us) += length;
    }
  }
  return t;
}

}  // namespace traceprism::model
