// libFuzzer target of the reader: any bytes must either read into an index (then the models
// must build) or fail with io::InputError; anything else (a crash, a sanitizer report, another
// exception) is a bug. The body is fuzz::fuzz_trace_reader (fuzz_targets.hpp), which unit_tests
// also runs on tests/fuzz/regressions/. Built with -DTRACEPRISM_FUZZ=ON (clang); run by
// scripts/sanitize.sh and scripts/fuzz.sh (docs/testing.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  traceprism::fuzz::fuzz_trace_reader(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
