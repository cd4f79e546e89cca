#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/trace_options.hpp"
#include "cli/trace_summary.hpp"
#include "io/input_error.hpp"

namespace traceprism::cli {

namespace {
struct InspectOptions {
  std::string trace;
  bool json = false;
  pipeline::LoadOptions load;
};
}  // namespace

void add_inspect_command(CLI::App& app) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "inspect",
      "Summarize a trace: size, events by category and phase, devices, streams, CPU threads,\n"
      "launch links, malformed events that were skipped, and the GPU timeline.");
  add_trace_options(*cmd, options->trace, options->load);
  cmd->add_flag("--json", options->json, "Print one JSON object instead of text");
  cmd->footer("Example:\n  traceprism inspect trace.json.gz --json | jq .gpu_timeline_us");
  cmd->callback([options] {
    try {
      pipeline::TraceSession session = pipeline::load_trace(options->trace, options->load);
      TraceSummary summary = summarize(session);
      std::cout << (options->json ? render_json(summary) : render_text(summary));
      // Timings vary from run to run: they go to stderr so that stdout stays reproducible.
      if (!options->load.quiet) {
        const unsigned threads = session.file.parse_threads;
        const std::string on_threads =
            threads > 1 ? " (" + std::to_string(threads) + " parsing threads)" : "";
        std::fprintf(stderr, "read %.2f s%s, model %.2f s\n", summary.read_seconds,
                     on_threads.c_str(), summary.model_seconds);
      }
    } catch (const io::InputError& e) {
      print_error(e.what());
      throw CLI::RuntimeError(kExitBadInput);
    }
  });
}

}  // namespace traceprism::cli
