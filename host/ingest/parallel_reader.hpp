#pragma once

#include <string>

#include "ingest/trace_reader.hpp"
#include "io/byte_source.hpp"

namespace traceprism::ingest {

// Reads `source` with options.threads worker threads parsing the elements of traceEvents in
// batches (EventSplitter finds them), while this thread reads the rest of the document and
// replays each batch's events into one IndexBuilder in file order: the index is the one the
// one-thread reader builds, string ids, event indices and byte offsets included. Throws
// NotSplittable or any other exception when it cannot give exactly that (a document that is not
// an object, a syntax error, a malformed event in strict mode); read_trace then reads the source
// again with one thread, which reports the problem as it always did.
TraceFile read_trace_parallel(io::ByteSource& source, const std::string& name,
                              const ReadOptions& options);

}  // namespace traceprism::ingest
