#include "model/pseudo_ops.hpp"

#include <cctype>

namespace traceprism::model {

std::optional<std::string> normalized_op_name(std::string_view name) {
  constexpr std::string_view kPrefix = "sglang_profiler::";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  std::size_t end = name.size();
  while (end > kPrefix.size() && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  if (end == name.size() || end <= kPrefix.size() + 1 || name[end - 1] != '_') return std::nullopt;
  return std::string(name.substr(0, end - 1));
}

}  // namespace traceprism::model
