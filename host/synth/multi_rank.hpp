#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "io/output_file.hpp"
#include "synth/synthetic_trace.hpp"

namespace traceprism::synth {

// --name-pattern: the default, and the word for torch.profiler.tensorboard_trace_handler's
// names, `<host>_<pid>.<ms>.pt.trace.json.gz` (the rank is then only in distributedInfo).
inline constexpr std::string_view kDefaultNamePattern = "rank{R}.json.gz";
inline constexpr std::string_view kTensorBoardNames = "tensorboard";

// A synthetic multi-rank training job (multi-rank.md §11, `synth --ranks N`): one trace per
// rank, data-parallel with DDP or FSDP (with --tp, tensor-parallel groups of T consecutive ranks
// inside the data-parallel groups), the ranks coupled at every collective of their process groups,
// with problems injected into chosen ranks, plus synth_truth.json with what was injected and when
// each collective ran.
struct MultiRankOptions {
  int ranks = 2;
  int gpus_per_node = 8;
  int tp = 1;  // --tp T: tensor-parallel group size; divides gpus_per_node and ranks
  NcclMeta meta = NcclMeta::kFull;
  MetaOn meta_on = MetaOn::kBoth;
  Collectives collectives = Collectives::kDdp;     // --collectives ddp|fsdp
  std::map<int, std::int64_t> straggler_permille;  // --straggler R:F, F x 1000
  std::map<int, std::int64_t> host_stall_ns;       // --host-straggler R:US
  std::map<int, std::int64_t> slow_link_permille;  // --slow-link R:F, F x 1000 (0 < F <= 1)
  std::int64_t skew_ns = 0;                        // --skew-us
  std::int64_t clock_skew_ns = 0;                  // --clock-skew-us: node j != 0 off by U[-S, S]
  double drop = 0;                                 // --drop-collectives P
  std::set<int> missing;                           // --missing-rank R: not written
  TimeBase time_base = TimeBase::kNew;             // --time-base new|epoch
  // --name-pattern: {R} is the rank (once; ends in .json.gz, no '/'), or kTensorBoardNames.
  std::string name_pattern = std::string(kDefaultNamePattern);
};

struct MultiRankSummary {
  int files = 0;
  std::uint64_t json_bytes = 0;   // all files, uncompressed
  std::uint64_t collectives = 0;  // per rank
};

// "rank3.json.gz": the file of a rank in the output folder under the default --name-pattern.
std::string rank_file_name(int rank);

// The file of a rank under options.name_pattern: "rank3_trace.json.gz" for rank{R}_trace.json.gz,
// "node000_19395.1701419247332.pt.trace.json.gz" for tensorboard (host node<N> of the rank's
// node, pid 19392 + rank, the trace's start in epoch ms). Throws std::invalid_argument, with a
// sentence naming --name-pattern, for a pattern write_multi_rank_traces refuses.
std::string rank_file_name(int rank, const MultiRankOptions& options);

// Writes each rank's file (named per options.name_pattern) and synth_truth.json into `dir`
// (created when missing), each file atomically. `base` gives the workload (training only; --nccl
// is implied). Throws std::invalid_argument with a sentence naming the option when an option
// names a rank outside the job, --tp does not divide the node and the job, or --name-pattern is
// not a file name pattern, and std::runtime_error when a file cannot be written.
MultiRankSummary write_multi_rank_traces(const SynthOptions& base, const MultiRankOptions& options,
                                         const std::filesystem::path& dir);

}  // namespace traceprism::synth
