#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "pipeline/trace_load.hpp"

namespace traceprism::cli {

// The options every trace-reading subcommand shares: the TRACE argument, --strict,
// --include-unlinked, -q and --read-threads.
void add_trace_options(CLI::App& command, std::string& trace, pipeline::LoadOptions& options);

// --read-threads, from 1 (the one-thread reader) to kMaxReadThreads: the reader's parsing
// threads (ingest::ReadOptions::threads).
inline constexpr unsigned kMaxReadThreads = 64;
void add_read_threads_option(CLI::App& command, unsigned& threads);

// The most threads or child processes --jobs may ask for.
inline constexpr int kMaxJobs = 1024;
// --jobs, from 0 (all cores) to kMaxJobs.
void add_jobs_option(CLI::App& command, int& jobs, const std::string& help);

// For -o of the commands that write a report folder: refuses "-" (a folder is not a stream).
CLI::Validator output_folder_check();

// Prints "error: <sentence>" on stderr.
void print_error(const std::string& sentence);

}  // namespace traceprism::cli
