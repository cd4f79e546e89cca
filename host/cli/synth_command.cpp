#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "io/output_file.hpp"
#include "synth/injected_problems.hpp"
#include "synth/multi_rank.hpp"
#include "synth/synthetic_trace.hpp"

namespace traceprism::cli {

namespace {

struct SynthArgs {
  std::string output;
  synth::SynthOptions options;
  std::string vendor = "nvidia";
  std::string compression = "auto";
  bool inference = false;
  bool graph_replay = false;
  std::string capture_out;
  std::vector<std::string> inject;
  // Multi-rank jobs (multi-rank.md §11).
  int ranks = 1;
  synth::MultiRankOptions multi;
  std::string nccl_meta = "full";
  std::string meta_on = "both";
  std::string collectives = "ddp";
  std::string time_base = "new";
  std::vector<std::string> stragglers, host_stragglers, slow_links;
  double skew_us = 0;
  double clock_skew_us = 0;
};

// `auto` follows the extension, so `-o trace.json.gz` does what it says.
io::Compression pick_compression(const std::string& choice, const std::string& path) {
  if (choice == "gzip") return io::Compression::kGzip;
  if (choice == "zstd") return io::Compression::kZstd;
  if (choice == "none") return io::Compression::kNone;
  if (path.ends_with(".gz")) return io::Compression::kGzip;
  if (path.ends_with(".zst")) return io::Compression::kZstd;
  return io::Compression::kNone;
}

// "0.04" for a small sample, "1100.0" for a benchmark trace.
std::string megabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, bytes < 10e6 ? "%.2f" : "%.1f", bytes / 1e6);
  return text;
}

// "30ms", "1.5ms", "500us": the shortest exact spelling of a default.
std::string default_amount(std::int64_t ns) {
  char text[32];
  if (ns % 1'000'000 == 0 || ns >= 1'000'000) {
    std::snprintf(text, sizeof text, "%gms", static_cast<double>(ns) / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%gus", static_cast<double>(ns) / 1e3);
  }
  return text;
}

// One line per kind for --help: "  dataloader          30ms  a single-process DataLoader ...".
std::string inject_help() {
  std::string text =
      "Write a problem into every step; repeatable. AMOUNT is per step: the GPU idle it adds "
      "(the first six kinds) or the GPU time of its kind (the others); a number with ns, us, "
      "ms or s, the default below when omitted. KIND is one of:";
  for (const synth::ProblemInfo& info : synth::problem_catalog()) {
    std::string name(info.name);
    name.resize(18, ' ');
    char amount[16];
    std::snprintf(amount, sizeof amount, "%-6s", default_amount(info.default_ns).c_str());
    text += "\n  " + name + " " + amount + "  " + std::string(info.meaning);
  }
  return text;
}

void write_trace(const synth::SynthOptions& options, const std::string& path,
                 const std::string& compression) {
  try {
    io::OutputFile out(path, pick_compression(compression, path));
    const synth::SynthSummary summary = synth::write_synthetic_trace(options, out);
    out.commit();
    std::error_code ec;
    const auto disk_bytes = std::filesystem::file_size(path, ec);
    std::printf("wrote %s: %llu events, %s MB JSON (%s MB on disk), %d steps\n", path.c_str(),
                static_cast<unsigned long long>(summary.events),
                megabytes(static_cast<double>(summary.json_bytes)).c_str(),
                ec ? "?" : megabytes(static_cast<double>(disk_bytes)).c_str(), summary.steps);
  } catch (const std::exception& e) {
    // OutputFile's messages already name the file and end with a period.
    std::string sentence = e.what();
    if (!sentence.empty() && sentence.back() != '.') sentence += '.';
    std::cerr << "error: " << sentence << "\n";
    throw CLI::RuntimeError(kExitOutput);
  }
}

// "5:1.25" -> (5, 1.25): a rank and a number, for --straggler, --host-straggler and
// --slow-link.
std::pair<int, double> rank_and_number(const std::string& text, const char* option) {
  const std::size_t colon = text.find(':');
  try {
    std::size_t used = 0;
    if (colon == std::string::npos) throw std::invalid_argument("");
    const int rank = std::stoi(text.substr(0, colon), &used);
    if (used != colon) throw std::invalid_argument("");
    const std::string number = text.substr(colon + 1);
    const double value = std::stod(number, &used);
    if (used != number.size()) throw std::invalid_argument("");
    return {rank, value};
  } catch (const std::exception&) {
    throw CLI::ValidationError(std::string(option) + " takes RANK:NUMBER (e.g. 5:1.25), not '" +
                               text + "'.");
  }
}

void run_multi_rank(const SynthArgs& args, const synth::SynthOptions& options) {
  synth::MultiRankOptions multi = args.multi;
  multi.ranks = args.ranks;
  multi.meta = args.nccl_meta == "none"    ? synth::NcclMeta::kNone
               : args.nccl_meta == "noseq" ? synth::NcclMeta::kNoSeq
                                           : synth::NcclMeta::kFull;
  multi.meta_on = args.meta_on == "op"       ? synth::MetaOn::kOp
                  : args.meta_on == "kernel" ? synth::MetaOn::kKernel
                                             : synth::MetaOn::kBoth;
  multi.collectives =
      args.collectives == "fsdp" ? synth::Collectives::kFsdp : synth::Collectives::kDdp;
  multi.time_base = args.time_base == "epoch" ? synth::TimeBase::kEpoch : synth::TimeBase::kNew;
  for (const std::string& text : args.stragglers) {
    const auto [rank, factor] = rank_and_number(text, "--straggler");
    multi.straggler_permille[rank] = std::llround(factor * 1000);
  }
  for (const std::string& text : args.host_stragglers) {
    const auto [rank, us] = rank_and_number(text, "--host-straggler");
    multi.host_stall_ns[rank] = std::llround(us * 1000);
  }
  for (const std::string& text : args.slow_links) {
    const auto [rank, factor] = rank_and_number(text, "--slow-link");
    multi.slow_link_permille[rank] = std::llround(factor * 1000);
  }
  multi.skew_ns = std::llround(args.skew_us * 1000);
  multi.clock_skew_ns = std::llround(args.clock_skew_us * 1000);
  synth::MultiRankSummary summary;
  try {
    summary = synth::write_multi_rank_traces(options, multi, args.output);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError(e.what());
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    throw CLI::RuntimeError(kExitOutput);
  }
  std::printf(
      "wrote %d rank traces and synth_truth.json into %s: %s MB JSON in all, %llu "
      "collectives per rank\n",
      summary.files, args.output.c_str(),
      megabytes(static_cast<double>(summary.json_bytes)).c_str(),
      static_cast<unsigned long long>(summary.collectives));
}

void run_synth(const SynthArgs& args) {
  synth::SynthOptions options = args.options;
  options.vendor = args.vendor == "amd" ? synth::Vendor::kAmd : synth::Vendor::kNvidia;
  options.training = !args.inference;
  // A wrong --inject is a usage error: main prints the sentence and exits with kExitUsage.
  try {
    for (const std::string& text : args.inject) {
      options.inject.push_back(synth::parse_injection(text));
    }
    if (args.graph_replay) options.graph = synth::GraphMode::kReplay;
    synth::check_injections(options);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError(e.what());
  }
  if (args.ranks > 1) {
    run_multi_rank(args, options);
    return;
  }
  write_trace(options, args.output, args.compression);
  if (!args.graph_replay) return;
  // The graph's capture trace, as the engine writes it into its capture folder.
  options.graph = synth::GraphMode::kCapture;
  std::error_code ec;
  std::filesystem::create_directories(args.capture_out, ec);
  write_trace(options,
              (std::filesystem::path(args.capture_out) / "graph_capture_rank_0.json.gz").string(),
              "auto");
}

}  // namespace

void add_synth_command(CLI::App& app) {
  auto args = std::make_shared<SynthArgs>();
  CLI::App* cmd = app.add_subcommand(
      "synth", "Generate a synthetic Kineto trace of a decoder-only transformer (deterministic)");
  cmd->add_option("-o,--output", args->output,
                  "Trace file to write (.json, .json.gz or .json.zst); replaced atomically")
      ->required();
  cmd->add_option("--layers", args->options.layers, "Transformer blocks per step")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--steps", args->options.steps,
                  "Profiler steps (ProfilerStep#N); the minimum when --target-mb is set")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  cmd->add_option("--target-mb", args->options.target_mb,
                  "Keep adding steps until the uncompressed JSON reaches this many MB (0: off)")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
  cmd->add_option("--seed", args->options.seed,
                  "Random seed; the same seed and options give byte-identical output")
      ->capture_default_str();
  cmd->add_option("--vendor", args->vendor, "GPU vendor: kernel, runtime and device names")
      ->check(CLI::IsMember({"nvidia", "amd"}))
      ->capture_default_str();
  cmd->add_flag("--nccl", args->options.nccl,
                "Add data-parallel all-reduce kernels on a communication stream");
  cmd->add_flag("--inference", args->inference,
                "Trace forward passes only (no backward pass, no optimizer)");
  cmd->add_option("--inject", args->inject, inject_help())
      ->type_name("KIND[=AMOUNT]")
      ->take_all()
      ->allow_extra_args(false);
  auto* graph = cmd->add_flag(
      "--graph-replay", args->graph_replay,
      "With --inference: write vLLM-style prefill steps whose forward replays one CUDA/HIP graph\n"
      "(kernels under the graph launch, no ops), and the graph's capture trace into\n"
      "--capture-out (analyze it with --mode inference --capture-dir DIR)");
  cmd->add_option("--capture-out", args->capture_out,
                  "Folder for --graph-replay's capture trace (graph_capture_rank_0.json.gz)")
      ->needs(graph);
  graph->needs(cmd->get_option("--capture-out"));
  cmd->add_option("--ranks", args->ranks,
                  "Write a data-parallel job of N ranks: -o is then a folder that receives\n"
                  "rank<R>.json.gz per rank (see --name-pattern) and synth_truth.json (what was\n"
                  "injected, when each collective ran); the ranks meet at every collective of\n"
                  "their process groups")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--gpus-per-node", args->multi.gpus_per_node,
                  "With --ranks: ranks per node (rank R is on node R / G)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--tp", args->multi.tp,
                  "With --ranks: tensor-parallel groups of T consecutive ranks (T divides\n"
                  "--gpus-per-node and --ranks), each with 2 activation all-reduces per layer\n"
                  "forward and 2 backward that the next layer waits for; the gradient all-reduces\n"
                  "then run on the data-parallel groups of the ranks equal mod T")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--collectives", args->collectives,
                  "With --ranks: how the data-parallel groups share the model: ddp (bucketed\n"
                  "gradient all-reduces) or fsdp (per layer, an all-gather of its parameters\n"
                  "before its forward and again before its backward, and a reduce-scatter of\n"
                  "its gradients after its backward)")
      ->check(CLI::IsMember({"ddp", "fsdp"}))
      ->capture_default_str();
  cmd->add_option("--nccl-meta", args->nccl_meta,
                  "With --ranks: the collective args written: full (process group, Seq, Comms Id,\n"
                  "Rank), noseq (the 2024 set), none (no args; kernels named ncclKernel_SendRecv)")
      ->check(CLI::IsMember({"full", "noseq", "none"}))
      ->capture_default_str();
  cmd->add_option(
         "--meta-on", args->meta_on,
         "With --ranks: where the collective args go: op (record_param_comms), kernel, both")
      ->check(CLI::IsMember({"op", "kernel", "both"}))
      ->capture_default_str();
  cmd->add_option("--straggler", args->stragglers,
                  "With --ranks: rank R's computation kernels take F times as long; repeatable")
      ->type_name("R:F");
  cmd->add_option("--host-straggler", args->host_stragglers,
                  "With --ranks: rank R's host stalls US microseconds in its DataLoader at each\n"
                  "step start while its GPU idles; repeatable")
      ->type_name("R:US");
  cmd->add_option("--slow-link", args->slow_links,
                  "With --ranks: every process group that holds rank R moves its bytes at F times\n"
                  "the bandwidth (0 < F <= 1: its collectives last 1/F as long); repeatable")
      ->type_name("R:F");
  cmd->add_option(
         "--skew-us", args->skew_us,
         "With --ranks: before each collective, each rank's kernel that feeds it (the\n"
         "gradient-bucket copy; with --tp, the projection before an activation all-reduce)\n"
         "takes up to this many microseconds longer (arrival jitter)")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  cmd->add_option("--clock-skew-us", args->clock_skew_us,
                  "With --ranks: every node but node 0 writes its times shifted by up to this\n"
                  "many microseconds either way (its own clock; synth_truth.json lists them)")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  cmd->add_option("--drop-collectives", args->multi.drop,
                  "With --ranks: each collective is left out of each rank's file with this\n"
                  "probability (as a lossy profiler window drops events)")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  cmd->add_option("--missing-rank", args->multi.missing,
                  "With --ranks: rank R runs but its file is not written; repeatable")
      ->type_name("R");
  cmd->add_option(
         "--time-base", args->time_base,
         "With --ranks: how times are written: new (a baseTimeNanoseconds key and ts\n"
         "relative to it, as recent PyTorch writes) or epoch (no base, ts in microseconds\n"
         "since the Unix epoch, as older PyTorch wrote); the same times either way")
      ->check(CLI::IsMember({"new", "epoch"}))
      ->capture_default_str();
  cmd->add_option("--name-pattern", args->multi.name_pattern,
                  "With --ranks: the rank files' names: a pattern with {R} for the rank, ending\n"
                  "in .json.gz (rank{R}_trace.json.gz is TraceLens' default), or tensorboard for\n"
                  "torch.profiler.tensorboard_trace_handler's <host>_<pid>.<ms>.pt.trace.json.gz\n"
                  "(the rank is then only in the trace's distributedInfo)")
      ->capture_default_str();
  cmd->add_option("--compression", args->compression,
                  "Output compression; auto follows the extension (.gz, .zst)")
      ->check(CLI::IsMember({"auto", "gzip", "zstd", "none"}))
      ->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  traceprism synth -o sample.json.gz --layers 4 --steps 3 --seed 7\n"
      "  traceprism synth -o big.json.zst --target-mb 1100 --layers 24 --seed 1\n"
      "  traceprism synth -o amd.json --vendor amd --nccl\n"
      "  traceprism synth -o stall.json --steps 3 --inject dataloader=30ms --inject sync\n"
      "  traceprism synth -o serving.json.gz --inference --graph-replay --capture-out captures\n"
      "  traceprism synth -o job/ --ranks 8 --layers 4 --steps 3 --seed 7 --straggler 5:1.25\n"
      "  traceprism synth -o job/ --ranks 8 --tp 2 --layers 4 --steps 3 --slow-link 3:0.5\n"
      "  traceprism synth -o job/ --ranks 8 --layers 4 --steps 3 --collectives fsdp --vendor amd\n"
      "  traceprism synth -o job/ --ranks 8 --name-pattern tensorboard --time-base epoch");
  cmd->callback([args] { run_synth(*args); });
}

}  // namespace traceprism::cli
