#include "comparison/stack_mismatch.hpp"

#include <cstdio>
#include <set>
#include <string_view>

namespace traceprism::comparison {

namespace {

// "CUDA", "HIP", or "" (no launches): the runtime of most host calls that launched GPU work.
std::string launch_runtime(const TraceStack& t) {
  std::size_t cuda = 0, hip = 0;
  for (auto kind : {index::EventKind::kCudaRuntime, index::EventKind::kCudaDriver})
    for (index::Row r : t.index.rows_of_kind(kind)) {
      if (t.links.launched(r).empty()) continue;
      const std::string_view name = t.index.name(r);
      if (name.starts_with("hip"))
        ++hip;
      else if (name.starts_with("cu"))
        ++cuda;
    }
  if (cuda == 0 && hip == 0) return {};
  return hip > cuda ? "HIP" : "CUDA";
}

std::set<std::string_view> cpu_op_names(const index::EventIndex& x) {
  std::set<std::string_view> names;
  for (index::Row r : x.rows_of_kind(index::EventKind::kCpuOp))
    if (x.valid(r)) names.insert(x.name(r));
  return names;
}

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", v);
  return buf;
}

}  // namespace

std::vector<std::string> stack_mismatch_warnings(const TraceStack& trace1,
                                                 const TraceStack& trace2) {
  std::vector<std::string> out;
  const std::string rt1 = launch_runtime(trace1), rt2 = launch_runtime(trace2);
  if (!rt1.empty() && !rt2.empty() && rt1 != rt2)
    out.push_back("Trace 1 launches its GPU work through " + rt1 + " and trace 2 through " + rt2 +
                  ": kernel names differ between the vendors' libraries, so the kernel diff "
                  "lists most kernels on one side only; compare the categories instead.");
  const bool graphs1 = trace1.links.graph_launches() > 0;
  const bool graphs2 = trace2.links.graph_launches() > 0;
  if (graphs1 != graphs2)
    out.push_back(std::string("Only trace ") + (graphs1 ? "1" : "2") +
                  " replays GPU graphs: its replayed kernels have no CPU op of their own, so "
                  "operations cannot be matched one to one with the eager trace.");
  const auto ops1 = cpu_op_names(trace1.index), ops2 = cpu_op_names(trace2.index);
  if (ops1.empty() != ops2.empty()) {
    out.push_back(std::string("Only trace ") + (ops1.empty() ? "2" : "1") +
                  " has CPU ops: operations and categories can be compared only on that side.");
  } else if (!ops1.empty()) {
    std::size_t shared = 0;
    for (std::string_view name : ops1) shared += ops2.count(name);
    const double share = 100.0 * static_cast<double>(shared) / static_cast<double>(ops1.size());
    if (share < kSharedOpNamesPercent)
      out.push_back("Only " + percent(share) + " of trace 1's " + std::to_string(ops1.size()) +
                    " CPU op names also occur in trace 2: the traces look like different "
                    "frameworks or software versions, and matching operations by name or call "
                    "structure may mislead.");
  }
  return out;
}

}  // namespace traceprism::comparison
