// The multi-rank heat map of the Multi-Rank Overview appendix (multi-rank.md §9.3) as an SVG:
// two panels side by side, "Computation % of each step bin" and "Communication % of each step
// bin", one row per rank (or per node beyond 64 ranks) and one column per step-normalised bin,
// each cell shaded from white (0%) to the panel's dark colour (100%), like Nsight's
// cuda_gpu_time_util_map / nccl_gpu_time_util_map. SVG keeps the bytes deterministic and needs
// no rasterizer, fonts or image library.
#pragma once

#include <string>

#include "pipeline/analysis_report.hpp"

namespace traceprism::report {

inline constexpr const char* kMultiRankHeatmapFile = "multi_rank_heatmap.svg";

// Rows from facts.heat_rows by ascending rank, labelled "rank R"; the slowest ranks' labels are
// bold with a leading "▲", the focus rank's carries " (focus)". More than 64 ranks: one row per
// node (ascending, an unknown node last), the mean of its ranks' values per bin, labelled
// "node N (k ranks)"; more than 64 nodes: consecutive nodes merged so that at most 64 rows
// remain ("nodes A–B (k ranks)"). A row without values (no steps) is a grey band reading
// "no steps"; bins a row lacks (shorter vector, NaN) are grey cells. Values are clamped to
// 0-100. Same input, same bytes.
std::string multi_rank_heatmap_svg(const pipeline::MultiRankFacts& facts);

}  // namespace traceprism::report
