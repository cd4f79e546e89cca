#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "pipeline/trace_load.hpp"

namespace traceprism::cli {

// The options every trace-reading subcommand shares: the TRACE argument, --strict,
// --include-unlinked and -q.
void add_trace_options(CLI::App& command, std::string& trace, pipeline::LoadOptions& options);

// Prints "error: <sentence>" on stderr.
void print_error(const std::string& sentence);

}  // namespace traceprism::cli
