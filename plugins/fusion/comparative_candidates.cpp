#include "comparative_candidates.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "candidate_extraction.hpp"
#include "gpu_events_below.hpp"
#include "kernel_classifier.hpp"
#include "name_text.hpp"

namespace traceprism::plugins::fusion {
namespace {

constexpr std::size_t kMaxKernelDelta = 15;    // G2: a larger delta is structural divergence
constexpr std::size_t kMaxTrace1Kernels = 30;  // G3

// The trace-1 kernels trace 2 does without are all infrastructure or all layout transposes
// (a tile or autotuner choice): no fusion to gain.
bool delta_is_not_fusion(std::vector<CandidateKernel> t1, std::size_t n2) {
  std::stable_sort(t1.begin(), t1.end(), [](const CandidateKernel& a, const CandidateKernel& b) {
    return a.dur_us < b.dur_us;
  });
  t1.resize(t1.size() - n2);
  auto all = [&](std::initializer_list<std::string_view> parts) {
    return std::all_of(t1.begin(), t1.end(), [&](const CandidateKernel& k) {
      return contains_any(lower(k.name), parts);
    });
  };
  return all({"nccl", "rccl", "memcpy", "memset"}) ||
         all({"batched_transpose", "nchw2nhwc", "nhwc2nchw", "transpose_nchw", "transpose_cnhw"});
}

bool case_a_gap(const std::vector<CandidateKernel>& t1, const std::vector<CandidateKernel>& t2) {
  const std::size_t n1 = t1.size(), n2 = t2.size();
  if (n1 <= n2 || n1 - n2 > kMaxKernelDelta || n1 > kMaxTrace1Kernels || n2 < 1) return false;
  return !delta_is_not_fusion(t1, n2);
}

CandidateKernel kernel_of(const DiffKernel& d, std::int64_t row) {
  CandidateKernel k;
  k.name = std::string(d.name);
  k.type = classify_kernel(d.name);
  k.dur_us = d.dur_us;
  k.gpu_row = row;
  return k;
}

double total_us(const std::vector<CandidateKernel>& ks) {
  double t = 0;
  for (const CandidateKernel& k : ks) t += k.dur_us;
  return t;
}

// The time of trace 1's (n1 − n2) shortest kernels: what trace 2 does without.
double extra_us(const std::vector<CandidateKernel>& t1, std::size_t n2) {
  std::vector<double> durs;
  for (const CandidateKernel& k : t1) durs.push_back(k.dur_us);
  std::sort(durs.begin(), durs.end());
  double t = 0;
  for (std::size_t i = 0; i + n2 < durs.size(); ++i) t += durs[i];
  return t;
}

// Per node with >= 2 GPU events below, its trace-1 kernels that diff_stats lists, in the
// reference's gpu_events order; only for nodes with 2 .. kMaxTrace1Kernels such kernels (the
// others fail the gates whatever they are: a layer or a step holds hundreds).
std::map<std::int32_t, std::vector<std::int32_t>> diff_kernels_below(const FusionInputs& in,
                                                                     const GpuEventsBelow& gpu) {
  const TraceRows& rows = in.rows;
  std::vector<std::uint32_t> listed(rows.size(), 0);
  for (std::size_t g = 0; g < rows.size(); ++g) {
    if (!is_gpu(rows.kind[g]) || !in.trace_diff->trace1_at(static_cast<std::int32_t>(g))) continue;
    for (std::int32_t n = rows.launcher(g); n >= 0; n = rows.parent(static_cast<std::size_t>(n)))
      ++listed[static_cast<std::size_t>(n)];
  }
  std::vector<std::int32_t> nodes;
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (groups_kernels(rows.kind[r]) && gpu.count(r) >= 2 && listed[r] >= 2 &&
        listed[r] <= kMaxTrace1Kernels)
      nodes.push_back(static_cast<std::int32_t>(r));
  auto lists = gpu.lists(nodes);
  for (auto& [node, list] : lists) {
    std::vector<std::int32_t> kept;
    std::set<std::int32_t> seen;
    for (std::int32_t g : list)
      if (in.trace_diff->trace1_at(g) && seen.insert(g).second) kept.push_back(g);
    list = std::move(kept);
  }
  return lists;
}

// One per trace-1 kernel-name sequence: a module over a frame, then the deeper one.
std::vector<FusionCandidate> dedup_by_kernel_names(std::vector<FusionCandidate> candidates) {
  auto score = [](const FusionCandidate& c) {
    return std::make_pair(starts_with(c.module_name, "nn.Module:"), c.parent_chain.size());
  };
  std::vector<FusionCandidate> out;
  std::map<std::vector<std::string>, std::size_t> seen;
  for (FusionCandidate& c : candidates) {
    std::vector<std::string> names;
    for (const CandidateKernel& k : c.kernels) names.push_back(k.name);
    auto [it, fresh] = seen.try_emplace(std::move(names), out.size());
    if (fresh)
      out.push_back(std::move(c));
    else if (score(c) > score(out[it->second]))
      out[it->second] = std::move(c);
  }
  return out;
}

}  // namespace

std::vector<FusionCandidate> extract_comparative_candidates(const FusionInputs& in) {
  if (!in.trace_diff) return {};
  const TraceDiffInputs& diff = *in.trace_diff;
  const GpuEventsBelow gpu(in.rows);
  std::vector<FusionCandidate> by_order;
  std::map<std::string, std::size_t, std::less<>> seen;
  for (const auto& [node, rows] : diff_kernels_below(in, gpu)) {
    if (rows.size() < 2) continue;
    const auto r = static_cast<std::size_t>(node);
    std::string base = strip_module_index(in.rows.name(r));
    if (base.empty()) continue;
    std::vector<CandidateKernel> t1, t2;
    std::set<std::int64_t> lcas;
    for (std::int32_t g : rows) {
      const DiffKernel& d = *diff.trace1_at(g);
      t1.push_back(kernel_of(d, g));
      lcas.insert(d.lca_id);
    }
    for (std::int64_t lca : lcas)
      if (auto it = diff.trace2_by_lca.find(lca); it != diff.trace2_by_lca.end())
        for (const DiffKernel& d : it->second) t2.push_back(kernel_of(d, -1));
    if (!case_a_gap(t1, t2)) continue;
    if (auto it = seen.find(base); it != seen.end()) {
      FusionCandidate& c = by_order[it->second];
      ++c.instance_count;
      c.total_kernel_time_us += total_us(t1);
      c.measured_time_us = c.total_kernel_time_us;
      c.trace2->total_kernel_time_us += total_us(t2);
      c.trace2->extra_kernel_time_us += extra_us(t1, t2.size());
      c.instance_rows.push_back(node);
      continue;
    }
    FusionCandidate c;
    c.module_name = std::string(in.rows.name(r));
    c.base_name = base;
    c.parent_chain = ancestor_names(in.rows, node);
    c.kernel_count = static_cast<int>(t1.size());
    c.eligible_kernel_count = c.kernel_count;
    c.total_kernel_time_us = total_us(t1);
    c.measured_time_us = c.total_kernel_time_us;
    c.has_fused_kernel = holds_fused_kernel(t1);
    c.instance_rows.push_back(node);
    if (in.rows.input_dims) c.input_dims = in.rows.input_dims(r);
    c.kernels = std::move(t1);
    c.trace2 = FusionCandidate::TraceTwo{t2, total_us(t2), extra_us(c.kernels, t2.size())};
    seen.emplace(std::move(base), by_order.size());
    by_order.push_back(std::move(c));
  }
  std::vector<FusionCandidate> faster_in_trace2;
  for (FusionCandidate& c : by_order)
    if (c.total_kernel_time_us >= c.trace2->total_kernel_time_us)
      faster_in_trace2.push_back(std::move(c));
  return dedup_by_kernel_names(std::move(faster_in_trace2));
}

}  // namespace traceprism::plugins::fusion
