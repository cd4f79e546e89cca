#include "ingest/chunk_pipeline.hpp"

namespace traceprism::ingest {

namespace {
constexpr std::size_t kChunksInFlight = 3;
}  // namespace

ChunkPipeline::ChunkPipeline(io::ByteSource& source, std::size_t chunk_bytes)
    : source_(source), chunk_bytes_(chunk_bytes) {
  for (std::size_t i = 0; i < kChunksInFlight; ++i)
    free_.push_back({std::make_unique_for_overwrite<char[]>(chunk_bytes_), 0});
  producer_ = std::thread([this] { produce(); });
}

ChunkPipeline::~ChunkPipeline() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  producer_.join();
}

const Chunk& ChunkPipeline::next() {
  std::unique_lock lock(mutex_);
  if (current_.data) {
    free_.push_back(std::move(current_));
    current_ = {};
    changed_.notify_all();
  }
  changed_.wait(lock, [&] { return !full_.empty() || done_; });
  if (!full_.empty()) {
    current_ = std::move(full_.front());
    full_.pop_front();
    return current_;
  }
  if (error_) std::rethrow_exception(error_);
  return current_;
}

void ChunkPipeline::produce() {
  try {
    for (;;) {
      Chunk chunk;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return !free_.empty() || stopping_; });
        if (stopping_) break;
        chunk = std::move(free_.back());
        free_.pop_back();
      }
      chunk.size = 0;
      while (chunk.size < chunk_bytes_) {
        std::size_t n = source_.read(chunk.data.get() + chunk.size, chunk_bytes_ - chunk.size);
        if (n == 0) break;
        chunk.size += n;
      }
      file_offset_.store(source_.file_offset(), std::memory_order_relaxed);
      std::lock_guard lock(mutex_);
      if (chunk.size == 0) break;
      full_.push_back(std::move(chunk));
      changed_.notify_all();
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = std::current_exception();
  }
  std::lock_guard lock(mutex_);
  done_ = true;
  changed_.notify_all();
}

}  // namespace traceprism::ingest
