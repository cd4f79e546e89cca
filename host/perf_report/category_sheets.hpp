#pragma once

#include <string>
#include <utility>
#include <vector>

#include "perf_report/gpu_subtrees.hpp"
#include "perf_report/perf_sheet_inputs.hpp"
#include "perf_report/sheet_table.hpp"

namespace traceprism::perf_report {

// The per-category perf-model sheets (trace-format spec §8.6, perf-model spec §11.4) as
// typed sheets, in the reference's family order: GEMM, SDPA_fwd, SDPA_bwd,
// CONV_fwd, CONV_bwd, ..., UnaryElementwise, ..., Normalization, Reduce_fwd, Reduce_bwd.
// Every event in the tree whose name has a perf model is a row (nested ops too), grouped by
// name and the model's parameters. GEMM, UnaryElementwise, BinaryElementwise and
// Normalization get one forward sheet; every other family a _fwd sheet and a _bwd sheet
// (backward numbers through autograd links). Empty sheets are left out.
std::vector<PerfSheet> build_category_sheets(const CategorySheetInputs& inputs);
// The same with the caller's GpuSubtrees (shared with the unified table).
std::vector<PerfSheet> build_category_sheets(const CategorySheetInputs& inputs,
                                             const GpuSubtrees& subtrees);

}  // namespace traceprism::perf_report
