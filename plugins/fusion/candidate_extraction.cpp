#include "candidate_extraction.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <traceprism/collective.hpp>
#include <traceprism/fused_attention.hpp>

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

// Kernels that are already fused: attention (the SDK's one list, diagnosis.md §1.1) and the
// fused SiLU*mul.
bool is_already_fused(std::string_view name, std::string_view lower_name) {
  return is_fused_attention_kernel(name) || contains(lower_name, "silu_and_mul");
}

bool has_fused_kernel(const std::vector<CandidateKernel>& kernels) {
  return std::any_of(kernels.begin(), kernels.end(), [](const CandidateKernel& k) {
    return is_already_fused(k.name, lower(k.name));
  });
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

// True when `ancestor` is above `row` in the call tree.
bool is_below(const TraceRows& rows, std::size_t row, std::int32_t ancestor) {
  for (std::int32_t p = rows.parent(row); p >= 0; p = rows.parent(static_cast<std::size_t>(p)))
    if (p == ancestor) return true;
  return false;
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
      // A module nested in one of its own name (Sequential in Sequential) ran no kernel the
      // outer instance did not already count.
      if (is_below(rows, r, c.instance_rows.back())) continue;
      c.measured_time_us += gpu.kernel_time_us(r);
      c.instance_rows.push_back(static_cast<std::int32_t>(r));
      continue;
    }
    if (gpu.kernel_count(r) < 2) continue;
    FusionCandidate c;
    c.module_name = std::string(rows.name(r));
    c.base_name = base;
    c.parent_chain = parent_chain_of(rows, static_cast<std::int32_t>(r));
    c.total_kernel_time_us = gpu.kernel_time_us(r);  // the sum over its kernels, in order
    c.measured_time_us = c.total_kernel_time_us;
    c.instance_rows.push_back(static_cast<std::int32_t>(r));
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
      k.eligible = !is_excluded_kernel(k.name, lower_name) && !is_already_fused(k.name, lower_name);
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
    std::vector<std::int32_t> kernel_rows;
    for (const SiblingOp& m : members) {
      total += rows.dur_us(static_cast<std::size_t>(m.kernel));
      kernel_rows.push_back(m.kernel);
    }
    std::string base = strip_module_index(rows.name(static_cast<std::size_t>(parent)));
    if (auto it = seen.find(base); it != seen.end()) {
      FusionCandidate& c = out[it->second];
      ++c.instance_count;
      c.total_kernel_time_us += total;
      c.measured_time_us += total;  // each parent's own leaf ops: no kernel counted twice
      c.instance_kernel_rows.push_back(std::move(kernel_rows));
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
    c.total_kernel_time_us = c.measured_time_us = total;
    c.instance_kernel_rows.push_back(std::move(kernel_rows));
    c.sibling_sequence = true;
    if (rows.input_dims) c.input_dims = rows.input_dims(static_cast<std::size_t>(parent));
    seen.emplace(std::move(base), out.size());
    out.push_back(std::move(c));
  }
  return out;
}

// Step 3: unfused attention (GEMM, ..., softmax, ..., GEMM) narrows to QK^T .. PV.
class AttentionNarrowing {
 public:
  explicit AttentionNarrowing(const KernelPerfLookup& lookup) : lookup_(lookup) {}

  // The [QK^T, PV] positions around the first softmax with a GEMM on both sides.
  template <class NameOf>
  std::optional<std::pair<std::size_t, std::size_t>> span(std::size_t n, NameOf name_of) const {
    for (std::size_t i = 0; i < n; ++i) {
      if (!contains(lower(name_of(i)), "softmax")) continue;
      std::optional<std::size_t> qk, pv;
      for (std::size_t j = i; j-- > 0;)
        if (is_gemm(name_of(j))) {
          qk = j;
          break;
        }
      for (std::size_t j = i + 1; j < n; ++j)
        if (is_gemm(name_of(j))) {
          pv = j;
          break;
        }
      if (qk && pv) return std::make_pair(*qk, *pv);
    }
    return std::nullopt;
  }

 private:
  bool is_gemm(std::string_view kernel) const {
    const KernelPerfLookup::ShapeEntries* entries = lookup_.entries(kernel);
    if (!entries) return false;
    return std::any_of(entries->begin(), entries->end(),
                       [](const auto& e) { return e.second.op_category == "GEMM"; });
  }

  const KernelPerfLookup& lookup_;
};

// The first instance's span sets the candidate's kernels and the reference's figure (that span
// × the instance count); true when the candidate narrowed.
bool narrow_first_instance(FusionCandidate& c, const AttentionNarrowing& narrowing) {
  const auto span = narrowing.span(
      c.kernels.size(), [&](std::size_t i) -> const std::string& { return c.kernels[i].name; });
  if (!span) return false;
  c.kernels = std::vector<CandidateKernel>(
      c.kernels.begin() + static_cast<std::ptrdiff_t>(span->first),
      c.kernels.begin() + static_cast<std::ptrdiff_t>(span->second) + 1);
  c.kernel_count = c.eligible_kernel_count = static_cast<int>(c.kernels.size());
  double total = 0;
  for (const CandidateKernel& k : c.kernels) total += k.dur_us;
  c.total_kernel_time_us = total * c.instance_count;
  c.narrowed_attention = true;
  return true;
}

// diagnosis.md §6.2: each instance narrows to its own span (a vision encoder's attention is not
// a text encoder's); an instance without one adds nothing.
void narrow_each_instance(FusionCandidate& c, std::vector<std::vector<std::int32_t>> instances,
                          const TraceRows& rows, const AttentionNarrowing& narrowing) {
  c.measured_time_us = 0;
  c.instance_rows.clear();
  c.instance_kernel_rows.clear();
  c.instance_kernels.clear();
  for (std::vector<std::int32_t>& kernels : instances) {
    const auto span = narrowing.span(kernels.size(), [&](std::size_t i) {
      return rows.name(static_cast<std::size_t>(kernels[i]));
    });
    if (!span) continue;
    std::vector<std::int32_t> own(kernels.begin() + static_cast<std::ptrdiff_t>(span->first),
                                  kernels.begin() + static_cast<std::ptrdiff_t>(span->second) + 1);
    std::vector<FusionCandidate::InstanceKernel>& named = c.instance_kernels.emplace_back();
    for (std::int32_t k : own) {
      const auto row = static_cast<std::size_t>(k);
      c.measured_time_us += rows.dur_us(row);
      named.push_back({std::string(rows.name(row)), rows.dur_us(row)});
    }
    c.instance_kernel_rows.push_back(std::move(own));
  }
}

void narrow_attention(std::vector<FusionCandidate>& candidates, const FusionInputs& in,
                      const GpuEventsBelow& gpu, const KernelPerfLookup& lookup) {
  const AttentionNarrowing narrowing(lookup);
  std::vector<FusionCandidate*> narrowed;
  std::vector<std::int32_t> subtrees;  // the tree-walk instances of the narrowed candidates
  for (FusionCandidate& c : candidates) {
    if (!narrow_first_instance(c, narrowing)) continue;
    narrowed.push_back(&c);
    subtrees.insert(subtrees.end(), c.instance_rows.begin(), c.instance_rows.end());
  }
  if (narrowed.empty()) return;
  const auto lists = gpu.lists(subtrees);
  for (FusionCandidate* c : narrowed) {
    std::vector<std::vector<std::int32_t>> instances = c->instance_kernel_rows;
    for (std::int32_t row : c->instance_rows) {
      std::vector<std::int32_t> kernels;
      for (std::int32_t g : lists.at(row))
        if (in.rows.kind[static_cast<std::size_t>(g)] == RowKind::kKernel) kernels.push_back(g);
      instances.push_back(std::move(kernels));
    }
    narrow_each_instance(*c, std::move(instances), in.rows, narrowing);
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
  narrow_attention(candidates, inputs, gpu, lookup);
  candidates = dedup_by_kernel_names(std::move(candidates));
  for (FusionCandidate& c : candidates) add_data_movement(c, lookup);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const FusionCandidate& a, const FusionCandidate& b) {
                     return a.total_kernel_time_us > b.total_kernel_time_us;
                   });
  return candidates;
}

std::vector<bool> covered_kernels(const TraceRows& rows,
                                  const std::vector<const FusionCandidate*>& candidates) {
  std::vector<bool> covered(rows.size(), false), subtree(rows.size(), false);
  bool any_subtree = false;
  for (const FusionCandidate* c : candidates) {
    for (const auto& kernels : c->instance_kernel_rows)
      for (std::int32_t g : kernels) covered[static_cast<std::size_t>(g)] = true;
    for (std::int32_t r : c->instance_rows)
      subtree[static_cast<std::size_t>(r)] = any_subtree = true;
  }
  if (!any_subtree) return covered;
  for (std::size_t g = 0; g < rows.size(); ++g) {
    if (rows.kind[g] != RowKind::kKernel || covered[g]) continue;
    for (std::int32_t p = rows.launcher(g); p >= 0; p = rows.parent(static_cast<std::size_t>(p)))
      if (subtree[static_cast<std::size_t>(p)]) {
        covered[g] = true;
        break;
      }
  }
  return covered;
}

double kernel_time_us(const TraceRows& rows, const std::vector<bool>& marked) {
  double us = 0;
  for (std::size_t g = 0; g < marked.size(); ++g)
    if (marked[g] && rows.kind[g] == RowKind::kKernel) us += rows.dur_us(g);
  return us;
}

double covered_kernel_time_us(const TraceRows& rows,
                              const std::vector<const FusionCandidate*>& candidates) {
  return kernel_time_us(rows, covered_kernels(rows, candidates));
}

std::vector<std::string> ancestor_names(const TraceRows& rows, std::int32_t row) {
  return parent_chain_of(rows, row);
}

bool groups_kernels(RowKind kind) {
  return is_container_event(kind);
}

bool holds_fused_kernel(const std::vector<CandidateKernel>& kernels) {
  return has_fused_kernel(kernels);
}

}  // namespace traceprism::plugins::fusion
