#pragma once

#include <functional>

#include "findings/finding.hpp"

namespace traceprism::schedule {

// Runs `body` in a forked child process, so that a plugin that crashes (segfault, abort) or
// hangs takes down only the child: the child encodes the outcome `body` produced and sends it
// back through a pipe; the parent decodes it into `outcome`. A child killed by a signal, one that
// exits without a complete result, or one still running after `timeout_seconds` (0: no limit)
// leaves `outcome` failed with one sentence. The child only reads the parent's (copy-on-write)
// memory and exits with _exit, so nothing in the parent changes except `outcome`. Where fork is
// unavailable the body runs in-process.
void run_isolated(const std::function<void(findings::AnalyzerOutcome&)>& body,
                  findings::AnalyzerOutcome& outcome, double timeout_seconds);

}  // namespace traceprism::schedule
