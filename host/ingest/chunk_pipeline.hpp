#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "io/byte_source.hpp"

namespace traceprism::ingest {

// A buffer of decompressed bytes; deliberately not zero-initialised (it is always overwritten).
struct Chunk {
  std::unique_ptr<char[]> data;
  std::size_t size = 0;
};

// Decompresses on its own thread into a small ring of buffers so that inflate and JSON parsing
// overlap. Every chunk but the last holds exactly `chunk_bytes` (so chunk k starts at byte
// k * chunk_bytes of the JSON text). An exception on the producer side is handed over and
// rethrown by next().
class ChunkPipeline {
 public:
  ChunkPipeline(io::ByteSource& source, std::size_t chunk_bytes);
  ~ChunkPipeline();
  ChunkPipeline(const ChunkPipeline&) = delete;
  ChunkPipeline& operator=(const ChunkPipeline&) = delete;

  // Bytes of the file consumed by the decompression thread so far (for progress).
  std::uint64_t file_offset() const { return file_offset_.load(std::memory_order_relaxed); }

  // Returns the next chunk (size 0 at the end). The previous chunk returned is recycled.
  const Chunk& next();

 private:
  void produce();

  io::ByteSource& source_;
  const std::size_t chunk_bytes_;
  std::atomic<std::uint64_t> file_offset_{0};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Chunk> free_;
  std::deque<Chunk> full_;
  Chunk current_;
  std::exception_ptr error_;
  bool done_ = false;
  bool stopping_ = false;
  std::thread producer_;
};

}  // namespace traceprism::ingest
