#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "index/event_index.hpp"

namespace traceprism::perf_report {

// The category an op-model plugin assigns to the name of a host event (the reference's
// registry: perf-model categories and category-only names, trace-format spec Appendix A), or
// nullopt when no model claims it. Bound by the caller to the loaded op-model plugins.
using RegistryCategory = std::function<std::optional<std::string>(index::Row op_row)>;

// The reference's op categorization (trace-format spec §7), first match wins:
// 1. the registry category; 2. name starting with "triton" -> triton, with
// "record_param_comms" -> record_param_comms; 3. when the first kernel's name starts with
// "void at::native", the first of elementwise / reduce / multi_tensor_apply it contains;
// 4. other. `first_kernel_name` is the name of kernel_details[0], nullopt without kernels.
std::string categorize_op(std::string_view op_name,
                          const std::optional<std::string>& registry_category,
                          std::optional<std::string_view> first_kernel_name);

}  // namespace traceprism::perf_report
