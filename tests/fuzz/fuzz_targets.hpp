// The bodies of the fuzz targets. The libFuzzer executables (trace_reader_fuzzer.cpp,
// trace_model_fuzzer.cpp, built with -DTRACEPRISM_FUZZ=ON) call them on generated inputs, and
// unit_tests calls them in every build on tests/fuzz/regressions/ and the seed corpus
// tests/fuzz/corpus/ (unit/fuzz_regressions_test.cpp). docs/testing.md.
//
// Both take any bytes. The bytes either read into an index, and then everything built from it
// must work, or reading fails with io::InputError: the only accepted failure. Anything else that
// escapes (another exception, an InvariantError below, a crash, a sanitizer report, a hang) is a
// bug.
#pragma once

#include <stdexcept>
#include <string_view>

namespace traceprism::fuzz {

// A property the bodies check after the code under test returned: an output that is not valid
// UTF-8, a JSON writer's output that does not parse, two gzip decoders that disagree...
class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// The reader: the bytes (plain JSON, or gzip / zstd by their magic) read with tiny chunks, then
// the three models every command builds (call tree, launch links, GPU timeline). Gzip input is
// also inflated by both decoders (ISA-L and zlib), which must agree, and the bytes are read
// again by the parallel reader, which must give the same index or the same error.
void fuzz_trace_reader(std::string_view bytes);

// Everything derived in memory from the index that needs no files or plugins: the reader as
// above, inference mode's op-name normalisation and a capture merge of the trace with itself as
// its own capture trace (serving steps, capture classification), the models and run products,
// the perf report with an empty op-model table, idle attribution, steps, the diagnosis and model
// identification, a comparison of the trace with its renamed self (TraceDiff, kernel diff,
// report diff), and every report writer (findings.json, analysis.md, the SVG, the CSV sheets,
// the comparative ones). Their outputs must be valid UTF-8, the JSON ones valid JSON and the CSV
// sheets must read back with the same shape. Options (strict reading, inference mode,
// --include-unlinked, call-stack columns, a fixed platform...) are picked from the input's
// length, so each is exercised and an input always replays the same way.
void fuzz_trace_model(std::string_view bytes);

}  // namespace traceprism::fuzz
