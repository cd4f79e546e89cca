#include "pipeline/trace_load.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace traceprism::pipeline {

namespace {

// A single self-overwriting progress line on stderr, only when stderr is a terminal.
class ProgressLine {
 public:
  explicit ProgressLine(std::string label, bool enabled)
      : label_(std::move(label)), enabled_(enabled && ::isatty(STDERR_FILENO)) {}
  ~ProgressLine() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }
  void update(std::uint64_t done, std::uint64_t total) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::milliseconds(500) ||
        now - last_ < std::chrono::milliseconds(200))
      return;
    last_ = now;
    shown_ = true;
    if (total > 0) {
      std::fprintf(stderr, "\r%s: %3d%% (%.0f of %.0f MB)", label_.c_str(),
                   static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)),
                   static_cast<double>(done) / 1e6, static_cast<double>(total) / 1e6);
    } else {
      std::fprintf(stderr, "\r%s: %.0f MB", label_.c_str(), static_cast<double>(done) / 1e6);
    }
    std::fflush(stderr);
  }

 private:
  std::string label_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TraceSession load_trace(const std::string& path, const LoadOptions& options) {
  TraceSession session;
  auto start = std::chrono::steady_clock::now();
  {
    ProgressLine progress("reading " + path, !options.quiet);
    ingest::ReadOptions read;
    read.strict = options.strict;
    read.progress = [&](std::uint64_t done, std::uint64_t total) { progress.update(done, total); };
    session.file = ingest::read_trace(path, read);
  }
  session.read_seconds = seconds_since(start);
  start = std::chrono::steady_clock::now();
  const auto& index = session.file.index;
  session.tree = model::CallTree::build(index);
  session.links = model::LaunchLinks::build(index);
  model::GpuTimelineOptions timeline;
  timeline.include_unlinked = options.include_unlinked;
  timeline.micro_idle_threshold_us = options.micro_idle_threshold_us;
  session.timeline = model::compute_gpu_timeline(index, session.links, timeline);
  session.model_seconds = seconds_since(start);
  return session;
}

}  // namespace traceprism::pipeline
