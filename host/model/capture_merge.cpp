#include "model/capture_merge.hpp"

#include <algorithm>
#include <new>

#include "model/step_annotation.hpp"

namespace traceprism::model {

std::string_view merge_skip_reason(MergeSkip skip) {
  switch (skip) {
    case MergeSkip::kNoCapture:
      return "no capture trace of the step's batch size or larger";
    case MergeSkip::kCaptureUnread:
      return "the chosen capture trace could not be read";
    case MergeSkip::kWindowCount:
      return "the capture's windows match neither one graph nor one per graph launch";
    case MergeSkip::kNothingReplayed:
      return "the graph launch ran no GPU event";
    case MergeSkip::kUnnamedMultiStream:
      return "the graph spans several streams and the capture's launch calls carry no kernel "
             "names";
    case MergeSkip::kNotAligned:
      return "the captured launch calls do not align with the replayed kernels";
    case MergeSkip::kCount:
      break;
  }
  return "";
}

namespace {

// A graph launch whose replayed GPU events aligned with its capture window: what grafting
// needs, kept so that the copies are sized before any is made.
struct AlignedLaunch {
  Row launch;
  const CaptureSource* source;
  const CaptureWindow* window;
  std::uint32_t source_id;
  std::vector<std::pair<Row, std::uint32_t>> relinks;  // (replayed GPU row, its call's member)
};

class MergePlanner {
 public:
  MergePlanner(const index::EventIndex& replay, const LaunchLinks& links)
      : replay_(replay), links_(links), all_launches_(graph_launches(replay)) {
    plan_.grafts.first_row = static_cast<Row>(replay.size());
  }

  void align_step(const ServingStep& step, const std::vector<CaptureTrace>& entries,
                  const CaptureLoader& load) {
    const std::vector<Row> launches = graph_launches_in(replay_, all_launches_, step.row);
    if (launches.empty()) return;  // an eager step
    ++plan_.summary.steps;
    plan_.summary.graph_launches += launches.size();
    const std::optional<CaptureTrace> chosen =
        choose_capture(entries, step.annotation.batch_size, launches.size());
    if (!chosen) return skip(MergeSkip::kNoCapture, launches.size());
    const CaptureSource* source = load(*chosen);
    if (!source) return skip(MergeSkip::kCaptureUnread, launches.size());
    const std::size_t windows = source->windows.size();
    if (windows != 1 && windows != launches.size())
      return skip(MergeSkip::kWindowCount, launches.size());
    const std::uint32_t source_id = source_number(*source, chosen->file);
    for (std::size_t i = 0; i < launches.size(); ++i)
      align_pair(launches[i], *source, source->windows[windows == 1 ? 0 : i], source_id);
  }

  // The copies, once every launch is aligned: the options' choice, or the pruned one when the
  // full copy would pass options.prune_above_rows.
  CaptureMergePlan graft_all(CaptureMergeOptions options) {
    if (options.prune_above_rows > 0) {
      const std::size_t full = rows_without_python();
      if (full > options.prune_above_rows) {
        options.include_python = false;
        options.only_launch_paths = true;
        plan_.summary.full_copy_rows = full;
      }
    }
    for (const AlignedLaunch& a : aligned_) graft_launch(a, options);
    return std::move(plan_);
  }

 private:
  void skip(MergeSkip why, std::size_t launches) {
    plan_.summary.skipped[static_cast<std::size_t>(why)] += launches;
  }

  std::uint32_t source_number(const CaptureSource& source, const std::string& file) {
    auto it = std::find(plan_.sources.begin(), plan_.sources.end(), source.index);
    if (it != plan_.sources.end()) return static_cast<std::uint32_t>(it - plan_.sources.begin());
    plan_.sources.push_back(source.index);
    plan_.summary.captures_used.push_back(file);
    return static_cast<std::uint32_t>(plan_.sources.size() - 1);
  }

  void align_pair(Row launch, const CaptureSource& source, const CaptureWindow& window,
                  std::uint32_t source_id) {
    const std::vector<Row> replayed = replayed_gpu_events(replay_, links_, launch);
    if (replayed.empty()) return skip(MergeSkip::kNothingReplayed, 1);
    const Alignment a = align_capture(window.calls, replayed_events(replay_, replayed));
    if (a.merge_failed) return skip(MergeSkip::kUnnamedMultiStream, 1);
    if (a.code == AlignmentCode::kFailed) return skip(MergeSkip::kNotAligned, 1);
    AlignedLaunch& aligned =
        aligned_.emplace_back(AlignedLaunch{launch, &source, &window, source_id, {}});
    aligned.relinks.reserve(a.pairs.size());
    for (const auto& [event, call] : a.pairs)
      aligned.relinks.emplace_back(replayed[event], window.launch_positions[call]);
    ++plan_.summary.merged_launches;
    plan_.summary.attributed_events += a.pairs.size();
  }

  // The rows a merge with python frames left out copies: a CaptureRoot and every other member.
  std::size_t rows_without_python() const {
    std::size_t rows = 0;
    for (const AlignedLaunch& a : aligned_) {
      ++rows;
      for (Row member : a.window->members)
        rows += a.source->index->kind(member) != index::EventKind::kPythonFunction;
    }
    return rows;
  }

  void graft_launch(const AlignedLaunch& a, const CaptureMergeOptions& options) {
    const std::vector<std::int32_t> copied =
        graft(a.launch, *a.source->index, *a.window, a.source_id, options);
    if (&a == &aligned_.front()) reserve_like_first_launch();
    for (const auto& [replayed, member] : a.relinks)
      plan_.relinks.emplace_back(replayed, copied[member]);
  }

  // Spec §3.8: a CaptureRoot under the launch, then the window's members in order, each under
  // the copy of its parent (python frames left out skip to their nearest copied ancestor).
  // Returns each member's row in the merged index (its nearest copied ancestor's when left out).
  std::vector<std::int32_t> graft(Row launch, const index::EventIndex& capture,
                                  const CaptureWindow& window, std::uint32_t source_id,
                                  const CaptureMergeOptions& options) {
    const auto root = static_cast<std::int32_t>(next_row());
    append(index::RowCopy{source_id, index::kSyntheticRoot, launch},
           static_cast<std::int32_t>(launch));
    std::vector<std::int32_t> row(window.members.size());
    for (std::size_t i = 0; i < window.members.size(); ++i) {
      const Row member = window.members[i];
      const std::int32_t parent =
          window.parent[i] < 0 ? root : row[static_cast<std::size_t>(window.parent[i])];
      if (options.only_launch_paths && !window.leads_to_launch[i]) {
        row[i] = parent;  // no launch below: nothing of it is copied
        continue;
      }
      if (!options.include_python && capture.kind(member) == index::EventKind::kPythonFunction) {
        row[i] = parent;
        continue;
      }
      row[i] = static_cast<std::int32_t>(next_row());
      append(index::RowCopy{source_id, member, launch}, parent);
    }
    return row;
  }

  // A trace replays graphs of about one size, so the first launch's copies times the launches
  // sizes the plan: growing millions of copies by doubling cost more than the planning itself.
  // Room reserved and never used is address space only.
  void reserve_like_first_launch() {
    constexpr std::size_t kMaxReserved = std::size_t(1) << 27;  // past this: grow on demand
    const std::size_t rows = std::min(plan_.copies.size() * aligned_.size(), kMaxReserved);
    try {
      plan_.copies.reserve(rows);
      plan_.grafts.parent.reserve(rows);
      plan_.relinks.reserve(plan_.summary.attributed_events);
    } catch (const std::bad_alloc&) {
      // Only an optimisation: the plan grows on demand instead.
    }
  }

  Row next_row() const { return plan_.grafts.first_row + static_cast<Row>(plan_.copies.size()); }

  void append(const index::RowCopy& copy, std::int32_t parent) {
    plan_.copies.push_back(copy);
    plan_.grafts.parent.push_back(parent);
    ++plan_.summary.copied_rows;
  }

  const index::EventIndex& replay_;
  const LaunchLinks& links_;
  std::vector<Row> all_launches_;
  std::vector<AlignedLaunch> aligned_;  // in launch order
  CaptureMergePlan plan_;
};

}  // namespace

CaptureMergePlan plan_capture_merge(const index::EventIndex& replay, const LaunchLinks& links,
                                    const std::vector<CaptureTrace>& entries,
                                    const CaptureLoader& load, const CaptureMergeOptions& options) {
  MergePlanner planner(replay, links);
  for (const ServingStep& step : serving_steps(replay)) planner.align_step(step, entries, load);
  return planner.graft_all(options);
}

}  // namespace traceprism::model
