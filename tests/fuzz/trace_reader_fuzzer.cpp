// libFuzzer target: any bytes must either read into an index (then the model must build) or
// fail with io::InputError. Anything else (a crash, a sanitizer report, another exception) is a
// bug. Build with -DTRACEPRISM_FUZZ=ON (clang), run: build-fuzz/tests/trace_reader_fuzzer CORPUS
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ingest/trace_reader.hpp"
#include "io/byte_source.hpp"
#include "io/input_error.hpp"
#include "model/call_tree.hpp"
#include "model/gpu_timeline.hpp"
#include "model/launch_links.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  traceprism::ingest::ReadOptions options;
  options.chunk_bytes = 13;  // split tokens everywhere
  try {
    auto source = traceprism::io::open_memory_source(bytes, "fuzz.json");
    auto file = traceprism::ingest::read_trace(*source, "fuzz.json", options);
    auto tree = traceprism::model::CallTree::build(file.index);
    auto links = traceprism::model::LaunchLinks::build(file.index);
    traceprism::model::compute_gpu_timeline(file.index, links);
  } catch (const traceprism::io::InputError&) {
  }
  return 0;
}
