#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "findings/finding.hpp"

namespace traceprism::schedule {

// One body to run in a worker process, and the tasks whose outcomes it reads (they finish
// first).
struct IsolatedTask {
  std::function<void(findings::AnalyzerOutcome&)> body;
  findings::AnalyzerOutcome* outcome = nullptr;
  std::vector<std::size_t> after;  // indices into the task list
};

// Runs each task's body in a forked worker process, so that a plugin that crashes (segfault,
// abort) or hangs takes down only its worker and its own task: the worker encodes the outcome
// the body produced and sends it back through a socket; the parent decodes it into the task's
// outcome. A worker killed by a signal, one that exits without a complete result, or one still
// running a task after `timeout_seconds` (0: no limit) leaves that task's outcome failed with
// one sentence, and the next tasks go to a new worker.
//
// At most `parallel` workers run at once, each serving tasks one after another (a fork per
// worker rather than per task). Every fork happens on the calling thread, which also reads the
// sockets: forking is only safe while no other thread of the process works (a child would
// inherit a lock another thread held), so the caller must not run other threads meanwhile.
// Tasks start in list order once the tasks they wait for have finished; a worker forked before
// those finished receives their decoded outcomes with the task, and a worker restores a task's
// outcome slot after sending it back, so every body reads what it would read in a fresh child:
// the results do not depend on `parallel`, on timing or on which worker ran what. Workers only
// read the parent's (copy-on-write) memory, die with the parent, and exit with _exit. Where
// fork is unavailable, or no socket or process can be had, a body runs in-process.
void run_isolated(std::vector<IsolatedTask>& tasks, int parallel, double timeout_seconds);

}  // namespace traceprism::schedule
