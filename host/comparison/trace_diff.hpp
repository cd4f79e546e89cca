// TraceDiff (trace-format spec §14.2): the two traces' call trees merged top-down, so that each
// host op of trace 1 meets its counterpart in trace 2 even where the two frameworks or GPUs
// lower it differently (aten::convolution -> miopen vs cudnn kernels, aten::mm vs aten::addmm).
// Matching follows the reference step by step: roots paired by position; at each merged node
// the GPU-path children aligned by position or by edit distance over normalized names, then
// same-name disambiguation, wrapper reconciliation and a second, detail-blind pass.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "index/event_index.hpp"
#include "model/call_tree.hpp"
#include "model/launch_links.hpp"

namespace traceprism::comparison {

// One trace as TraceDiff sees it: the call tree (trace-format spec §3.1) with each launch's
// GPU events as its children (§3.4).
struct DiffSide {
  const index::EventIndex& index;
  const model::CallTree& tree;
  const model::LaunchLinks& links;
};

inline constexpr std::int64_t kNoEvent = -1;

// A node of the merged tree: a pair of events ("combined"), or an event of one trace only.
struct MergedNode {
  std::int64_t row1 = kNoEvent, row2 = kNoEvent;  // the event in trace 1 / trace 2
  std::uint64_t first_child = 0;                  // into MergedTree::child_ids
  std::uint32_t child_count = 0;
  bool combined() const { return row1 != kNoEvent && row2 != kNoEvent; }
};

struct MergedTree {
  std::vector<MergedNode> nodes;     // by merged id, numbered in the order nodes are met
  std::vector<std::uint32_t> roots;  // merged ids of the root pairs
  // Every node's children (merged ids, in alignment order), one range per node: one array
  // rather than a list per node (a trace of millions of events merges into millions of nodes).
  std::vector<std::uint32_t> child_ids;
  std::span<const std::uint32_t> children(const MergedNode& n) const {
    return {child_ids.data() + n.first_child, n.child_count};
  }
};

// The reference's name normalization for alignment: hex addresses -> 0xXXXX, ".py(123):" ->
// ".py:", hipModuleLaunchKernel / cuLaunchKernel -> one token; `strip_details` also drops a
// trailing ": name" and a python frame's directories.
std::string normalized_name(std::string_view name, bool strip_details = false);

MergedTree merge_trees(const DiffSide& trace1, const DiffSide& trace2);

}  // namespace traceprism::comparison
