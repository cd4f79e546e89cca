#include "synth/injected_problems.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace traceprism::synth {

namespace {

constexpr std::int64_t kUs = 1000, kMs = 1000 * kUs;
// One step of the default workload takes about 6 ms of GPU time, so the compute kinds default
// to about 15-25 % of it.
constexpr std::array<ProblemInfo, kProblemCount> kCatalog{{
    {Problem::kDataloader, "dataloader", 30 * kMs, true,
     "a single-process DataLoader fetches each batch while the GPU waits"},
    {Problem::kBlockingCopy, "blocking-copy", 5 * kMs, true,
     "loss.item(): a blocking device-to-host copy each step while the GPU waits"},
    {Problem::kSync, "sync", 5 * kMs, true,
     "torch.cuda.synchronize() each step; the GPU idles while the host is held"},
    {Problem::kAllocator, "allocator", 3 * kMs, true,
     "the caching allocator frees and re-mallocs device memory (cudaFree/cudaMalloc)"},
    {Problem::kLaunchOverhead, "launch-overhead", 5 * kMs, true,
     "a per-parameter loop of tiny kernels, each shorter than its launch"},
    {Problem::kHostCompute, "host-compute", 10 * kMs, true,
     "CPU-side metric computation between GPU work that launches nothing"},
    {Problem::kFp32Gemm, "fp32-gemm", 1500 * kUs, false,
     "linear layers run in FP32 (SIMT sgemm) instead of BF16"},
    {Problem::kRecompute, "recompute", 1 * kMs, false,
     "activation checkpointing: block forwards run again in the backward pass"},
    {Problem::kD2dCopy, "d2d-copy", 1 * kMs, false,
     "device-to-device copies (.contiguous()/.clone()) between the blocks"},
    {Problem::kExposedAllreduce, "exposed-allreduce", 5 * kMs, false,
     "one large gradient all-reduce per step that compute waits for"},
    {Problem::kSmallAllreduce, "small-allreduce", 1500 * kUs, false,
     "many small, latency-bound all-reduces per step (LL protocol), mostly exposed"},
    {Problem::kLayoutTranspose, "layout-transpose", 1 * kMs, false,
     "layout transposes (NCHW<->NHWC) under aten::contiguous between the blocks"},
}};

constexpr std::string_view kDurationForms = "such as 30ms, 500us, 2.5ms, 1s or 800ns";
constexpr std::int64_t kMaxAmountNs = 10'000 * kMs;  // beyond that a step is no longer a step

struct Unit {
  std::string_view suffix;
  double ns;
};
constexpr std::array<Unit, 5> kUnits{
    {{"ms", 1e6}, {"us", 1e3}, {"\xC2\xB5s", 1e3}, {"ns", 1.0}, {"s", 1e9}}};

// Digits with at most one decimal point: no sign, no exponent, nothing locale-dependent.
bool parse_decimal(std::string_view text, double& value) {
  if (text.empty() || text == ".") return false;
  double whole = 0, scale = 0;
  for (char c : text) {
    if (c == '.') {
      if (scale != 0) return false;
      scale = 1;
      continue;
    }
    if (c < '0' || c > '9') return false;
    whole = whole * 10 + (c - '0');
    if (scale != 0) scale *= 10;
  }
  value = scale == 0 ? whole : whole / scale;
  return true;
}

}  // namespace

std::span<const ProblemInfo> problem_catalog() {
  return kCatalog;
}

const ProblemInfo& problem_info(Problem problem) {
  return kCatalog[static_cast<std::size_t>(problem)];
}

std::string problem_names() {
  std::string names;
  for (const ProblemInfo& info : kCatalog) {
    if (!names.empty()) names += ", ";
    names += info.name;
  }
  return names;
}

std::int64_t parse_duration_ns(std::string_view text) {
  for (const Unit& unit : kUnits) {
    if (!text.ends_with(unit.suffix)) continue;
    double value = 0;
    if (!parse_decimal(text.substr(0, text.size() - unit.suffix.size()), value)) break;
    const double ns = std::round(value * unit.ns);
    if (ns < 1) {
      throw std::invalid_argument("the amount '" + std::string(text) +
                                  "' is not positive; give a duration " +
                                  std::string(kDurationForms) + ".");
    }
    if (ns > static_cast<double>(kMaxAmountNs)) {
      throw std::invalid_argument("the amount '" + std::string(text) +
                                  "' is more than 10s per step; give a duration " +
                                  std::string(kDurationForms) + ".");
    }
    return static_cast<std::int64_t>(ns);
  }
  throw std::invalid_argument("the amount '" + std::string(text) +
                              "' is not a duration; give a number and a unit " +
                              std::string(kDurationForms) + ".");
}

Injection parse_injection(std::string_view text) {
  const std::size_t eq = text.find('=');
  const std::string_view name = text.substr(0, eq);
  for (const ProblemInfo& info : kCatalog) {
    if (info.name != name) continue;
    Injection injection{info.problem, info.default_ns};
    if (eq != std::string_view::npos) {
      try {
        injection.amount_ns = parse_duration_ns(text.substr(eq + 1));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("--inject " + std::string(text) + ": " + e.what());
      }
    }
    return injection;
  }
  throw std::invalid_argument("--inject " + std::string(text) + ": unknown kind '" +
                              std::string(name) + "'; the kinds are " + problem_names() + ".");
}

}  // namespace traceprism::synth
