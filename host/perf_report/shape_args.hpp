// The `args` text of an op (analysis-rules.md §4.3): its input shapes and dtypes as the compute
// Data tables print them, e.g. "(256,131072) bf16<br>(131072,512) bf16". The compute analyzers
// (plugins/common) render it; the host renders it again, independently, to check reports
// against the perf report and to read GEMM shapes for model identification.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <traceprism/dtype.hpp>

namespace traceprism::perf_report {

// The short dtype of a torch dtype name: one map for host and plugins (traceprism/dtype.hpp).
using traceprism::short_dtype;

// `Input Dims` and `Input type` cells (Python tuple literals) zipped and rendered; "" when
// either cell is not a sequence or nothing renders.
std::string render_shape_args(std::string_view input_dims, std::string_view input_type);

}  // namespace traceprism::perf_report
