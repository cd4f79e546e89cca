// The precision a matrix kernel (GEMM, convolution) runs at, read from its name and, where the
// name does not say, from the `Input type` of the op that launched it. Page:
// docs/analyzers/precision/matrix-precision.md.
#pragma once

#include <optional>
#include <string_view>

namespace traceprism::plugins::precision {

enum class Precision {
  kNotMatrix,  // not a GEMM or convolution kernel (attention, layout, elementwise, ...)
  kUnknown,    // a matrix kernel whose name and op do not tell its precision
  kFp32,       // FP32 math on the FP32 units (SIMT sgemm, scudnn, AMD S-type Tensile kernels)
  kFp32Input,  // FP32 inputs, engine not named: FP32 or TF32 math
  kTf32,       // FP32 inputs on TF32 tensor cores (s1688, tf32, AMD xf32)
  kFp16,
  kBf16,
  kFp8,
  kFp4,
  kFp64,
  kInt8,
};

// Whether a kernel of this name computes a matrix product or a convolution.
bool is_matrix_kernel(std::string_view kernel);

// The precision the kernel's name states; nullopt when it names none (or is not a matrix kernel).
std::optional<Precision> precision_from_name(std::string_view kernel);

// The precision of the first floating-point dtype in an op's `Input type` list text
// ("[\"float\", \"float\", \"\", \"Scalar\"]"); nullopt when it has none.
std::optional<Precision> precision_from_input_types(std::string_view input_types);

// The kernel's precision: kNotMatrix for a non-matrix kernel, else what its name says, else what
// the launching op's input types say (FP32 inputs: kFp32Input), else kUnknown.
Precision classify(std::string_view kernel, std::optional<std::string_view> input_types);

// Whether the precision is one that lower-precision autocast would speed up (FP32 or TF32).
bool is_fp32_family(Precision p);

// "FP32", "TF32", "FP32 inputs (FP32 or TF32 math)", "BF16", ...
const char* precision_label(Precision p);

}  // namespace traceprism::plugins::precision
