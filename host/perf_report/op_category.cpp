#include "perf_report/op_category.hpp"

namespace traceprism::perf_report {

namespace {

std::optional<std::string> category_from_name(std::string_view name) {
  // The reference's patterns are re.match(r"^triton") and re.match(r"^record_param_comms").
  if (name.starts_with("triton")) return "triton";
  if (name.starts_with("record_param_comms")) return "record_param_comms";
  return std::nullopt;
}

std::optional<std::string> category_from_kernel(std::optional<std::string_view> kernel) {
  if (!kernel || !kernel->starts_with("void at::native")) return std::nullopt;
  for (std::string_view needle : {"elementwise", "reduce", "multi_tensor_apply"}) {
    if (kernel->find(needle) != std::string_view::npos) return std::string(needle);
  }
  return std::nullopt;
}

}  // namespace

std::string categorize_op(std::string_view op_name,
                          const std::optional<std::string>& registry_category,
                          std::optional<std::string_view> first_kernel_name) {
  if (registry_category) return *registry_category;
  if (auto by_name = category_from_name(op_name)) return *by_name;
  if (auto by_kernel = category_from_kernel(first_kernel_name)) return *by_kernel;
  return "other";
}

}  // namespace traceprism::perf_report
