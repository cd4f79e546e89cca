// A bandwidth model for device-side copy ops that the reference has no perf model for
// (diagnosis spec §6.6): `aten::cat`, `aten::_to_copy`, `aten::clone`, `aten::contiguous` whose
// GPU work is copy kernels, not host <-> device memcpy events (those belong to the memcpy
// analysis). Bytes moved = every input read + the output written; roofline time = bytes / HBM
// bandwidth. It feeds the analyzers' op_metrics only: the perf-report sheets stay the
// reference's (docs/compatibility.md, "Op models").
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "perf_report/kernel_details_summary.hpp"
#include "perf_report/unified_perf_table.hpp"
#include "platform/platform_info.hpp"

namespace traceprism::perf_report {

// Bytes one call moves, from the summary row's cells (Python tuple literals as the sheet prints
// them) and its kernels (cat's TensorList has no dtype: the element size comes from the copy
// kernel's `OpaqueType<N>`); nullopt when the op is not one of the modelled copies, when a
// kernel is a memcpy / memset, or when a size is unknown.
std::optional<double> device_copy_bytes(std::string_view op_name, std::string_view input_dims,
                                        std::string_view input_type,
                                        std::string_view concrete_inputs,
                                        const std::vector<KernelSummaryEntry>& kernels);

// Fills the perf-model and roofline columns of every unmodelled device-copy group of `table`
// (has_perf_model becomes true, Roofline Bound MEMORY_BOUND, 0 FLOPs); nothing without a
// platform HBM bandwidth. Per-instance rates come from the group's kernel-time statistics:
// the mean is the time-weighted one (bytes / mean time), the std is unknown (NaN).
void add_device_copy_models(UnifiedPerfTable& table, const platform::PlatformInfo* platform);

}  // namespace traceprism::perf_report
