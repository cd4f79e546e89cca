// The reference's kernel-name classifier (analysis-rules §2.5, TraceLens classify_kernels.py):
// a fixed list of (regex, kernel type, priority) rules; every rule is tried, the highest
// priority wins, ties go to the earliest rule, and a best priority below 5 means "Unknown".
// Fusion candidates carry this type per kernel, and the fusion filters read it back
// ("GEMM" / "CONV" in the type marks a matrix op).
#pragma once

#include <string>
#include <string_view>

namespace traceprism::plugins::fusion {

// The kernel type of a GPU kernel name ("GEMM", "Elementwise", "LayerNorm", ..., "Unknown").
// Thread-safe; answers are cached per name (traces repeat a few hundred names many times).
const std::string& classify_kernel(std::string_view kernel_name);

// The same answer with every rule through std::regex, uncached: what classify_kernel's substring
// matching of the literal rules is tested against.
std::string classify_kernel_by_regex(std::string_view kernel_name);

}  // namespace traceprism::plugins::fusion
