// traceprism SDK: the reference's short dtype names, shared by the host's report and plugins.
// Header-only C++17.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace traceprism {

// The short name the reference prints for a torch dtype of a trace's `Input type`
// ("c10::BFloat16" -> "bf16", "float" -> "fp32"), matched ignoring ASCII case; nullopt for a
// dtype it does not shorten ("long int", "Scalar").
inline std::optional<std::string> short_dtype(std::string_view torch_dtype) {
  static constexpr std::pair<std::string_view, std::string_view> kDtypes[] = {
      {"float", "fp32"},
      {"double", "fp64"},
      {"c10::half", "fp16"},
      {"c10::bfloat16", "bf16"},
      {"c10::float8_e4m3fnuz", "fp8"},
      {"c10::float8_e4m3fn", "fp8"},
      {"unsigned char", "fp8"},
      {"fp8", "fp8"},
      {"fp4", "fp4"},
      {"mxfp4", "fp4"},
      {"c10::float4_e2m1fn_x2", "fp4"},
  };
  std::string lower(torch_dtype);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  for (const auto& [name, short_name] : kDtypes)
    if (lower == name) return std::string(short_name);
  return std::nullopt;
}

}  // namespace traceprism
