#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "cli/analysis_options.hpp"
#include "cli/commands.hpp"
#include "cli/multi_rank_run.hpp"
#include "cli/platform_options.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/rank_distribution.hpp"
#include "cli/trace_options.hpp"
#include "config/run_config.hpp"
#include "io/folder_replacement.hpp"
#include "io/output_file.hpp"
#include "multirank/cross_rank_thresholds.hpp"
#include "multirank/rank_discovery.hpp"
#include "multirank/rank_summary_file.hpp"
#include "perf_report/gpu_timeline_sheet.hpp"
#include "pipeline/analysis_pipeline.hpp"
#include "report/multi_rank_heatmap.hpp"
#include "report/report_writers.hpp"
#include "text/json_writer.hpp"

namespace traceprism::cli {

namespace {

namespace fs = std::filesystem;

struct AnalyzeOptions {
  std::vector<std::string> traces;  // one trace, or the rank traces of a multi-rank job
  bool allow_partial = false;
  std::string summaries_out;         // --summaries-out
  int gpus_per_node = 0;             // --gpus-per-node
  unsigned rank_jobs = 0;            // --rank-jobs
  std::string memory_budget;         // --memory-budget
  double nic_gbits = 0;              // --nic-gbps
  double match_tolerance_us = 1000;  // --match-tolerance-us
  bool no_clock_align = false;       // --no-clock-align
  bool detail = false;               // --detail
  bool per_rank_reports = false;     // --per-rank-reports
  std::string rank_depth = "full";   // --rank-depth
  std::string focus_rank = "auto";
  std::string rank_from = "auto";
  std::string rank_regex = std::string(multirank::kDefaultRankRegex);
  std::string rank_set;  // --ranks
  bool recursive = false;
  std::string on_duplicate_rank = "error";
  bool require_all_ranks = false;
  bool from_summaries = false;  // `merge`: traces are folders of rank summaries
  std::string output_dir;
  pipeline::PlatformOptions platform;
  AnalysisOptions analysis;
  std::string mode;  // "default", "inference"; empty: inference with --capture-dir, else default
  bool dump_config = false;
};

std::string default_output_dir(const std::string& trace) {
  std::string name = fs::path(trace).filename().string();
  for (const char* ext : {".gz", ".zst", ".json"})
    if (name.size() > std::strlen(ext) && name.ends_with(ext))
      name.resize(name.size() - std::strlen(ext));
  return (trace == "-" ? std::string("stdin") : name) + "_analysis";
}

// The effective configuration, with every loaded analyzer's options at their effective values.
std::string dump_config(const config::RunConfig& cfg, const plugins::PluginRegistry& registry) {
  text::JsonWriter w;
  w.begin_object();
  std::string globs;
  for (const auto& g : cfg.analyzer_globs) globs += (globs.empty() ? "" : ",") + g;
  w.key("analyzers").value(globs);
  std::map<std::string, std::string> options = cfg.options;
  for (const auto& p : registry.plugins())
    for (std::uint32_t i = 0; i < p.info->analyzer_count; ++i) {
      const auto& a = p.info->analyzers[i];
      for (std::uint32_t o = 0; o < a.option_count; ++o)
        options.emplace(std::string(a.name) + "." + a.options[o].name,
                        a.options[o].default_value ? a.options[o].default_value : "");
    }
  for (const multirank::ThresholdOption& o : multirank::cross_rank_threshold_options())
    options.emplace(o.name, o.default_value);
  w.key("options").begin_object();
  for (const auto& [k, v] : options) w.key(k).value(v);
  w.end_object();
  w.key("report").begin_object().key("fail_on").value(cfg.fail_on).end_object();
  w.key("_enabled").begin_array();
  for (const auto& p : registry.plugins())
    for (std::uint32_t i = 0; i < p.info->analyzer_count; ++i)
      if (cfg.enabled(p.info->analyzers[i].name)) w.value(p.info->analyzers[i].name);
  w.end_array();
  w.end_object();
  return w.str();
}

// "16G", "512M", "64K", "2000000000" (bytes; binary units).
bool parse_size(const std::string& text, std::uint64_t& bytes) {
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  const std::string unit = text.substr(used);
  int shift = 0;
  if (unit == "K" || unit == "k")
    shift = 10;
  else if (unit == "M" || unit == "m")
    shift = 20;
  else if (unit == "G" || unit == "g")
    shift = 30;
  else if (unit == "T" || unit == "t")
    shift = 40;
  else if (!unit.empty())
    return false;
  if (value > (~0ull >> shift)) return false;
  bytes = static_cast<std::uint64_t>(value) << shift;
  return bytes > 0;
}

const std::map<std::string, multirank::RankFrom> kRankFromNames{
    {"auto", multirank::RankFrom::kAuto},
    {"meta", multirank::RankFrom::kMeta},
    {"filename", multirank::RankFrom::kFileName},
    {"order", multirank::RankFrom::kOrder}};

// The multi-rank options as the run takes them; the usage error's sentence when one is bad.
std::string multi_rank_options(const AnalyzeOptions& o, MultiRankOptions& out) {
  out.allow_partial = o.allow_partial;
  out.quiet = o.analysis.load.quiet;
  out.summaries_out = o.summaries_out;
  out.gpus_per_node = o.gpus_per_node;
  out.rank_jobs = o.rank_jobs;
  out.platform = o.platform;
  out.nic_gbits = o.nic_gbits;
  if (!(o.match_tolerance_us >= 0))  // NaN too
    return "--match-tolerance-us takes a number of microseconds of at least 0.";
  out.match_tolerance_ns = static_cast<std::int64_t>(std::min(o.match_tolerance_us, 1e9) * 1e3);
  out.align_clocks = !o.no_clock_align;
  out.detail = o.detail;
  out.per_rank_reports = o.per_rank_reports;
  out.light_depth = o.rank_depth == "light";
  if (!o.memory_budget.empty() && !parse_size(o.memory_budget, out.memory_budget_bytes))
    return "--memory-budget takes a size such as 16G, 512M or a byte count; got '" +
           o.memory_budget + "'.";
  if (o.focus_rank != "auto") {
    std::size_t used = 0;
    int rank = -1;
    try {
      rank = std::stoi(o.focus_rank, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != o.focus_rank.size() || rank < 0)
      return "--focus-rank takes auto or a rank number; got '" + o.focus_rank + "'.";
    out.focus_rank = rank;
  }
  multirank::DiscoveryOptions& d = out.discovery;
  d.from = kRankFromNames.at(o.rank_from);
  d.recursive = o.recursive;
  d.keep_first_duplicate = o.on_duplicate_rank == "first";
  d.require_all_ranks = o.require_all_ranks;
  try {
    multirank::check_rank_regex(o.rank_regex);
    d.rank_regex = o.rank_regex;
    if (!o.rank_set.empty()) d.rank_ranges = multirank::parse_rank_ranges(o.rank_set);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

// multi_rank_csvs/ beside the focus rank's report.
void write_multi_rank_files(const fs::path& staging, const MultiRankPlan& job) {
  io::create_output_folder(staging / "multi_rank_csvs");
  for (const auto& [name, text] : job.csvs)
    io::write_text_file_atomically((staging / "multi_rank_csvs" / name).string(), text);
  io::write_text_file_atomically((staging / report::kMultiRankHeatmapFile).string(),
                                 report::multi_rank_heatmap_svg(job.facts));
}

// --per-rank-reports: every rank's own report under ranks/, and the focus rank's compute and
// fusion cards say on how many ranks they recur.
void add_per_rank_reports(const pipeline::PipelineOptions& p, const MultiRankPlan& job,
                          const fs::path& staging, const AnalysisOptions& a,
                          pipeline::PipelineRun& focus) {
  std::vector<std::string>& warnings = focus.report.multi_rank->warnings;
  const std::vector<SeenFindings> seen =
      write_per_rank_reports(p, job.rank_traces, staging, a.load.quiet, warnings);
  add_seen_on_ranks(focus.report.findings, seen);
}

int run_analyze(const AnalyzeOptions& o) {
  const AnalysisOptions& a = o.analysis;
  config::RunConfig cfg;
  try {
    cfg = effective_config(a);
  } catch (const config::ConfigError& e) {
    print_error(e.what());
    return kExitUsage;
  }
  plugins::PluginRegistry registry;
  load_plugins(registry, a.plugin_dirs);
  if (o.dump_config) {
    std::cout << dump_config(cfg, registry);
    return kExitOk;
  }
  if (o.traces.empty()) {
    print_error("analyze needs a TRACE argument (or --dump-config).");
    return kExitUsage;
  }
  const bool multi_rank = o.from_summaries || is_multi_rank_input(o.traces);
  if ((o.detail || o.no_clock_align || o.per_rank_reports) && !multi_rank) {
    print_error(std::string(o.detail             ? "--detail"
                            : o.per_rank_reports ? "--per-rank-reports"
                                                 : "--no-clock-align") +
                " applies to a multi-rank job; give several rank traces or a folder of them.");
    return kExitUsage;
  }
  if (!o.summaries_out.empty() && !multi_rank) {
    print_error(
        "--summaries-out saves the rank summaries of a multi-rank job; give several rank "
        "traces or a folder of them.");
    return kExitUsage;
  }
  if (multi_rank && !a.load.capture_dir.empty()) {
    print_error("--capture-dir analyses one serving trace; give one TRACE with it.");
    return kExitUsage;
  }
  MultiRankOptions rank_options;
  if (std::string problem = multi_rank_options(o, rank_options); !problem.empty()) {
    print_error(problem);
    return kExitUsage;
  }
  try {
    rank_options.thresholds = multirank::cross_rank_thresholds(cfg.options);
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  }
  if (int code = check_loaded_plugins(registry, a); code != kExitOk) return code;

  if (o.mode == "default" && !a.load.capture_dir.empty()) {
    print_error("--capture-dir needs --mode inference (the capture merge is inference mode's).");
    return kExitUsage;
  }
  // traceprism-mpi: the job's other processes read their share of the rank traces for process
  // 0, which alone writes the report.
  if (RankDistribution* d = installed_rank_distribution(); d && !d->writes_outputs()) {
    if (!multi_rank || o.from_summaries) return kExitOk;
    return exit_code_of_pipeline([&] { read_rank_share(o.traces, rank_options); });
  }
  // The output folder first: a folder in use or holding other files should not cost the
  // minute a big trace takes to read.
  const std::string dir = !o.output_dir.empty() ? o.output_dir
                          : multi_rank          ? default_output_dir(o.traces.front() + ".json")
                                                : default_output_dir(o.traces.front());
  std::optional<io::FolderReplacement> output;
  try {
    output.emplace(dir, report::is_analysis_report_file);
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitOutput;
  }
  pipeline::PipelineOptions p = pipeline_options(a, registry, cfg);
  p.trace_path = o.traces.front();
  std::optional<MultiRankPlan> job;
  if (multi_rank) {
    if (int code = exit_code_of_pipeline([&] {
          job = o.from_summaries ? plan_from_summaries(o.traces, rank_options)
                                 : plan_multi_rank(o.traces, rank_options);
        });
        code != kExitOk)
      return code;
    p.trace_path = job->focus_trace;
    p.host_outcomes = job->outcomes;
    p.before_ranking = [&facts = job->facts](std::vector<findings::AnalyzerOutcome>& outcomes) {
      discount_collective_wait(outcomes, facts);
    };
  }
  // A long decode trace replays its graph thousands of times.
  p.load.capture_prune_when_large = true;
  p.inference_mode = o.mode == "inference" || (o.mode.empty() && !a.load.capture_dir.empty());
  p.load.pseudo_ops = p.inference_mode;
  p.platform = o.platform;
  std::unique_ptr<pipeline::PipelineRun> run;
  if (int code = exit_code_of_pipeline([&] { run = pipeline::run_pipeline(p); }); code != kExitOk)
    return code;
  if (job) {
    run->report.multi_rank = job->facts;
    add_collective_wait_to_exposed_comm(run->report);
  }
  if (job && rank_options.per_rank_reports)
    if (int code = exit_code_of_pipeline(
            [&] { add_per_rank_reports(p, *job, output->staging(), a, *run); });
        code != kExitOk)
      return code;
  const pipeline::AnalysisReport& r = run->report;
  const auto write_start = std::chrono::steady_clock::now();
  try {
    report::write_report_folder(output->staging().string(), r);
    if (job) write_multi_rank_files(output->staging(), *job);
    output->commit();
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitOutput;
  }
  const double write_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - write_start).count();
  // Timings go to stderr, so stdout and the outputs stay reproducible.
  if (!a.load.quiet)
    std::fprintf(stderr,
                 "read %.2f s, model %.2f s, plugin products %.2f s, op models %.2f s, "
                 "perf report %.2f s, analyzers %.2f s, writing %.2f s\n",
                 run->seconds.read, run->seconds.model, run->seconds.products,
                 run->seconds.op_models, run->seconds.perf_report, run->seconds.analyzers,
                 write_seconds);
  const std::size_t failed = report_failed_analyzers(r.graph.analyzers);
  if (!a.load.quiet && job)
    std::cout << job->ranks << " of " << job->world_size << " ranks analysed; focus rank "
              << job->focus_rank << " (" << job->focus_trace << ")\n";
  if (!a.load.quiet)
    std::cout << "wrote " << (fs::path(dir) / "analysis.md").string() << " ("
              << r.findings.compute.size() << " compute, " << r.findings.fusion.size()
              << " fusion, " << r.findings.system.size() << " system findings), findings.json, "
              << "perf_report_csvs/\n";
  if (a.load.strict && failed > 0) {
    print_error("--strict: " + std::to_string(failed) + " analyzer(s) failed.");
    return kExitPlugin;
  }
  return severity_threshold_exit(cfg, r.findings);
}

// Options that `analyze` over rank traces and `merge` share.
void add_rank_choice_options(CLI::App& cmd, AnalyzeOptions& o) {
  cmd.add_option("--focus-rank", o.focus_rank,
                 "Multi-rank: the rank whose own report fills the compute and fusion items\n"
                 "(auto: the one with the most compute per step)")
      ->capture_default_str();
  cmd.add_flag("--require-all-ranks", o.require_all_ranks,
               "Multi-rank: exit 2 when a rank of the job is missing or unreadable, instead of\n"
               "analysing the others and saying which are missing");
}

// How collectives are matched and timed across ranks, and the detail written.
void add_matching_options(CLI::App& cmd, AnalyzeOptions& o) {
  cmd.add_option("--match-tolerance-us", o.match_tolerance_us,
                 "Multi-rank: for traces without process-group metadata, the largest difference\n"
                 "of end times (after clock alignment) at which two ranks' collectives are\n"
                 "matched")
      ->capture_default_str();
  cmd.add_flag("--no-clock-align", o.no_clock_align,
               "Multi-rank: keep each node's clock as written (the offsets are still estimated\n"
               "and reported, not applied)");
  cmd.add_flag("--per-rank-reports", o.per_rank_reports,
               "Multi-rank: also write every rank's own report into ranks/rank-NNNNN/ (one\n"
               "analysis per rank), and say on each compute and fusion item of the focus rank\n"
               "on how many ranks it recurs");
  cmd.add_flag("--detail", o.detail,
               "Multi-rank: also write multi_rank_csvs/collectives.csv, one row per matched\n"
               "collective (at most 1,000,000)");
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "Analyze a trace with every enabled analyzer plugin and write the ranked report:\n"
      "  DIR/analysis.md        the report (executive summary, compute / fusion / system P-items)\n"
      "  DIR/findings.json      every finding with numbers and evidence (docs/report-format.md)\n"
      "  DIR/perf_report_csvs/  TraceLens-compatible perf report sheets\n"
      "  DIR/model_info.json    the identified model, architecture, scale and precision\n"
      "  DIR/perf_breakdown.svg the GPU time breakdown chart analysis.md shows\n"
      "Outputs are written atomically; the trace is never modified.");
  cmd->add_option("TRACE", o->traces,
                  "Trace file (.json, .json.gz, .json.zst) or - for stdin; several rank traces\n"
                  "(files or a folder of them) analyse a multi-rank job: the focus rank's report\n"
                  "plus cross-rank items (stragglers) and multi_rank_csvs/ranks.csv");
  cmd->add_flag("--allow-partial", o->allow_partial,
                "Multi-rank: report cross-rank items even when under half of the job's ranks\n"
                "were analysed");
  cmd->add_option("--gpus-per-node", o->gpus_per_node,
                  "Multi-rank: ranks per node (rank R on node R / G), for the per-node clock\n"
                  "offsets; default: the host in tensorboard_trace_handler file names, else the\n"
                  "trace's device count")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--rank-jobs", o->rank_jobs,
                  "Multi-rank: rank traces read at once (default: as many as half the cores and\n"
                  "--memory-budget allow, each rank needing about half its JSON size)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--memory-budget", o->memory_budget,
                  "Multi-rank: memory the ranks read at once may use, e.g. 16G (default: 70% of\n"
                  "the available memory)");
  add_rank_choice_options(*cmd, *o);
  add_matching_options(*cmd, *o);
  cmd->add_option("--nic-gbps", o->nic_gbits,
                  "Multi-rank: scale-out NIC bandwidth per GPU in Gb/s (400: 50 GB/s per\n"
                  "direction), for the bandwidth of collectives across nodes (default: unknown,\n"
                  "so those are not judged)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--rank-depth", o->rank_depth,
                  "Multi-rank: full indexes every event of each rank trace; light only what the\n"
                  "cross-rank figures read (GPU events, launches, annotations, collective ops),\n"
                  "with less memory and time per rank and the same report")
      ->check(CLI::IsMember({"full", "light"}))
      ->capture_default_str();
  cmd->add_option("--rank-from", o->rank_from,
                  "Multi-rank: where a trace's rank comes from: auto (distributedInfo.rank, else\n"
                  "the file name), meta, filename (--rank-regex) or order (sorted path order)")
      ->check(CLI::IsMember({"auto", "meta", "filename", "order"}));
  cmd->add_option("--rank-regex", o->rank_regex,
                  "Multi-rank: regular expression whose first group is the rank in a file name\n"
                  "(searched in the base name, then the path)")
      ->capture_default_str();
  cmd->add_option("--ranks", o->rank_set, "Multi-rank: analyse only these ranks, e.g. 0-7,64");
  cmd->add_flag("--recursive", o->recursive,
                "Multi-rank: also look for rank traces in the subfolders of a given folder");
  cmd->add_option("--on-duplicate-rank", o->on_duplicate_rank,
                  "Multi-rank: two files of one rank are an error (exit 2), or keep the first in\n"
                  "path order")
      ->check(CLI::IsMember({"error", "first"}))
      ->capture_default_str();
  cmd->add_option(
      "--summaries-out", o->summaries_out,
      "Multi-rank: also write each rank's summary (rank-NNNNN.tpsum) into this folder,\n"
      "for `traceprism merge` (e.g. one Slurm array task per group of ranks)");
  cmd->add_option("-o,--output", o->output_dir,
                  "Output folder (created if missing; default: <trace name>_analysis)")
      ->check(output_folder_check());
  add_platform_options(*cmd, o->platform);
  add_analysis_options(*cmd, o->analysis);
  cmd->add_option("--mode", o->mode,
                  "default (training or eager inference) or inference (vLLM / SGLang serving\n"
                  "traces; implied by --capture-dir)")
      ->check(CLI::IsMember({"default", "inference"}));
  cmd->add_option("--capture-dir", o->analysis.load.capture_dir,
                  "Inference mode: the folder of profiler traces the engine wrote while it\n"
                  "captured its CUDA/HIP graphs (vLLM graph_capture_*.json.gz, SGLang\n"
                  "bs_<N>_*.json.gz, optionally an execution_details.json). Each graph replay\n"
                  "of the trace gets the ops its capture recorded, so replayed kernels are\n"
                  "attributed to ops with shapes; read only, never written to")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--dump-config", o->dump_config,
                "Print the effective configuration (globs, every option with its value) and exit");
  cmd->footer(
      "Examples:\n"
      "  traceprism analyze trace.json.gz -o report\n"
      "  traceprism analyze trace.json.gz --disable 'memcpy' --jobs 4\n"
      "  traceprism analyze vllm_decode.json.gz --mode inference --capture-dir capture_traces\n"
      "  traceprism analyze job_traces/ -o job_report    several ranks: stragglers and why\n"
      "  traceprism analyze --dump-config > my-config.json\n"
      "  traceprism validate-report report    check the written report's structure\n" +
      std::string(kAnalysisExitStatusHelp));
  cmd->callback([o, cmd] {
    collect_analyzer_globs(*cmd, o->analysis);
    int code = run_analyze(*o);
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

void add_merge_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  o->from_summaries = true;
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Write the multi-rank report from rank summaries that `analyze TRACES... --summaries-out\n"
      "DIR` saved (a scheduler without MPI: analyse groups of ranks as separate tasks, then\n"
      "merge). The report is the one `analyze` writes over all the traces at once; the focus\n"
      "rank's trace is read again at the path its summary records.");
  cmd->add_option("SUMMARY_DIR", o->traces, "Folders of rank-NNNNN.tpsum files")->required();
  cmd->add_option("-o,--output", o->output_dir, "Output folder (default: <first folder>_analysis)")
      ->check(output_folder_check());
  add_platform_options(*cmd, o->platform);
  add_analysis_options(*cmd, o->analysis);
  cmd->add_flag("--allow-partial", o->allow_partial,
                "Report cross-rank items even when under half of the job's ranks were analysed");
  cmd->add_option("--gpus-per-node", o->gpus_per_node,
                  "Ranks per node (rank R on node R / G), for the per-node clock offsets")
      ->check(CLI::Range(1, 1 << 20));
  add_rank_choice_options(*cmd, *o);
  add_matching_options(*cmd, *o);
  cmd->footer(
      "Examples:\n"
      "  traceprism analyze 'job/rank[0-3].json.gz' --summaries-out sums -o /tmp/part1\n"
      "  traceprism analyze 'job/rank[4-7].json.gz' --summaries-out sums -o /tmp/part2\n"
      "  traceprism merge sums -o job_report\n" +
      std::string(kAnalysisExitStatusHelp));
  cmd->callback([o, cmd] {
    collect_analyzer_globs(*cmd, o->analysis);
    int code = run_analyze(*o);
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

void add_summary_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("summary", "Inspect rank summaries (.tpsum files)");
  cmd->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  CLI::App* dump = cmd->add_subcommand(
      "dump", "Print a rank summary as JSON: every section, collective rows by name");
  dump->add_option("FILE", *file, "A rank-NNNNN.tpsum file")->required();
  dump->callback([file] {
    try {
      std::cout << multirank::rank_summary_json(multirank::read_rank_summary_file(*file));
    } catch (const std::exception& e) {
      print_error(e.what());
      throw CLI::RuntimeError(kExitBadInput);
    }
  });
}

}  // namespace traceprism::cli
