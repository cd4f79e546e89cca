// Signs that two traces come from different frameworks or software stacks, where matching
// operations and kernels by name or structure may mislead (the reference's documentation
// warns about it; issue 16).
#pragma once

#include <string>
#include <vector>

#include "index/event_index.hpp"
#include "model/launch_links.hpp"

namespace traceprism::comparison {

struct TraceStack {
  const index::EventIndex& index;
  const model::LaunchLinks& links;
};

// Share of trace 1's distinct CPU op names that trace 2 must also have before the op naming
// counts as the same.
inline constexpr double kSharedOpNamesPercent = 50.0;

// One sentence per sign, in a fixed order: GPU runtimes (CUDA vs HIP), graph replay in one
// trace only, CPU ops in one trace only, and op names that mostly differ.
std::vector<std::string> stack_mismatch_warnings(const TraceStack& trace1,
                                                 const TraceStack& trace2);

}  // namespace traceprism::comparison
