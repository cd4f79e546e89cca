#pragma once

#include <cstdint>
#include <functional>
#include <string>

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
};

struct TraceFile {
  std::string path;
  io::Compression compression = io::Compression::kNone;
  std::uint64_t file_bytes = 0;  // on disk (compressed size for .gz/.zst)
  std::uint64_t json_bytes = 0;  // decompressed JSON text
  index::EventIndex index;
};

// Reads a Kineto trace into a frozen EventIndex. Decompression runs on a second thread while
// this one parses. A file that cannot be read as a trace throws io::InputError with one
// sentence naming the file, the byte offset (or event index) and what was expected.
TraceFile read_trace(const std::string& path, const ReadOptions& options = {});

// The same over an already opened source; `name` is used in messages and as TraceFile::path.
TraceFile read_trace(io::ByteSource& source, const std::string& name,
                     const ReadOptions& options = {});

}  // namespace traceprism::ingest
