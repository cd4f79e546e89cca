#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/output_file.hpp"
#include "synth/injected_problems.hpp"

namespace traceprism::synth {

enum class Vendor { kNvidia, kAmd };

// CUDA/HIP graphs in an inference run (synth --graph-replay), as vLLM runs them: kEager launches
// every kernel from its op; kReplay writes steps that replay the forward as one graph launch
// (its kernels under no op, annotated as vLLM prefill steps); kCapture writes the capture trace
// of that graph: the forward's ops and launch calls between a begin and an end of stream
// capture, with no GPU work.
enum class GraphMode : std::uint8_t { kEager, kReplay, kCapture };

class Rendezvous;

// What a collective's events say about it (synth --nccl-meta): kFull, the current profiler's
// keys with Seq, Comms Id and Rank; kNoSeq, the 2024 set (process group, sizes, no Seq);
// kNone, the 2023 set (no collective args; every kernel named ncclKernel_SendRecv).
enum class NcclMeta : std::uint8_t { kFull, kNoSeq, kNone };
// Where the collective args are written (synth --meta-on).
enum class MetaOn : std::uint8_t { kBoth, kOp, kKernel };
// How the data-parallel groups exchange parameters and gradients (synth --collectives): kDdp,
// bucketed gradient all-reduces; kFsdp, PyTorch FSDP's per-layer all-gathers of the parameters
// (before the layer's forward and again before its backward) and reduce-scatter of its
// gradients.
enum class Collectives : std::uint8_t { kDdp, kFsdp };
// How a rank's trace writes its times (synth --time-base): kNew, a baseTimeNanoseconds key and
// every ts relative to it, as recent PyTorch writes; kEpoch, no base and every ts in microseconds
// since the Unix epoch, as PyTorch did before. Both give the same absolute times once read.
enum class TimeBase : std::uint8_t { kNew, kEpoch };

// A process group of a multi-rank job, as distributedInfo.pg_config and the collectives' args
// name it: the default group "0" of the whole world, and with synth --tp T the tensor-parallel
// groups (T consecutive ranks) and the data-parallel groups (ranks equal mod T).
struct ProcessGroup {
  int id = 0;               // index in the job's list of groups (where the rendezvous meets)
  std::string name;         // "Process Group Name": "0", "1", ...
  std::string description;  // "Process Group Description": default_pg, tp_group, dp_group
  std::vector<int> ranks;   // members, ascending: "Process Group Ranks"
  int stride = 1;           // "Global rank stride" ("Global rank start": ranks.front())
  std::int64_t link_permille = 1000;  // --slow-link: transfers take 1000 / this as long
};

// One rank of a multi-rank job (synth --ranks): set by write_multi_rank_traces, null for a
// single-rank trace (whose output it leaves unchanged).
struct RankRole {
  int rank = 0;
  int world = 1;
  NcclMeta meta = NcclMeta::kFull;
  MetaOn meta_on = MetaOn::kBoth;
  std::int64_t compute_permille = 1000;  // computation kernels last this much (straggler)
  std::int64_t skew_ns = 0;              // each collective's preceding kernel grows U[0, skew]
  std::uint32_t drop_ppm = 0;            // each collective left out of this file with this odds
  std::int64_t clock_offset_ns = 0;      // this node's clock runs ahead by this much
  int devices_per_node = 1;              // deviceProperties lists this many GPUs (the node's)
  Rendezvous* rendezvous = nullptr;      // where the ranks meet at each collective
  const std::vector<ProcessGroup>* groups = nullptr;  // every group of the job (pg_config)
  const ProcessGroup* dp_group = nullptr;       // the gradient all-reduces' group (default: "0")
  const ProcessGroup* tp_group = nullptr;       // --tp > 1: the activations' all-reduces' group
  Collectives collectives = Collectives::kDdp;  // fsdp: on dp_group, no gradient buckets
  TimeBase time_base = TimeBase::kNew;          // epoch: absolute ts, no baseTimeNanoseconds
};

// Shape of the generated workload: a decoder-only transformer training/inference step.
struct SynthOptions {
  int layers = 4;           // transformer blocks per step
  int steps = 2;            // profiler steps (ProfilerStep#N)
  double target_mb = 0.0;   // if > 0: keep adding steps until the JSON reaches this many MB
  std::uint64_t seed = 42;  // same seed + options -> byte-identical output
  Vendor vendor = Vendor::kNvidia;
  bool nccl = false;     // add NCCL/RCCL all-reduce kernels (exposed communication)
  bool training = true;  // false: forward only (no backward pass, no optimizer)
  int batch = 8;
  int sequence = 512;
  int hidden = 1024;
  GraphMode graph = GraphMode::kEager;  // other modes need training = false and no injection
  // Problems written into every step (`synth --inject`), each kind at most once.
  std::vector<Injection> inject;
  const RankRole* rank = nullptr;  // multi-rank: this file's rank (synth/multi_rank.hpp)
};

struct SynthSummary {
  std::uint64_t events = 0;      // entries in traceEvents
  std::uint64_t json_bytes = 0;  // uncompressed size
  int steps = 0;
  std::uint64_t gpu_events = 0;
};

// Throws std::invalid_argument, with a sentence naming the option, when an injection is given
// twice, has no positive amount, or needs what the workload lacks (recompute: a backward pass),
// and when a graph mode is asked for a training run or with injections.
void check_injections(const SynthOptions& options);

// Streams a Kineto (Chrome-trace) JSON document into `out` without building it in memory.
// The caller commits `out`. Throws std::invalid_argument for non-positive sizes and for the
// injections check_injections rejects.
SynthSummary write_synthetic_trace(const SynthOptions& options, io::OutputFile& out);

}  // namespace traceprism::synth
