// Prints the time and resident memory of each stage of `analyze` up to the perf report: what
// `inspect` does (read, call tree, links, timeline), then the op instances, the plugin products,
// the op models (phase 1), the autograd links and the perf report, whole (as perf-report and
// analyze run it) and then part by part (one after the other), to see where the time and the
// memory of a large trace go. Build with -DTRACEPRISM_BUILD_BENCH=ON; run:
//   build/bench/stage_memory out/bench/synth_1100mb_l24_s1.json.gz [PLUGIN_DIR]
//   build/bench/stage_memory --capture-dir DIR TRACE [PLUGIN_DIR]   (inference mode's merge)
// PLUGIN_DIR defaults to the build's plugin folder (bench/../plugins).
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "cli/plugin_loading.hpp"
#include "config/run_config.hpp"
#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/forward_backward.hpp"
#include "model/gpu_timeline.hpp"
#include "model/kernel_launchers.hpp"
#include "model/launch_links.hpp"
#include "perf_report/category_sheets.hpp"
#include "perf_report/gpu_subtrees.hpp"
#include "perf_report/kernel_sheets.hpp"
#include "perf_report/ops_sheets.hpp"
#include "perf_report/perf_report.hpp"
#include "perf_report/unified_perf_table.hpp"
#include "pipeline/platform_choice.hpp"
#include "pipeline/trace_load.hpp"
#include "plugins/op_model_runner.hpp"
#include "plugins/plugin_registry.hpp"
#include "plugins/run_products.hpp"
#include "report/sheet_csv.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Seconds since the previous stage, then current and peak resident set size from
// /proc/self/status, in MB.
void report(const char* stage) {
  static Clock::time_point last = Clock::now();
  const Clock::time_point now = Clock::now();
  std::ifstream status("/proc/self/status");
  std::string line;
  long rss_kb = 0, peak_kb = 0;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) rss_kb = std::stol(line.substr(6));
    if (line.rfind("VmHWM:", 0) == 0) peak_kb = std::stol(line.substr(6));
  }
  std::printf("%-32s %6.2f s   resident %5ld MB, peak so far %5ld MB\n", stage,
              std::chrono::duration<double>(now - last).count(), rss_kb / 1000, peak_kb / 1000);
  std::fflush(stdout);
  last = Clock::now();  // the /proc read is not part of the next stage
}

}  // namespace

int main(int argc, char** argv) {
  namespace tp = traceprism;
  std::string capture_dir;
  if (argc > 2 && std::string(argv[1]) == "--capture-dir") {
    capture_dir = argv[2];
    argv += 2;
    argc -= 2;
  }
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: stage_memory [--capture-dir DIR] TRACE [PLUGIN_DIR]\n";
    return 64;
  }
  const std::string trace = argv[1];
  const std::string plugin_dir =
      argc == 3
          ? argv[2]
          : (std::filesystem::absolute(argv[0]).parent_path().parent_path() / "plugins").string();
  tp::plugins::PluginRegistry registry;
  tp::cli::load_plugins(registry, {plugin_dir});
  report("start (plugins loaded)");

  tp::pipeline::TraceSession session;
  if (capture_dir.empty()) {
    session.file = tp::ingest::read_trace(trace);
    report("read");
    session.tree = tp::model::CallTree::build(session.file.index);
    report("call tree");
    session.links = tp::model::LaunchLinks::build(session.file.index);
    report("links");
    session.timeline = tp::model::compute_gpu_timeline(session.file.index, session.links);
    report("timeline");
  } else {
    tp::pipeline::LoadOptions load;
    load.quiet = true;
    load.capture_dir = capture_dir;
    session = tp::pipeline::load_trace(trace, load);
    report("read, capture merge, model");
  }
  const tp::index::EventIndex& index = session.file.index;
  const auto& tree = session.tree;
  const auto& links = session.links;
  const auto& timeline = session.timeline;
  std::printf("%zu events, %zu GPU events\n", index.size(),
              static_cast<std::size_t>(timeline.events));

  const auto launchers = tp::model::KernelLaunchers::build(index, tree, links);
  report("op instances");
  tp::plugins::RunProducts products(index, tree, links, timeline, launchers);
  report("plugin products");
  tp::platform::PlatformInfo platform;
  try {
    platform = tp::pipeline::choose_platform({}, index);
  } catch (const std::exception& e) {
    std::cerr << "no platform: " << e.what() << "\n";
  }
  const tp::config::RunConfig config;
  const tp::plugins::OpModelInputs model_inputs{&registry, &config, &platform, &trace, 0};
  const tp::plugins::OpModelRun op_run = tp::plugins::run_op_models(model_inputs, products);
  products.set_op_work(&op_run.table);
  report("op models (phase 1)");
  const auto fwd_bwd = tp::model::ForwardBackwardLinks::build(index);
  report("autograd links");

  tp::perf_report::PerfReportInputs in;
  in.index = &index;
  in.tree = &tree;
  in.links = &links;
  in.fwd_bwd = &fwd_bwd;
  in.timeline = &timeline;
  in.launchers = &launchers;
  in.op_work = &op_run.table;
  in.platform = &platform;
  std::size_t bytes = 0;
  {
    const auto sheets = tp::perf_report::build_perf_report(in);
    for (const auto& sheet : sheets) bytes += tp::report::sheet_csv(sheet.table).size();
    report("perf report");
  }
  std::printf("perf report: %zu bytes of CSV\n", bytes);
  malloc_trim(0);
  report("(trimmed)");

  // The report's parts one after the other, each from a trimmed heap.
  const tp::perf_report::LauncherSheetInputs launcher_inputs{
      index,
      tree,
      links,
      launchers,
      timeline,
      [&](tp::index::Row row) -> std::optional<std::string> {
        if (auto c = op_run.table.category_of_name(index.name_id(row))) return std::string(*c);
        return std::nullopt;
      }};
  {
    tp::perf_report::OpsSheetsBuilder ops;
    tp::perf_report::LauncherCategories categories;
    tp::perf_report::LauncherRowBuilder builder(launcher_inputs);
    tp::perf_report::LauncherRow row;
    for (const auto& l : launchers.all()) {
      builder.fill(l, row);
      ops.add(row);
      categories.add(row.row, row.category);
    }
    categories.finish();
    bytes = tp::report::sheet_csv(ops.ops_summary_by_category()).size() +
            tp::report::sheet_csv(ops.ops_summary()).size() +
            tp::report::sheet_csv(ops.ops_unique_args()).size();
    for (const auto& sheet : tp::perf_report::kernel_sheets_of(launcher_inputs, categories))
      bytes += tp::report::sheet_csv(sheet.table).size();
    report("  ops and kernel sheets");
  }
  malloc_trim(0);
  const tp::perf_report::PerfSheetInputs perf{&index,        &tree,     &links,    &fwd_bwd,
                                              &op_run.table, &platform, &launchers};
  const tp::perf_report::GpuSubtrees subtrees(index, tree, links, &fwd_bwd);
  report("  GPU subtrees");
  {
    const auto unified = tp::perf_report::build_unified_perf_table(perf, subtrees, false);
    bytes = tp::report::sheet_csv(tp::perf_report::unified_perf_summary_sheet(unified)).size();
    report("  unified_perf_summary");
  }
  malloc_trim(0);
  {
    const auto sheets = tp::perf_report::build_category_sheets(perf, subtrees);
    report("  per-category sheets");
  }
  return 0;
}
