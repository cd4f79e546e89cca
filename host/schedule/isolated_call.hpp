#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "findings/finding.hpp"

namespace traceprism::schedule {

// One body to run in a child process, and the tasks whose outcomes it reads (they finish
// first).
struct IsolatedTask {
  std::function<void(findings::AnalyzerOutcome&)> body;
  findings::AnalyzerOutcome* outcome = nullptr;
  std::vector<std::size_t> after;  // indices into the task list
};

// Runs each task's body in its own forked child process, so that a plugin that crashes
// (segfault, abort) or hangs takes down only its child: the child encodes the outcome the body
// produced and sends it back through a pipe; the parent decodes it into the task's outcome. A
// child killed by a signal, one that exits without a complete result, or one still running
// after `timeout_seconds` (0: no limit) leaves its outcome failed with one sentence.
//
// At most `parallel` children run at once. Every fork happens on the calling thread, which
// also reads the pipes: forking is only safe while no other thread of the process works (a
// child would inherit a lock another thread held), so the caller must not run other threads
// meanwhile. Tasks start in list order once the tasks they wait for have finished, and each
// writes only its own outcome, so the results do not depend on `parallel` or on timing. The
// children only read the parent's (copy-on-write) memory and exit with _exit. Where fork is
// unavailable, or a pipe or process cannot be had, a body runs in-process.
void run_isolated(std::vector<IsolatedTask>& tasks, int parallel, double timeout_seconds);

}  // namespace traceprism::schedule
