#include "synth/multi_rank.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "synth/rendezvous.hpp"
#include "synth/synthesizer.hpp"

namespace traceprism::synth {

namespace {

void check_rank(int rank, int ranks, const char* option) {
  if (rank < 0 || rank >= ranks)
    throw std::invalid_argument(std::string(option) + " names rank " + std::to_string(rank) +
                                ", but the job has ranks 0 to " + std::to_string(ranks - 1) + ".");
}

// A --name-pattern other than tensorboard must give each rank its own file in the output folder
// that analyze reads as a trace: {R} once, the .json.gz ending of what is written, no folder.
void check_name_pattern(const std::string& pattern) {
  if (pattern == kTensorBoardNames) return;
  const std::string quoted = "--name-pattern \"" + pattern + "\"";
  const std::size_t rank = pattern.find("{R}");
  if (rank == std::string::npos || pattern.find("{R}", rank + 1) != std::string::npos)
    throw std::invalid_argument(quoted + " must hold {R} (the rank) exactly once, or be " +
                                std::string(kTensorBoardNames) + ".");
  if (!pattern.ends_with(".json.gz"))
    throw std::invalid_argument(quoted + " must end in .json.gz (the files are gzip-compressed).");
  if (pattern.find('/') != std::string::npos)
    throw std::invalid_argument(quoted + " names a file in the output folder: drop the '/'.");
}

// torch.profiler.tensorboard_trace_handler's `<host>_<pid>.<ms>.pt.trace.json.gz`: the rank's
// node as host, one process per rank, the time the profiler started in epoch ms.
std::string tensorboard_file_name(int rank, int gpus_per_node) {
  char host[24];
  std::snprintf(host, sizeof host, "node%03d", rank / std::max(1, gpus_per_node));
  const std::int64_t pid = detail::kHostPid + rank;
  const std::int64_t ms = (detail::kTraceBaseNs + detail::kTraceStartNs) / 1'000'000;
  return std::string(host) + "_" + std::to_string(pid) + "." + std::to_string(ms) +
         ".pt.trace.json.gz";
}

void check_options(const SynthOptions& base, const MultiRankOptions& o) {
  if (o.ranks < 2) throw std::invalid_argument("--ranks needs at least 2 ranks.");
  if (o.gpus_per_node < 1) throw std::invalid_argument("--gpus-per-node must be positive.");
  if (o.tp < 1 || o.gpus_per_node % o.tp != 0 || o.ranks % o.tp != 0)
    throw std::invalid_argument("--tp " + std::to_string(o.tp) + " must divide --gpus-per-node (" +
                                std::to_string(o.gpus_per_node) + ") and --ranks (" +
                                std::to_string(o.ranks) + ").");
  if (o.tp == o.ranks)
    throw std::invalid_argument("--tp " + std::to_string(o.tp) +
                                " leaves data-parallel groups of one rank: it must be smaller "
                                "than --ranks (" +
                                std::to_string(o.ranks) + ").");
  if (!base.training || base.graph != GraphMode::kEager)
    throw std::invalid_argument("--ranks writes a data-parallel training job: drop --inference.");
  for (const auto& [rank, permille] : o.straggler_permille) {
    check_rank(rank, o.ranks, "--straggler");
    if (permille < 1) throw std::invalid_argument("--straggler needs a positive factor.");
  }
  for (const auto& [rank, stall] : o.host_stall_ns) {
    check_rank(rank, o.ranks, "--host-straggler");
    if (stall < 1) throw std::invalid_argument("--host-straggler needs a positive stall.");
  }
  for (const auto& [rank, permille] : o.slow_link_permille) {
    check_rank(rank, o.ranks, "--slow-link");
    if (permille < 1 || permille > 1000)
      throw std::invalid_argument("--slow-link needs a factor in (0, 1], e.g. 3:0.5.");
  }
  for (int rank : o.missing) check_rank(rank, o.ranks, "--missing-rank");
  if (o.drop < 0 || o.drop >= 1)
    throw std::invalid_argument("--drop-collectives is a probability in [0, 1).");
  if (o.skew_ns < 0) throw std::invalid_argument("--skew-us cannot be negative.");
  if (o.clock_skew_ns < 0) throw std::invalid_argument("--clock-skew-us cannot be negative.");
  check_name_pattern(o.name_pattern);
}

// Node j != 0's clock offset: U[-S, S] from the seed, the same for every rank of the node.
std::int64_t node_clock_offset(const MultiRankOptions& o, std::uint64_t seed, int node) {
  if (node == 0 || o.clock_skew_ns == 0) return 0;
  detail::Rng rng(seed ^ (0xa0761d6478bd642fULL * static_cast<std::uint64_t>(node)));
  return rng.between(-o.clock_skew_ns, o.clock_skew_ns);
}

// The job's process groups: "0" (default_pg, the whole world); with --tp T, then the
// tensor-parallel groups of T consecutive ranks ("1", ...) and the data-parallel groups of the
// ranks equal mod T. A group with a --slow-link member moves its bytes at the slowest member's
// fraction of the bandwidth (a ring is as fast as its slowest link).
std::vector<ProcessGroup> process_groups(const MultiRankOptions& o) {
  std::vector<ProcessGroup> groups;
  const auto add = [&](const char* description, int first, int stride, int size) {
    ProcessGroup g;
    g.id = static_cast<int>(groups.size());
    g.name = std::to_string(g.id);
    g.description = description;
    g.stride = stride;
    for (int i = 0; i < size; ++i) g.ranks.push_back(first + i * stride);
    for (int r : g.ranks)
      if (auto it = o.slow_link_permille.find(r); it != o.slow_link_permille.end())
        g.link_permille = std::min(g.link_permille, it->second);
    groups.push_back(std::move(g));
  };
  add("default_pg", 0, 1, o.ranks);
  if (o.tp == 1) return groups;
  for (int first = 0; first < o.ranks; first += o.tp) add("tp_group", first, 1, o.tp);
  for (int first = 0; first < o.tp; ++first) add("dp_group", first, o.tp, o.ranks / o.tp);
  return groups;
}

// Whether the truth file describes groups and links (--tp, --slow-link); without them it keeps
// the fields it always had.
bool groups_in_truth(const MultiRankOptions& o) {
  return o.tp > 1 || !o.slow_link_permille.empty();
}

RankRole role_of(int rank, const MultiRankOptions& o, Rendezvous& rendezvous,
                 const std::vector<ProcessGroup>& groups) {
  RankRole role;
  role.rank = rank;
  role.world = o.ranks;
  role.meta = o.meta;
  role.meta_on = o.meta_on;
  role.collectives = o.collectives;
  role.time_base = o.time_base;
  role.devices_per_node = o.gpus_per_node;
  if (auto it = o.straggler_permille.find(rank); it != o.straggler_permille.end())
    role.compute_permille = it->second;
  role.skew_ns = o.skew_ns;
  role.drop_ppm = static_cast<std::uint32_t>(o.drop * 1e6);
  role.rendezvous = &rendezvous;
  role.groups = &groups;
  if (o.tp == 1) {
    role.dp_group = &groups[0];
  } else {
    const std::size_t tp_groups = static_cast<std::size_t>(o.ranks / o.tp);
    role.tp_group = &groups[1 + static_cast<std::size_t>(rank / o.tp)];
    role.dp_group = &groups[1 + tp_groups + static_cast<std::size_t>(rank % o.tp)];
  }
  return role;
}

// One rank's generator on its own thread. A missing rank still runs (the others meet it at
// every collective) but its file is never committed.
struct RankRun {
  RankRole role;
  SynthOptions options;
  std::filesystem::path path;
  bool written = true;
  SynthSummary summary;
  std::exception_ptr error;

  void operator()() {
    try {
      io::OutputFile out(path.string(), io::Compression::kGzip);
      summary = detail::Synthesizer(options, out).run();
      if (written) out.commit();
    } catch (...) {
      error = std::current_exception();
      role.rendezvous->abort();
    }
  }
};

// --- synth_truth.json ---------------------------------------------------------------------------

// The last arriver of an instance (ties: the lowest rank) when its arrival skew reaches
// max(10 µs, 5% of the transfer), the spec's "skewed" rule (§7.1); -1 otherwise.
int last_arriver(const Rendezvous::Instance& c, const std::vector<int>& members) {
  const auto [first, last] = std::minmax_element(c.starts.begin(), c.starts.end());
  const std::int64_t skew = *last - *first;
  if (skew < std::max<std::int64_t>(10'000, c.transfer / 20)) return -1;
  return members[static_cast<std::size_t>(std::find(c.starts.begin(), c.starts.end(), *last) -
                                          c.starts.begin())];
}

// The median of a few numbers (the mean of the middle two, rounded down, for an even count).
std::int64_t median_of(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  if (n % 2) return values[n / 2];
  const std::int64_t sum = values[n / 2 - 1] + values[n / 2];
  return sum / 2 - (sum % 2 != 0 && sum < 0);
}

// §9.2's late-arrival impact of one skewed instance on the true times, in ns: low = the last
// arrival's margin over the second-last (at most mid), mid = its lead past the median arrival,
// high = the whole arrival skew, each times x_c, the median exposure of the members that did
// not arrive last (from the kernels the files show).
struct LateArrival {
  std::int64_t low = 0, mid = 0, high = 0;
};

LateArrival late_arrival(const Rendezvous::Instance& c, std::size_t last) {
  std::vector<std::int64_t> sorted = c.starts;
  std::sort(sorted.begin(), sorted.end());
  const std::int64_t latest = sorted.back();
  std::vector<std::int64_t> exposures;
  for (std::size_t i = 0; i < c.starts.size(); ++i)
    if (i != last) exposures.push_back(c.exposures_permille[i]);
  const std::int64_t x = median_of(exposures);
  const std::int64_t mid = latest - median_of(c.starts);
  const std::int64_t low = std::min(latest - sorted[sorted.size() - 2], mid);
  return {low * x / 1000, mid * x / 1000, (latest - sorted.front()) * x / 1000};
}

template <class Number>
void append_list(std::string& s, const std::vector<Number>& values) {
  s += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(values[i]);
  }
  s += ']';
}

std::string truth_json(const MultiRankOptions& o, std::uint64_t seed,
                       const std::vector<ProcessGroup>& groups, const Rendezvous& rendezvous) {
  const bool with_groups = groups_in_truth(o);
  std::vector<std::int64_t> last_count(static_cast<std::size_t>(o.ranks), 0);
  std::vector<LateArrival> caused(static_cast<std::size_t>(o.ranks));
  std::string s = "{\n\"world_size\":" + std::to_string(o.ranks) +
                  ",\n\"gpus_per_node\":" + std::to_string(o.gpus_per_node);
  if (with_groups) s += ",\n\"tp\":" + std::to_string(o.tp);
  if (o.collectives == Collectives::kFsdp) s += ",\n\"collectives\":\"fsdp\"";
  s += ",\n\"ranks\":[";
  for (int r = 0; r < o.ranks; ++r) {
    if (r) s += ',';
    s += "\n{\"rank\":" + std::to_string(r) + ",\"file\":";
    s += o.missing.count(r) ? "null" : "\"" + rank_file_name(r, o) + "\"";
    s += ",\"node\":" + std::to_string(r / o.gpus_per_node);
    auto straggler = o.straggler_permille.find(r);
    if (straggler != o.straggler_permille.end())
      s += ",\"compute_factor_permille\":" + std::to_string(straggler->second);
    auto stall = o.host_stall_ns.find(r);
    if (stall != o.host_stall_ns.end()) s += ",\"host_stall_ns\":" + std::to_string(stall->second);
    auto link = o.slow_link_permille.find(r);
    if (link != o.slow_link_permille.end())
      s += ",\"slow_link_permille\":" + std::to_string(link->second);
    s += "}";
  }
  // Per node: how far its clock runs ahead of node 0's (what analysis should estimate).
  s += "\n],\n\"clock_offsets_ns\":[";
  const int nodes = (o.ranks + o.gpus_per_node - 1) / o.gpus_per_node;
  for (int node = 0; node < nodes; ++node)
    s += (node ? "," : "") + std::to_string(node_clock_offset(o, seed, node));
  s += "]";
  // Per group: its name, description, members and the fraction of the bandwidth it moves at.
  if (with_groups) {
    s += ",\n\"process_groups\":[";
    for (const ProcessGroup& g : groups) {
      s += g.id ? ",\n" : "\n";
      s += "{\"pg\":\"" + g.name + "\",\"pg_desc\":\"" + g.description + "\",\"ranks\":";
      append_list(s, g.ranks);
      s += ",\"link_factor_permille\":" + std::to_string(g.link_permille) + "}";
    }
    s += "\n]";
  }
  s += ",\n\"instances\":[";
  const std::vector<const Rendezvous::Instance*> instances = rendezvous.instances();
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const Rendezvous::Instance& c = *instances[i];
    const ProcessGroup& g = groups[static_cast<std::size_t>(c.group)];
    const int last = last_arriver(c, g.ranks);
    if (last >= 0) {
      ++last_count[static_cast<std::size_t>(last)];
      const std::size_t index = static_cast<std::size_t>(
          std::find(g.ranks.begin(), g.ranks.end(), last) - g.ranks.begin());
      const LateArrival impact = late_arrival(c, index);
      LateArrival& sum = caused[static_cast<std::size_t>(last)];
      sum.low += impact.low;
      sum.mid += impact.mid;
      sum.high += impact.high;
    }
    s += i ? ",\n" : "\n";
    s += "{\"pg\":\"" + g.name + "\",\"seq\":" + std::to_string(c.seq) + ",\"kind\":\"";
    s += c.kind;
    s += "\"";
    // With groups, the per-member lists below follow "members".
    if (with_groups) {
      s += ",\"pg_desc\":\"" + g.description + "\",\"members\":";
      append_list(s, g.ranks);
      s += ",\"link_factor_permille\":" + std::to_string(g.link_permille);
    }
    s += ",\"transfer_ns\":" + std::to_string(c.transfer) +
         ",\"last_arriver\":" + std::to_string(last) + ",\"start_ns\":";
    append_list(s, c.starts);
    s += ",\"end_ns\":";
    append_list(s, c.ends);
    s += ",\"correlation\":";
    append_list(s, c.correlations);
    s += ",\"exposure_permille\":";
    append_list(s, c.exposures_permille);
    s += ",\"written\":[";
    for (std::size_t r = 0; r < c.written.size(); ++r)
      s += r ? (c.written[r] ? ",1" : ",0") : (c.written[r] ? "1" : "0");
    s += "]}";
  }
  s += "\n],\n\"last_arrivals\":";
  append_list(s, last_count);
  // Per rank, the late-arrival impact of the instances it arrived last at (§9.2, ns).
  s += ",\n\"late_arrival_ns\":[";
  for (std::size_t r = 0; r < caused.size(); ++r) {
    s += r ? ",\n" : "\n";
    s += "{\"low\":" + std::to_string(caused[r].low) + ",\"mid\":" + std::to_string(caused[r].mid) +
         ",\"high\":" + std::to_string(caused[r].high) + "}";
  }
  s += "\n]";
  return s + "\n}\n";
}

}  // namespace

std::string rank_file_name(int rank) {
  return rank_file_name(rank, MultiRankOptions{});
}

std::string rank_file_name(int rank, const MultiRankOptions& options) {
  check_name_pattern(options.name_pattern);
  if (options.name_pattern == kTensorBoardNames)
    return tensorboard_file_name(rank, options.gpus_per_node);
  std::string name = options.name_pattern;
  return name.replace(name.find("{R}"), 3, std::to_string(rank));
}

MultiRankSummary write_multi_rank_traces(const SynthOptions& base, const MultiRankOptions& o,
                                         const std::filesystem::path& dir) {
  check_options(base, o);
  check_injections(base);
  io::create_output_folder(dir);
  const std::vector<ProcessGroup> groups = process_groups(o);
  std::vector<std::vector<int>> members;
  for (const ProcessGroup& g : groups) members.push_back(g.ranks);
  Rendezvous rendezvous(o.ranks, std::move(members));
  std::vector<RankRun> runs(static_cast<std::size_t>(o.ranks));
  for (int r = 0; r < o.ranks; ++r) {
    RankRun& run = runs[static_cast<std::size_t>(r)];
    run.role = role_of(r, o, rendezvous, groups);
    run.role.clock_offset_ns = node_clock_offset(o, base.seed, r / o.gpus_per_node);
    run.options = base;
    run.options.nccl = true;
    if (auto it = o.host_stall_ns.find(r); it != o.host_stall_ns.end())
      run.options.inject.push_back({Problem::kDataloader, it->second});
    run.path = dir / rank_file_name(r, o);
    run.written = !o.missing.count(r);
  }
  // Roles are final before any thread reads them through options.rank.
  for (RankRun& run : runs) run.options.rank = &run.role;
  std::vector<std::thread> threads;
  threads.reserve(runs.size());
  for (RankRun& run : runs) threads.emplace_back(std::ref(run));
  for (std::thread& t : threads) t.join();
  for (const RankRun& run : runs)
    if (run.error) std::rethrow_exception(run.error);
  io::write_text_file_atomically((dir / "synth_truth.json").string(),
                                 truth_json(o, base.seed, groups, rendezvous));
  MultiRankSummary summary;
  for (const RankRun& run : runs) {
    if (!run.written) continue;
    ++summary.files;
    summary.json_bytes += run.summary.json_bytes;
  }
  // Every rank meets one instance at each position.
  for (const Rendezvous::Instance* c : rendezvous.instances())
    summary.collectives = std::max<std::uint64_t>(summary.collectives, c->position + 1);
  return summary;
}

}  // namespace traceprism::synth
