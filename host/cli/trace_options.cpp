#include "cli/trace_options.hpp"

#include <iostream>

namespace traceprism::cli {

void add_trace_options(CLI::App& command, std::string& trace, pipeline::LoadOptions& options) {
  command.add_option("trace", trace, "Trace file (.json, .json.gz, .json.zst) or - for stdin")
      ->required();
  command.add_flag("--strict", options.strict,
                   "Fail on the first malformed event instead of counting and skipping it");
  command.add_flag("--include-unlinked", options.include_unlinked,
                   "Count GPU events with no launching call in the GPU timeline (TraceLens "
                   "--include_unlinked_kernels; off by default, as there)");
  command.add_flag("-q,--quiet", options.quiet, "No progress line on stderr");
  add_read_threads_option(command, options.read_threads);
}

void add_read_threads_option(CLI::App& command, unsigned& threads) {
  command
      .add_option("--read-threads", threads,
                  "Threads that parse the trace's events (default 1). On two cores two threads\n"
                  "are only as fast as one; a gain needs more cores (docs/performance.md, \"The\n"
                  "parallel reader\"). The index and every output are the same for any value")
      ->check(CLI::Range(1u, kMaxReadThreads));
}

void add_jobs_option(CLI::App& command, int& jobs, const std::string& help) {
  command.add_option("-j,--jobs", jobs, help)->check(CLI::Range(0, kMaxJobs));
}

CLI::Validator output_folder_check() {
  return CLI::Validator(
      [](const std::string& dir) -> std::string {
        if (dir != "-") return {};
        return "the report is a folder of files and cannot go to standard output; name a folder";
      },
      "FOLDER");
}

void print_error(const std::string& sentence) {
  std::cerr << "error: " << sentence << "\n";
}

}  // namespace traceprism::cli
