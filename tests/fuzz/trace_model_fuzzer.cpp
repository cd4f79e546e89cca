// libFuzzer target of everything built from a trace in memory: the reader, the models, the
// products, the perf report, the diagnosis, a comparison and every report writer, whose outputs
// must be valid UTF-8 (JSON: valid JSON). Reading may fail with io::InputError; anything else is
// a bug. The body is fuzz::fuzz_trace_model (fuzz_targets.hpp), which unit_tests also runs on
// tests/fuzz/regressions/. Built with -DTRACEPRISM_FUZZ=ON (clang); run by scripts/sanitize.sh
// and scripts/fuzz.sh (docs/testing.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  traceprism::fuzz::fuzz_trace_model(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
