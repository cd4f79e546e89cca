#include "candidate_extraction.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include <traceprism/collective.hpp>

#include "gpu_events_below.hpp"
#include "kernel_classifier.hpp"
#include "name_text.hpp"

namespace traceprism::plugins::fusion {
namespace {

constexpr std::string_view kModulePrefix = "nn.Module: ";

// Kernels that fusion cannot touch: collectives (NCCL/RCCL and the custom all-reduce kernels,
// traceprism/collective.hpp) and copies.
bool is_excluded_kernel(std::string_view name, std::string_view lower_name) {
  return collective::classify_kernel(name).type != collective::Type::kNone ||
         contains_any(lower_name, {"memcpy", "memset"});
}

// Kernels that are already fused (flash/fused attention, fused SiLU*mul).
bool is_already_fused(std::string_view lower_name) {
  return contains_any(lower_name, {"attn_fwd", "attn_bwd", "fmha", "unified_attention",
                                   "paged_attention", "flash_attn", "flash_fwd", "silu_and_mul"});
}

bool has_fused_kernel(const std::vector<CandidateKernel>& kernels) {
  return std::any_of(kernels.begin(), kernels.end(),
                     [](const CandidateKernel& k) { return is_already_fused(lower(k.name)); });
}

// GEMM/conv plus only norms, residual adds or casts: BN folding territory, not kernel fusion.
bool is_gemm_norm_only(const FusionCandidate& c) {
  auto is_gemm = [](const CandidateKernel& k) {
    const std::string type = upper(k.type);
    return type == "GEMM" || type == "GEMM (GENERIC)" || contains(lower(k.name), "conv");
  };
  if (std::none_of(c.kernels.begin(), c.kernels.end(), is_gemm)) return false;
  bool any_other = false;
  for (const CandidateKernel& k : c.kernels) {
    if (is_gemm(k)) continue;
    any_other = true;
    const bool norm = contains_any(lower(k.name), {"batchnorm", "layernorm", "groupnorm",
                                                   "instancenorm", "rmsnorm"}) ||
                      k.type == "Elementwise Add" || k.type == "Copy/Cast";
    if (!norm) return false;
  }
  return any_other;
}

std::vector<std::string> parent_chain_of(const TraceRows& rows, std::int32_t row) {
  std::vector<std::string> chain;
  for (std::int32_t p = rows.parent(static_cast<std::size_t>(row)); p >= 0;
       p = rows.parent(static_cast<std::size_t>(p))) {
    std::string_view name = rows.name(static_cast<std::size_t>(p));
    if (name.empty()) continue;
    if (starts_with(name, kModulePrefix)) {
      name.remove_prefix(kModulePrefix.size());
    } else if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos) {
      name.remove_prefix(slash + 1);
    }
    chain.emplace_back(name);
  }
  return chain;
}

bool is_container_event(RowKind kind) {
  return kind != RowKind::kKernel && kind != RowKind::kGpuMemory && kind != RowKind::kRuntime &&
         kind != RowKind::kDriver;
}

// Step 1: modules and frames with >= 2 kernels; later instances of a base name only add to
// the first one's instance count and time.
std::vector<FusionCandidate> walk_modules(const FusionInputs& in, const GpuEventsBelow& gpu) {
  const TraceRows& rows = in.rows;
  std::vector<FusionCandidate> by_order;
  std::map<std::string, std::size_t, std::less<>> seen;
  std::vector<std::int32_t> definers;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!is_container_event(rows.kind[r]) || gpu.count(r) < 2) continue;
    std::string base = strip_module_index(rows.name(r));
    if (base.empty()) continue;
    if (auto it = seen.find(base); it != seen.end()) {
      FusionCandidate& c = by_order[it->second];
      ++c.instance_count;
      c.total_kernel_time_us += gpu.kernel_time_us(r);
      continue;
    }
    if (gpu.kernel_count(r) < 2) continue;
    FusionCandidate c;
    c.module_name = std::string(rows.name(r));
    c.base_name = base;
    c.parent_chain = parent_chain_of(rows, static_cast<std::int32_t>(r));
    c.total_kernel_time_us = gpu.kernel_time_us(r);  // the sum over its kernels, in order
    if (rows.input_dims) c.input_dims = rows.input_dims(r);
    seen.emplace(std::move(base), by_order.size());
    by_order.push_back(std::move(c));
    definers.push_back(static_cast<std::int32_t>(r));
  }
  const auto lists = gpu.lists(definers);
  for (std::size_t i = 0; i < by_order.size(); ++i) {
    FusionCandidate& c = by_order[i];
    for (std::int32_t g : lists.at(definers[i])) {
      const auto u = static_cast<std::size_t>(g);
      if (rows.kind[u] != RowKind::kKernel) continue;
      CandidateKernel k;
      k.name = std::string(rows.name(u));
      k.type = classify_kernel(k.name);
      k.dur_us = rows.dur_us(u);
      const std::string lower_name = lower(k.name);
      k.eligible = !is_excluded_kernel(k.name, lower_name) && !is_already_fused(lower_name);
      k.gpu_row = g;
      c.kernels.push_back(std::move(k));
    }
    c.kernel_count = static_cast<int>(c.kernels.size());
    c.eligible_kernel_count = static_cast<int>(std::count_if(
        c.kernels.begin(), c.kernels.end(), [](const CandidateKernel& k) { return k.eligible; }));
    c.has_fused_kernel = has_fused_kernel(c.kernels);
  }
  std::vector<FusionCandidate> kept;
  for (FusionCandidate& c : by_order) {
    if (c.has_fused_kernel || c.eligible_kernel_count < 2 || is_gemm_norm_only(c)) continue;
    kept.push_back(std::move(c));
  }
  return kept;
}

// Step 2: leaf ops that launch one kernel each, grouped under their parent. Only the first
// parent of each base name becomes a candidate with its kernels spelled out; later ones add
// their count and time (a trace repeats each layer hundreds of times).
std::vector<FusionCandidate> sibling_sequences(const FusionInputs& in, const GpuEventsBelow& gpu) {
  const TraceRows& rows = in.rows;
  struct SiblingOp {
    std::uint32_t group;  // the parent's position in first-appearance order
    std::int32_t op, kernel;
  };
  std::vector<std::int32_t> parents;
  std::unordered_map<std::int32_t, std::uint32_t> group_of;
  std::vector<SiblingOp> ops;
  for (const Row event : in.unified_events) {
    const auto op = static_cast<std::int32_t>(event);
    const auto o = static_cast<std::size_t>(op);
    if (gpu.count(o) != 1) continue;
    const std::int32_t parent = rows.parent(o);
    if (parent < 0) continue;
    const std::int32_t g = gpu.first(o);
    if (rows.kind[static_cast<std::size_t>(g)] != RowKind::kKernel) continue;
    auto [it, fresh] = group_of.try_emplace(parent, static_cast<std::uint32_t>(parents.size()));
    if (fresh) parents.push_back(parent);
    ops.push_back({it->second, op, g});
  }
  std::stable_sort(ops.begin(), ops.end(),
                   [](const SiblingOp& a, const SiblingOp& b) { return a.group < b.group; });
  std::vector<FusionCandidate> out;
  std::map<std::string, std::size_t, std::less<>> seen;
  for (auto first = ops.begin(); first != ops.end();) {
    auto last =
        std::find_if(first, ops.end(), [&](const SiblingOp& s) { return s.group != first->group; });
    const std::int32_t parent = parents[first->group];
    const Span<SiblingOp> members{&*first, static_cast<std::size_t>(last - first)};
    first = last;
    if (members.size() < 2) continue;
    double total = 0;
    for (const SiblingOp& m : members) total += rows.dur_us(static_cast<std::size_t>(m.kernel));
    std::string base = strip_module_index(rows.name(static_cast<std::size_t>(parent)));
    if (auto it = seen.find(base); it != seen.end()) {
      ++out[it->second].instance_count;
      out[it->second].total_kernel_time_us += total;
      continue;
    }
    FusionCandidate c;
    c.module_name = std::string(rows.name(static_cast<std::size_t>(parent)));
    c.base_name = base;
    for (const SiblingOp& m : members) {
      CandidateKernel k;
      k.op = std::string(rows.name(static_cast<std::size_t>(m.op)));
      k.name = std::string(rows.name(static_cast<std::size_t>(m.kernel)));
      k.type = classify_kernel(k.name);
      k.dur_us = rows.dur_us(static_cast<std::size_t>(m.kernel));
      k.gpu_row = m.kernel;
      c.kernels.push_back(std::move(k));
    }
    c.kernel_count = c.eligible_kernel_count = static_cast<int>(c.kernels.size());
    c.total_kernel_time_us = total;
    c.sibling_sequence = true;
    if (rows.input_dims) c.input_dims = rows.input_dims(static_cast<std::size_t>(parent));
    seen.emplace(std::move(base), out.size());
    out.push_back(std::move(c));
  }
  return out;
}

// Step 3: unfused attention (GEMM, ..., softmax, ..., GEMM) narrows to QK^T .. PV.
void narrow_attention(FusionCandidate& c, const KernelPerfLookup& lookup) {
  auto is_gemm = [&](const CandidateKernel& k) {
    const KernelPerfLookup::ShapeEntries* entries = lookup.entries(k.name);
    if (!entries) return false;
    return std::any_of(entries->begin(), entries->end(),
                       [](const auto& e) { return e.second.op_category == "GEMM"; });
  };
  const std::size_t n = c.kernels.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (!contains(lower(c.kernels[i].name), "softmax")) continue;
    std::optional<std::size_t> qk, pv;
    for (std::size_t j = i; j-- > 0;)
      if (is_gemm(c.kernels[j])) {
        qk = j;
        break;
      }
    for (std::size_t j = i + 1; j < n; ++j)
      if (is_gemm(c.kernels[j])) {
        pv = j;
        break;
      }
    if (!qk || !pv) continue;
    c.kernels =
        std::vector<CandidateKernel>(c.kernels.begin() + static_cast<std::ptrdiff_t>(*qk),
                                     c.kernels.begin() + static_cast<std::ptrdiff_t>(*pv) + 1);
    c.kernel_count = c.eligible_kernel_count = static_cast<int>(c.kernels.size());
    double total = 0;
    for (const CandidateKernel& k : c.kernels) total += k.dur_us;
    c.total_kernel_time_us = total * c.instance_count;
    return;
  }
}

// Step 4: one candidate per ordered kernel-name tuple, preferring nn.Module names, then the
// deeper one; the survivors keep the position where their tuple first appeared.
std::vector<FusionCandidate> dedup_by_kernel_names(std::vector<FusionCandidate> candidates) {
  auto score = [](const FusionCandidate& c) {
    return std::make_tuple(starts_with(c.module_name, "nn.Module:"), c.parent_chain.size());
  };
  std::vector<FusionCandidate> out;
  std::map<std::vector<std::string>, std::size_t> seen;
  for (FusionCandidate& c : candidates) {
    if (c.kernels.empty()) continue;
    std::vector<std::string> key;
    for (const CandidateKernel& k : c.kernels) key.push_back(k.name);
    auto it = seen.find(key);
    if (it == seen.end()) {
      seen.emplace(std::move(key), out.size());
      out.push_back(std::move(c));
    } else if (score(c) > score(out[it->second])) {
      out[it->second] = std::move(c);
    }
  }
  return out;
}

// Step 5: what each kernel reads and writes, from the perf report.
void add_data_movement(FusionCandidate& c, const KernelPerfLookup& lookup) {
  for (CandidateKernel& k : c.kernels) {
    if (k.data_in_mb) continue;
    const PerfEntry* e = lookup.find(
        k.name, c.input_dims ? std::optional<std::string_view>(*c.input_dims) : std::nullopt);
    if (!e || !e->data.in_mb) continue;
    k.data_in_mb = e->data.in_mb;
    k.data_out_mb = e->data.out_mb;
  }
}

}  // namespace

std::string strip_module_index(std::string_view name) {
  if (starts_with(name, kModulePrefix)) name.remove_prefix(kModulePrefix.size());
  std::size_t digits = 0;
  while (digits < name.size() &&
         std::isdigit(static_cast<unsigned char>(name[name.size() - 1 - digits])))
    ++digits;
  if (digits > 0 && digits < name.size() && name[name.size() - 1 - digits] == '_')
    name.remove_suffix(digits + 1);
  return std::string(name);
}

std::vector<FusionCandidate> extract_candidates(const FusionInputs& inputs,
                                                const KernelPerfLookup& lookup) {
  const GpuEventsBelow gpu(inputs.rows);
  std::vector<FusionCandidate> candidates = walk_modules(inputs, gpu);
  for (FusionCandidate& c : sibling_sequences(inputs, gpu)) candidates.push_back(std::move(c));
  for (FusionCandidate& c : candidates) narrow_attention(c, lookup);
  candidates = dedup_by_kernel_names(std::move(candidates));
  for (FusionCandidate& c : candidates) add_data_movement(c, lookup);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const FusionCandidate& a, const FusionCandidate& b) {
                     return a.total_kernel_time_us > b.total_kernel_time_us;
                   });
  return candidates;
}

}  // namespace traceprism::plugins::fusion
