// Where the rank traces of a multi-rank run are read: by this process's worker pool (the
// default), or spread over the processes of an MPI job (traceprism-mpi, multi-rank.md §3.2),
// whose process 0 alone writes the report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "multirank/rank_discovery.hpp"
#include "multirank/rank_summary.hpp"

namespace traceprism::cli {

// One rank trace read into its summary, or the sentence that leaves it out of the job (§2: an
// unreadable rank is excluded and the run goes on).
struct RankReadResult {
  std::optional<multirank::RankSummary> summary;
  std::string error;
};

// Reads the files of a discovery with the given indices (into Discovery::files) with this
// process's worker pool; the results are in the order of `indices`.
using LocalRankReader =
    std::function<std::vector<RankReadResult>(const std::vector<std::size_t>& indices)>;

class RankDistribution {
 public:
  virtual ~RankDistribution() = default;

  // Whether this process writes the report (MPI: process 0); the others only read their share.
  virtual bool writes_outputs() const = 0;

  // Called by every process with the fingerprint of the files and ranks its discovery found, or
  // the sentence why discovery failed. Throws io::InputError on every process when one failed or
  // when they found different files, so that all of them stop at the same point.
  virtual void agree_on_inputs(std::uint64_t fingerprint, const std::string& error) = 0;

  // Every file's result, by index, on the process that writes the outputs; an empty vector on
  // the others. Each process reads its share with `read_local`.
  virtual std::vector<RankReadResult> read_ranks(const multirank::Discovery& found,
                                                 const LocalRankReader& read_local) = 0;
};

// traceprism-mpi installs its distribution before it runs the command line; null (the default)
// means this process reads every rank.
void install_rank_distribution(RankDistribution* distribution);
RankDistribution* installed_rank_distribution();

}  // namespace traceprism::cli
