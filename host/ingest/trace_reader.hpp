#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "index/event_index.hpp"
#include "io/byte_source.hpp"

namespace traceprism::ingest {

struct ReadOptions {
  // Stop at the first malformed event instead of counting and skipping it.
  bool strict = false;
  // Deepest nesting of arrays/objects accepted (real traces need about 8).
  std::size_t max_depth = 256;
  // Size of the decompressed chunks handed to the parser (tests use tiny ones to split tokens).
  std::size_t chunk_bytes = 4 << 20;
  // Called now and then with (file bytes consumed, file size or 0 when unknown).
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  // Threads parsing traceEvents (parallel_reader.hpp); 1 reads with one parsing thread. Any
  // number gives the same index. The commands read with one: on the 2-core machine measured so
  // far the parallel reader is slower (docs/performance.md, bench/parallel_read_bench.cpp).
  unsigned threads = 1;
  // Which complete ("X") events to index; empty: all. An event it refuses is read and checked
  // like any other but not stored (multi-rank --rank-depth light keeps only what a rank summary
  // reads). Other phases (B/E pairs, flows, metadata) are always kept.
  std::function<bool(index::EventKind kind, std::string_view name)> keep;
  // Below this much JSON (estimated from the file size) one thread reads: starting workers
  // would cost more than they save.
  std::uint64_t parallel_min_bytes = 16 << 20;
  // Text of traceEvents parsed by a worker at a time (tests use tiny ones).
  std::size_t batch_bytes = 256 << 10;
};

struct TraceFile {
  std::string path;
  io::Compression compression = io::Compression::kNone;
  std::uint64_t file_bytes = 0;  // on disk (compressed size for .gz/.zst)
  std::uint64_t json_bytes = 0;  // decompressed JSON text
  unsigned parse_threads = 1;    // threads that parsed traceEvents
  index::EventIndex index;
};

// Reads a Kineto trace into a frozen EventIndex. Decompression runs on a second thread while
// this one parses, or, with options.threads > 1 on a big enough file, while worker threads
// parse traceEvents and this one assembles the index; whatever the parallel reading cannot do
// (a syntax error, a document it does not split) is read again with one thread. A file that
// cannot be read as a trace throws io::InputError with one sentence naming the file, the byte
// offset (or event index) and what was expected.
TraceFile read_trace(const std::string& path, const ReadOptions& options = {});

// The same over bytes in memory (tests, fuzzing); `name` is used in messages and as
// TraceFile::path.
TraceFile read_trace_bytes(std::string_view bytes, const std::string& name,
                           const ReadOptions& options = {});

// The same over an already opened source, with one parsing thread (a source cannot be read
// twice).
TraceFile read_trace(io::ByteSource& source, const std::string& name,
                     const ReadOptions& options = {});

}  // namespace traceprism::ingest
