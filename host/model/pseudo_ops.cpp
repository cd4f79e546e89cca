#include "model/pseudo_ops.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <unordered_set>

#include "index/op_args.hpp"
#include "io/ascii_text.hpp"

namespace traceprism::model {

namespace {

using index::EventKind;

constexpr std::string_view kMoeForward = "vllm::moe_forward";
constexpr std::string_view kAiterFusedMoe = "vllm::rocm_aiter_fused_moe";
constexpr std::int64_t kDefaultTopk = 4;  // the reference's default when no TopK op is found
constexpr int kTopkSearchDepth = 10;

bool name_has(const index::EventIndex& index, Row r, std::string_view part) {
  return io::ascii_lower(index.name(r)).find(part) != std::string::npos;
}

// The reference's auto-detection (apply_pseudo_op_extensions).
bool runs_unfused_triton_moe(const index::EventIndex& index) {
  bool moe_forward = false;
  for (Row r : index.rows_of_kind(EventKind::kCpuOp)) {
    if (index.name(r) == kAiterFusedMoe) return false;
    moe_forward = moe_forward || index.name(r) == kMoeForward;
  }
  if (!moe_forward) return false;
  const auto kernels = index.rows_of_kind(EventKind::kKernel);
  return std::any_of(kernels.begin(), kernels.end(),
                     [&](Row k) { return name_has(index, k, "matmul_ogs"); });
}

// The GPU events launched below `op`, in row order.
std::vector<Row> gpu_events_below(const CallTree& tree, const LaunchLinks& links, Row op) {
  std::vector<Row> out, stack{op};
  while (!stack.empty()) {
    const Row r = stack.back();
    stack.pop_back();
    for (Row gpu : links.launched(r)) out.push_back(gpu);
    for (Row child : tree.children(r)) stack.push_back(child);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::int64_t> topk_of(const index::EventIndex& index, Row r) {
  const std::optional<index::OpArgs> args = index.op_args(r);
  if (!args || args->concrete_inputs == index::kNoString) return std::nullopt;
  const std::vector<std::string> concrete =
      index::parse_string_list(index.strings().view(args->concrete_inputs));
  if (concrete.size() < 2 || concrete[1].empty()) return std::nullopt;
  std::string_view text = concrete[1];
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> search_topk(const index::EventIndex& index, const CallTree& tree, Row r,
                                        int depth) {
  if (depth > kTopkSearchDepth) return std::nullopt;
  if (index.name(r).find("TopK") != std::string_view::npos)
    if (const auto topk = topk_of(index, r)) return topk;
  for (Row child : tree.children(r))
    if (const auto topk = search_topk(index, tree, child, depth + 1)) return topk;
  return std::nullopt;
}

// Builds one moe_forward's pseudo ops.
class MoePseudoOps {
 public:
  MoePseudoOps(const index::EventIndex& index, const CallTree& tree, const LaunchLinks& links,
               PseudoOpPlan& plan)
      : index_(index), tree_(tree), links_(links), plan_(plan) {}

  void add(Row moe_forward) {
    const std::vector<Row> gpu = gpu_events_below(tree_, links_, moe_forward);
    std::vector<Row> gemms;
    for (Row g : gpu)
      if (index_.kind(g) == EventKind::kKernel && name_has(index_, g, "matmul_ogs"))
        gemms.push_back(g);
    if (gemms.empty()) return;
    const std::int64_t topk = moe_topk(index_, tree_, moe_forward);
    std::stable_sort(gemms.begin(), gemms.end(),
                     [&](Row a, Row b) { return index_.ts_us(a) < index_.ts_us(b); });
    for (std::size_t i = 0; i < gemms.size(); ++i) {
      // The first GEMM is the up projection, every later one a down projection.
      const std::string type = i == 0 ? "up" : "down";
      const bool gated =
          name_has(index_, gemms[i], "_swiglu") || name_has(index_, gemms[i], "_glu");
      insert(moe_forward, gemms[i], "pseudo_op::moe_triton_unfused_" + type,
             "{\"MoE GEMM type\":\"" + type + "\",\"MoE GEMM index\":" + std::to_string(i) +
                 ",\"MoE GEMM gated\":" + (gated ? "true" : "false") +
                 ",\"MoE topk\":" + std::to_string(topk) + "}");
    }
    std::vector<Row> scatter;
    for (Row g : gpu)
      if (name_has(index_, g, "matmul_scatter")) scatter.push_back(g);
    if (scatter.size() == 1)  // the reference gives up on an op with several
      insert(moe_forward, scatter.front(), "pseudo_op::moe_triton_unfused_finalize_matmul_scatter",
             "{\"MoE GEMM type\":\"finalize_matmul_scatter\"}");
  }

 private:
  // The pseudo op goes between the kernel's launch and the launch's parent.
  void insert(Row moe_forward, Row kernel, std::string name, std::string own_args) {
    const std::int32_t launch = links_.launcher(kernel);
    if (launch < 0) return;
    const std::int32_t parent = tree_.parent(static_cast<Row>(launch));
    if (parent < 0 || !adopted_.insert(static_cast<Row>(launch)).second) return;
    plan_.rows.push_back(
        {moe_forward, static_cast<Row>(parent), std::move(name), std::move(own_args)});
    plan_.launches.push_back(static_cast<Row>(launch));
  }

  const index::EventIndex& index_;
  const CallTree& tree_;
  const LaunchLinks& links_;
  PseudoOpPlan& plan_;
  std::unordered_set<Row> adopted_;
};

}  // namespace

std::optional<std::string> normalized_op_name(std::string_view name) {
  constexpr std::string_view kPrefix = "sglang_profiler::";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  std::size_t end = name.size();
  while (end > kPrefix.size() && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  if (end == name.size() || end <= kPrefix.size() + 1 || name[end - 1] != '_') return std::nullopt;
  return std::string(name.substr(0, end - 1));
}

std::int64_t moe_topk(const index::EventIndex& index, const CallTree& tree, Row moe_forward) {
  for (Row child : tree.children(moe_forward))
    if (const auto topk = search_topk(index, tree, child, 0)) return *topk;
  return kDefaultTopk;
}

PseudoOpPlan plan_moe_unfused_pseudo_ops(const index::EventIndex& index, const CallTree& tree,
                                         const LaunchLinks& links) {
  PseudoOpPlan plan;
  if (!runs_unfused_triton_moe(index)) return plan;
  MoePseudoOps ops(index, tree, links, plan);
  for (Row r : index.rows_of_kind(EventKind::kCpuOp))
    if (index.name(r) == kMoeForward && tree.in_tree(r)) ops.add(r);
  return plan;
}

Grafts pseudo_op_grafts(const Grafts* base, Row first_row, const PseudoOpPlan& plan) {
  Grafts grafts = base ? *base : Grafts{first_row, {}, {}};
  grafts.parent.resize(first_row + plan.rows.size() - grafts.first_row, kNoParent);
  for (std::size_t i = 0; i < plan.rows.size(); ++i)
    grafts.adoptions.emplace_back(first_row + static_cast<Row>(i), plan.launches[i]);
  return grafts;
}

}  // namespace traceprism::model
