#include "synth/multi_rank.hpp"

#include <algorithm>
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

void check_options(const SynthOptions& base, const MultiRankOptions& o) {
  if (o.ranks < 2) throw std::invalid_argument("--ranks needs at least 2 ranks.");
  if (o.gpus_per_node < 1) throw std::invalid_argument("--gpus-per-node must be positive.");
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
  for (int rank : o.missing) check_rank(rank, o.ranks, "--missing-rank");
  if (o.drop < 0 || o.drop >= 1)
    throw std::invalid_argument("--drop-collectives is a probability in [0, 1).");
  if (o.skew_ns < 0) throw std::invalid_argument("--skew-us cannot be negative.");
  if (o.clock_skew_ns < 0) throw std::invalid_argument("--clock-skew-us cannot be negative.");
}

// Node j != 0's clock offset: U[-S, S] from the seed, the same for every rank of the node.
std::int64_t node_clock_offset(const MultiRankOptions& o, std::uint64_t seed, int node) {
  if (node == 0 || o.clock_skew_ns == 0) return 0;
  detail::Rng rng(seed ^ (0xa0761d6478bd642fULL * static_cast<std::uint64_t>(node)));
  return rng.between(-o.clock_skew_ns, o.clock_skew_ns);
}

RankRole role_of(int rank, const MultiRankOptions& o, Rendezvous& rendezvous) {
  RankRole role;
  role.rank = rank;
  role.world = o.ranks;
  role.meta = o.meta;
  role.meta_on = o.meta_on;
  role.devices_per_node = o.gpus_per_node;
  if (auto it = o.straggler_permille.find(rank); it != o.straggler_permille.end())
    role.compute_permille = it->second;
  role.skew_ns = o.skew_ns;
  role.drop_ppm = static_cast<std::uint32_t>(o.drop * 1e6);
  role.rendezvous = &rendezvous;
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
int last_arriver(const Rendezvous::Instance& c) {
  const auto [first, last] = std::minmax_element(c.starts.begin(), c.starts.end());
  const std::int64_t skew = *last - *first;
  if (skew < std::max<std::int64_t>(10'000, c.transfer / 20)) return -1;
  return static_cast<int>(std::find(c.starts.begin(), c.starts.end(), *last) - c.starts.begin());
}

void append_list(std::string& s, const std::vector<std::int64_t>& values) {
  s += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(values[i]);
  }
  s += ']';
}

std::string truth_json(const MultiRankOptions& o, std::uint64_t seed,
                       const Rendezvous& rendezvous) {
  std::vector<std::int64_t> last_count(static_cast<std::size_t>(o.ranks), 0);
  std::string s = "{\n\"world_size\":" + std::to_string(o.ranks) +
                  ",\n\"gpus_per_node\":" + std::to_string(o.gpus_per_node) + ",\n\"ranks\":[";
  for (int r = 0; r < o.ranks; ++r) {
    if (r) s += ',';
    s += "\n{\"rank\":" + std::to_string(r) + ",\"file\":";
    s += o.missing.count(r) ? "null" : "\"" + rank_file_name(r) + "\"";
    s += ",\"node\":" + std::to_string(r / o.gpus_per_node);
    auto straggler = o.straggler_permille.find(r);
    if (straggler != o.straggler_permille.end())
      s += ",\"compute_factor_permille\":" + std::to_string(straggler->second);
    auto stall = o.host_stall_ns.find(r);
    if (stall != o.host_stall_ns.end()) s += ",\"host_stall_ns\":" + std::to_string(stall->second);
    s += "}";
  }
  // Per node: how far its clock runs ahead of node 0's (what analysis should estimate).
  s += "\n],\n\"clock_offsets_ns\":[";
  const int nodes = (o.ranks + o.gpus_per_node - 1) / o.gpus_per_node;
  for (int node = 0; node < nodes; ++node)
    s += (node ? "," : "") + std::to_string(node_clock_offset(o, seed, node));
  s += "],\n\"instances\":[";
  const auto& instances = rendezvous.instances();
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const Rendezvous::Instance& c = instances[i];
    const int last = last_arriver(c);
    if (last >= 0) ++last_count[static_cast<std::size_t>(last)];
    s += i ? ",\n" : "\n";
    s += "{\"pg\":\"0\",\"seq\":" + std::to_string(i + 1) + ",\"kind\":\"allreduce\"";
    s += ",\"transfer_ns\":" + std::to_string(c.transfer) +
         ",\"last_arriver\":" + std::to_string(last) + ",\"start_ns\":";
    append_list(s, c.starts);
    s += ",\"end_ns\":";
    append_list(s, c.ends);
    s += ",\"correlation\":";
    append_list(s, c.correlations);
    s += ",\"written\":[";
    for (std::size_t r = 0; r < c.written.size(); ++r)
      s += r ? (c.written[r] ? ",1" : ",0") : (c.written[r] ? "1" : "0");
    s += "]}";
  }
  s += "\n],\n\"last_arrivals\":";
  append_list(s, last_count);
  return s + "\n}\n";
}

}  // namespace

std::string rank_file_name(int rank) {
  return "rank" + std::to_string(rank) + ".json.gz";
}

MultiRankSummary write_multi_rank_traces(const SynthOptions& base, const MultiRankOptions& o,
                                         const std::filesystem::path& dir) {
  check_options(base, o);
  check_injections(base);
  io::create_output_folder(dir);
  Rendezvous rendezvous(o.ranks);
  std::vector<RankRun> runs(static_cast<std::size_t>(o.ranks));
  for (int r = 0; r < o.ranks; ++r) {
    RankRun& run = runs[static_cast<std::size_t>(r)];
    run.role = role_of(r, o, rendezvous);
    run.role.clock_offset_ns = node_clock_offset(o, base.seed, r / o.gpus_per_node);
    run.options = base;
    run.options.nccl = true;
    if (auto it = o.host_stall_ns.find(r); it != o.host_stall_ns.end())
      run.options.inject.push_back({Problem::kDataloader, it->second});
    run.path = dir / rank_file_name(r);
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
                                 truth_json(o, base.seed, rendezvous));
  MultiRankSummary summary;
  for (const RankRun& run : runs) {
    if (!run.written) continue;
    ++summary.files;
    summary.json_bytes += run.summary.json_bytes;
  }
  summary.collectives = rendezvous.instances().size();
  return summary;
}

}  // namespace traceprism::synth
