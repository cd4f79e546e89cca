// The comm analyzer's prose: counts per step said plainly, and the action aimed at the
// collective types that hold the exposed time, each sentence only when its precondition holds
// (diagnosis.md §1.1, §4). Header of a C++17 plugin.
#pragma once

#include <string>
#include <vector>

#include "collective_stats.hpp"

namespace traceprism::plugins::comm {

// What the advice may rely on besides the measurements.
struct AdviceContext {
  bool training = false;     // the host shows backward ops
  double many_per_step = 8;  // collectives per step from which they are "many"
  double material_us = 0;    // a type's exposed time from which it gets its own sentence
  double small_message_bytes = 1 << 20;  // a median message below this (1 MiB) is "small"
};

struct Advice {
  std::string action;
  std::vector<const TypeStats*> addressed;  // the types the action speaks to, most exposed first
};

// "12 per step over 3 steps", "all 12 in one step (ProfilerStep#4)", ... (no leading count).
std::string per_step_text(const TypeStats& t, const std::vector<Step>& steps);

// Collectives per step (the mean over the steps; the whole window when the trace has none).
double per_step(const TypeStats& t, const std::vector<Step>& steps);

// The action: one sentence for the type holding the most exposed time, one for every other type
// whose exposed time is material on its own, then the statement that one rank's trace cannot
// show skew between ranks.
Advice advise(const CollectiveStats& stats, const AdviceContext& context);

}  // namespace traceprism::plugins::comm
