#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace traceprism::synth {

// A performance problem `synth --inject` writes into every step, with the event shapes a real
// PyTorch profiler trace has for it. The first six are the host causes of GPU idle
// (diagnosis spec §2.2); the others add GPU time of one kind.
enum class Problem : std::uint8_t {
  kDataloader,
  kBlockingCopy,
  kSync,
  kAllocator,
  kLaunchOverhead,
  kHostCompute,
  kFp32Gemm,
  kRecompute,
  kD2dCopy,
  kExposedAllreduce,
  kSmallAllreduce,
  kLayoutTranspose,
};
inline constexpr std::size_t kProblemCount = 12;

struct ProblemInfo {
  Problem problem;
  std::string_view name;  // the cause key with '-' for '_', as --inject spells it
  std::int64_t default_ns;
  // What AMOUNT measures: true: GPU idle added per step; false: GPU time added per step.
  bool adds_idle;
  std::string_view meaning;  // one line for --help
};

// Every problem, in enum order.
std::span<const ProblemInfo> problem_catalog();
const ProblemInfo& problem_info(Problem problem);

struct Injection {
  Problem problem = Problem::kDataloader;
  std::int64_t amount_ns = 0;  // per step
};

// "30ms", "500us" (or "500µs"), "2.5ms", "1s", "800ns" -> nanoseconds, rounded. Throws
// std::invalid_argument with a sentence that names the text and the accepted forms.
std::int64_t parse_duration_ns(std::string_view text);

// "KIND" or "KIND=AMOUNT" -> the injection, AMOUNT defaulting to the kind's default. Throws
// std::invalid_argument with a sentence that names the value and the accepted ones.
Injection parse_injection(std::string_view text);

// "dataloader, blocking-copy, ..., layout-transpose"
std::string problem_names();

}  // namespace traceprism::synth
