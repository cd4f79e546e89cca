// traceprism-mpi's rank distribution (multi-rank.md §3.2): the rank traces are dealt to the
// processes of the MPI job largest first, each process reads its share with its own worker pool,
// and the rank summaries (the .tpsum bytes, or the sentence that excludes a rank) go to process
// 0, which merges them exactly as a one-process run does, so the report is byte-identical at
// any process count. Every process makes the same MPI calls whatever fails locally: a rank that
// cannot be read is data, not an exception.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "cli/rank_distribution.hpp"

namespace traceprism::mpi {

class MpiRankDistribution final : public cli::RankDistribution {
 public:
  explicit MpiRankDistribution(MPI_Comm comm);

  bool writes_outputs() const override { return process_ == 0; }
  void agree_on_inputs(std::uint64_t fingerprint, const std::string& error) override;
  std::vector<cli::RankReadResult> read_ranks(const multirank::Discovery& found,
                                              const cli::LocalRankReader& read_local) override;

  // Whether every process got through read_ranks; a process that stops before (a usage error
  // on one, an output folder process 0 cannot write) must abort the job, since the others
  // would wait for it.
  bool finished() const { return finished_; }
  int process() const { return process_; }

 private:
  MPI_Comm comm_;
  int process_ = 0;
  int processes_ = 1;
  bool finished_ = false;
};

// Which process reads which file: largest estimated JSON first, each to the process with the
// least assigned so far (ties: the lower trace rank, the lower process). Returns, per process,
// the file indices in the order it reads them.
std::vector<std::vector<std::size_t>> deal_rank_files(const multirank::Discovery& found,
                                                      int processes);

}  // namespace traceprism::mpi
