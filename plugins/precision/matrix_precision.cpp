#include "matrix_precision.hpp"

#include <traceprism/dtype.hpp>

#include <cctype>
#include <initializer_list>
#include <string>
#include <vector>

namespace traceprism::plugins::precision {
namespace {

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool contains_any(std::string_view text, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts)
    if (contains(text, p)) return true;
  return false;
}

// Kernels that share a matrix word but compute no matrix product of their own: attention
// (reported by sdpa-efficiency), layout conversions (layout-transform), batch norm.
bool is_excluded(std::string_view kernel) {
  return contains_any(kernel,
                      {"attention", "attn", "flash", "fmha", "Fmha", "nchwToNhwc", "nhwcToNchw",
                       "nchw2nhwc", "nhwc2nchw", "transpose", "bn_fw", "bn_bw", "computeOffsets",
                       "computeBOffsets", "computeWgradBOffsets", "computeWgradSplitKOffsets"});
}

// The Tensile / hipBLASLt data-type token: "Cijk_Ailk_Bljk_BBS_BH_..." → "BBS",
// "Cijk_Alik_Bljk_B_BS_BH_..." → "B", "Cijk_Ailk_Bljk_S_B_..." → "S"; empty when the name is
// not a Tensile GEMM (e.g. the "Cijk_B_PostGSU2" reduction).
std::string_view tensile_type_token(std::string_view kernel) {
  const std::size_t at = kernel.find("Cijk_");
  if (at == std::string_view::npos) return {};
  std::string_view rest = kernel.substr(at + 5);
  // Skip the A and B index tokens ("Ailk", "Bljk"): a capital A or B followed by index letters.
  for (int skipped = 0; skipped < 2; ++skipped) {
    const std::size_t end = rest.find('_');
    const std::string_view token = rest.substr(0, end);
    const bool index = token.size() >= 2 && (token[0] == 'A' || token[0] == 'B') &&
                       std::islower(static_cast<unsigned char>(token[1]));
    if (!index || end == std::string_view::npos) return {};
    rest = rest.substr(end + 1);
  }
  return rest.substr(0, rest.find_first_of("_<"));
}

std::optional<Precision> precision_of_tensile_type(std::string_view token) {
  if (token.empty()) return std::nullopt;
  if (token.substr(0, 2) == "F8" || token.substr(0, 2) == "B8") return Precision::kFp8;
  if (token.substr(0, 2) == "I8") return Precision::kInt8;
  switch (token[0]) {
    case 'S':
      return Precision::kFp32;
    case 'X':
      return Precision::kTf32;
    case 'H':
      return Precision::kFp16;
    case 'B':
      return Precision::kBf16;
    case 'D':
      return Precision::kFp64;
    default:
      return std::nullopt;
  }
}

// "conv" / "Conv" as a convolution, not as the start of "convert" (dtype conversion kernels).
bool names_convolution(std::string_view kernel) {
  for (std::string_view word : {std::string_view("conv"), std::string_view("Conv")}) {
    for (std::size_t at = kernel.find(word); at != std::string_view::npos;
         at = kernel.find(word, at + 1)) {
      if (kernel.substr(at + 4, 3) != "ert") return true;
    }
  }
  return false;
}

}  // namespace

bool is_matrix_kernel(std::string_view kernel) {
  if (is_excluded(kernel)) return false;
  return names_convolution(kernel) ||
         contains_any(kernel, {"gemm", "Gemm", "GEMM", "Cijk_", "xmma", "cutlass", "nvjet",
                               "scudnn", "wgrad", "dgrad", "fprop", "winograd"});
}

std::optional<Precision> precision_from_name(std::string_view kernel) {
  if (!is_matrix_kernel(kernel)) return std::nullopt;
  // The narrowest types first: "bf16" contains "f16", a BF16 cutlass kernel "s1688".
  if (contains_any(kernel, {"mxfp4", "nvfp4", "e2m1", "fp4", "FP4"})) return Precision::kFp4;
  if (contains_any(kernel, {"e4m3", "e5m2", "E4M3", "E5M2", "fp8", "FP8", "f8f8"}))
    return Precision::kFp8;
  if (contains_any(kernel, {"bf16", "BF16", "bfloat16", "BFloat16"})) return Precision::kBf16;
  if (contains_any(kernel, {"h884", "h1688", "h16816", "hgemm", "fp16", "f16", "half", "Half"}))
    return Precision::kFp16;
  if (contains_any(kernel, {"tf32", "s1688", "tfloat32", "xf32"})) return Precision::kTf32;
  if (contains_any(kernel, {"dgemm", "fp64", "f64f64"})) return Precision::kFp64;
  if (contains_any(kernel, {"sgemm", "scudnn", "fp32", "simt"})) return Precision::kFp32;
  // MIOpen's naive convolutions name the input type after the layout:
  // "naive_conv_fwd_nchw_float_double_float" (half and bf16 are caught above as "half" / "ushort").
  if (contains(kernel, "naive_conv")) {
    if (contains(kernel, "_ushort_")) return Precision::kBf16;
    if (contains(kernel, "_float_")) return Precision::kFp32;
  }
  return precision_of_tensile_type(tensile_type_token(kernel));
}

std::optional<Precision> precision_from_input_types(std::string_view input_types) {
  // The list's strings, in order: the first one that is a floating-point dtype decides.
  std::size_t at = 0;
  while ((at = input_types.find('"', at)) != std::string_view::npos) {
    const std::size_t end = input_types.find('"', at + 1);
    if (end == std::string_view::npos) break;
    const std::optional<std::string> dtype = short_dtype(input_types.substr(at + 1, end - at - 1));
    at = end + 1;
    if (!dtype) continue;
    if (*dtype == "fp32") return Precision::kFp32Input;
    if (*dtype == "bf16") return Precision::kBf16;
    if (*dtype == "fp16") return Precision::kFp16;
    if (*dtype == "fp8") return Precision::kFp8;
    if (*dtype == "fp4") return Precision::kFp4;
    if (*dtype == "fp64") return Precision::kFp64;
  }
  return std::nullopt;
}

Precision classify(std::string_view kernel, std::optional<std::string_view> input_types) {
  if (!is_matrix_kernel(kernel)) return Precision::kNotMatrix;
  if (const std::optional<Precision> p = precision_from_name(kernel)) return *p;
  if (input_types) {
    if (const std::optional<Precision> p = precision_from_input_types(*input_types)) return *p;
  }
  return Precision::kUnknown;
}

bool is_fp32_family(Precision p) {
  return p == Precision::kFp32 || p == Precision::kFp32Input || p == Precision::kTf32;
}

const char* precision_label(Precision p) {
  switch (p) {
    case Precision::kNotMatrix:
      return "not a matrix kernel";
    case Precision::kUnknown:
      return "unknown";
    case Precision::kFp32:
      return "FP32";
    case Precision::kFp32Input:
      return "FP32 inputs (FP32 or TF32 math)";
    case Precision::kTf32:
      return "TF32";
    case Precision::kFp16:
      return "FP16";
    case Precision::kBf16:
      return "BF16";
    case Precision::kFp8:
      return "FP8";
    case Precision::kFp4:
      return "FP4";
    case Precision::kFp64:
      return "FP64";
    case Precision::kInt8:
      return "INT8";
  }
  return "unknown";
}

}  // namespace traceprism::plugins::precision
