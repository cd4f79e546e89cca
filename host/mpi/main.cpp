// traceprism-mpi: `traceprism analyze` over the rank traces of a job, run under mpirun or srun
// (multi-rank.md §3.2). Every process reads its share of the traces; process 0 writes the one
// report, byte-identical to a one-process run. Only `analyze` (and --help, --version) is
// accepted: the other commands have nothing to distribute.
#include <mpi.h>

#include <cstdio>
#include <cstring>

#include "cli/commands.hpp"
#include "cli/rank_distribution.hpp"
#include "mpi/mpi_rank_distribution.hpp"

namespace {

bool is_distributable(int argc, char** argv) {
  if (argc < 2) return false;
  const char* word = argv[1];
  return std::strcmp(word, "analyze") == 0 || std::strcmp(word, "--help") == 0 ||
         std::strcmp(word, "-h") == 0 || std::strcmp(word, "--version") == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int threading = 0;
  // Only the main thread calls MPI; the worker threads that read traces never do.
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &threading);
  traceprism::mpi::MpiRankDistribution distribution(MPI_COMM_WORLD);
  if (!is_distributable(argc, argv)) {
    if (distribution.writes_outputs())
      std::fprintf(stderr,
                   "error: traceprism-mpi runs `analyze` over the rank traces of a job, e.g.\n"
                   "  mpirun -np 4 traceprism-mpi analyze job_traces/ -o report\n"
                   "The other commands run with the plain traceprism binary.\n");
    MPI_Finalize();
    return traceprism::cli::kExitUsage;
  }
  traceprism::cli::install_rank_distribution(&distribution);
  const int code = traceprism::cli::run_command_line(argc, argv, /*may_restart=*/false);
  if (code != traceprism::cli::kExitOk && !distribution.finished()) {
    // This process stopped before the others got their summaries to process 0 (or before
    // process 0 listened): they would wait for it forever.
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  MPI_Finalize();
  return code;
}
