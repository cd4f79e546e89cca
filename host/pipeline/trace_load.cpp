#include "pipeline/trace_load.hpp"

#include <oneapi/tbb/parallel_invoke.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <tuple>

#include "index/row_copies.hpp"
#include "model/pseudo_ops.hpp"
#include "pipeline/capture_sources.hpp"

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

// Appends the capture merge's copies to the session's index; returns the tree's grafts and the
// kernels' new launch calls.
std::pair<std::shared_ptr<const model::Grafts>, std::vector<std::pair<index::Row, index::Row>>>
merge_captures(TraceSession& session, const LoadOptions& options) {
  CaptureSources sources(options.capture_dir, options.quiet);
  const auto replay_links = model::LaunchLinks::build(session.file.index);
  // Python frames are copied (the reference's UIDs, the ops' call stacks) unless the merge is
  // large: then only the events that lead to a launch call are. Sized without python frames,
  // which are most of a capture.
  constexpr std::size_t kLargeMerge = 1'000'000;  // copied events; ~90 MB of index and models
  const model::CaptureMergeOptions merge_options{
      .include_python = true,
      .prune_above_rows =
          options.capture_prune_when_large ? std::max(kLargeMerge, session.file.index.size()) : 0};
  model::CaptureMergePlan plan = model::plan_capture_merge(
      session.file.index, replay_links, sources.entries(),
      [&](const model::CaptureTrace& entry) { return sources.load(entry); }, merge_options);
  session.capture_merge = CaptureMergeOutcome{options.capture_dir, plan.summary, sources.notes()};
  if (plan.copies.empty()) return {};
  session.file.index = index::append_row_copies(std::move(session.file.index), plan.sources,
                                                plan.copies, model::kCaptureRootName);
  return {std::make_shared<const model::Grafts>(std::move(plan.grafts)), std::move(plan.relinks)};
}

// The call tree and the launch links each read only the index: both are built at once.
void build_tree_and_links(TraceSession& session, const model::CallTreeOptions& tree_options,
                          const std::vector<std::pair<index::Row, index::Row>>& relinks) {
  oneapi::tbb::parallel_invoke(
      [&] { session.tree = model::CallTree::build(session.file.index, tree_options); },
      [&] { session.links = model::LaunchLinks::build(session.file.index, relinks); });
}

// Appends the unfused MoE pseudo ops (model/pseudo_ops.hpp) and rebuilds the tree and links
// over them; the pseudo ops are found on the tree without them.
void add_pseudo_ops(TraceSession& session, model::CallTreeOptions& tree_options,
                    const std::vector<std::pair<index::Row, index::Row>>& relinks) {
  const model::PseudoOpPlan plan =
      model::plan_moe_unfused_pseudo_ops(session.file.index, session.tree, session.links);
  if (plan.rows.empty()) return;
  tree_options.grafts = std::make_shared<const model::Grafts>(model::pseudo_op_grafts(
      tree_options.grafts.get(), static_cast<index::Row>(session.file.index.size()), plan));
  session.file.index = index::append_pseudo_ops(std::move(session.file.index), plan.rows);
  build_tree_and_links(session, tree_options, relinks);
}

// What the reader accepted but a user should know: JSON with duplicate keys is legal, and
// Python's json keeps only the last "traceEvents", where we keep the events of every one.
void warn_about_the_document(const ingest::TraceFile& file) {
  const int arrays = file.index.metadata().trace_events_arrays;
  if (arrays > 1) {
    std::fprintf(stderr,
                 "warning: %s: the document has %d top-level \"traceEvents\" arrays; their "
                 "events were read as one list, in file order.\n",
                 file.path.c_str(), arrays);
  }
}

}  // namespace

TraceSession load_trace(const std::string& path, const LoadOptions& options) {
  TraceSession session;
  auto start = std::chrono::steady_clock::now();
  {
    ProgressLine progress("reading " + path, !options.quiet);
    ingest::ReadOptions read;
    read.strict = options.strict;
    read.threads = options.read_threads;
    read.progress = [&](std::uint64_t done, std::uint64_t total) { progress.update(done, total); };
    session.file = ingest::read_trace(path, read);
  }
  warn_about_the_document(session.file);
  session.read_seconds = seconds_since(start);
  start = std::chrono::steady_clock::now();
  std::shared_ptr<const model::Grafts> grafts;
  std::vector<std::pair<index::Row, index::Row>> relinks;
  if (!options.capture_dir.empty()) std::tie(grafts, relinks) = merge_captures(session, options);
  if (options.pseudo_ops)
    session.file.index =
        index::rename_cpu_ops(std::move(session.file.index), model::normalized_op_name);
  model::CallTreeOptions tree_options;
  tree_options.grafts = grafts;
  build_tree_and_links(session, tree_options, relinks);
  if (options.pseudo_ops) add_pseudo_ops(session, tree_options, relinks);
  const auto& index = session.file.index;
  model::GpuTimelineOptions timeline;
  timeline.include_unlinked = options.include_unlinked;
  timeline.micro_idle_threshold_us = options.micro_idle_threshold_us;
  session.timeline = model::compute_gpu_timeline(index, session.links, timeline);
  session.model_seconds = seconds_since(start);
  return session;
}

}  // namespace traceprism::pipeline
