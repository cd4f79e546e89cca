#!/usr/bin/env bash
# Usage: identical_reports_test.sh TRACEPRISM TRACEPRISM_MPI
# multi-rank.md §12: `traceprism-mpi analyze` with 1, 2 and 4 processes (on loopback, §3.2's
# flags) writes the same bytes as a one-process `traceprism analyze` of the same job, also when a
# rank trace is unreadable (the process that owns it sends the sentence, not a summary). Exits
# 77 (skipped) with a message when traceprism-mpi was not built or mpirun is missing.
set -euo pipefail

traceprism="$1"
traceprism_mpi="${2:-}"
if [ -z "$traceprism_mpi" ] || [ ! -x "$traceprism_mpi" ]; then
  echo "skipped: traceprism-mpi was not built (CMake found no MPI; Debian: libopenmpi-dev)"
  exit 77
fi
if ! command -v mpirun >/dev/null; then
  echo "skipped: mpirun not found (Debian: openmpi-bin)"
  exit 77
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# CI runs as root; OpenMPI refuses that unless told. Loopback TCP only, no shared memory (small
# /dev/shm in containers), more processes than cores allowed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi_flags=(--oversubscribe --bind-to none --mca btl self,tcp --mca btl_tcp_if_include lo
  --mca oob_tcp_if_include lo)

"$traceprism" synth -o "$work/job" --ranks 8 --layers 2 --steps 3 --seed 7 \
  --straggler 5:1.25 >/dev/null

compare() {  # compare LABEL DIR_A DIR_B
  for file in analysis.md findings.json multi_rank_csvs/ranks.csv; do
    if ! cmp -s "$2/$file" "$3/$file"; then
      echo "FAILED: $1: $file differs from the one-process run" >&2
      diff "$2/$file" "$3/$file" | head -20 >&2 || true
      exit 1
    fi
  done
}

check_job() {  # check_job LABEL
  "$traceprism" analyze -q "$work/job" -o "$work/local"
  for np in 1 2 4; do
    rm -rf "$work/mpi$np"
    mpirun "${mpi_flags[@]}" -np "$np" "$traceprism_mpi" analyze -q "$work/job" -o "$work/mpi$np"
    compare "$1, $np process(es)" "$work/local" "$work/mpi$np"
  done
  rm -rf "$work/local"
  echo "$1: traceprism-mpi -np 1, 2, 4 wrote the one-process report"
}

check_job "8 ranks, rank 5 slower"
grep -q "Rank 5 arrives last" "$work/mpi4/analysis.md" || { echo "FAILED: no straggler card" >&2; exit 1; }

# An unreadable rank is excluded with its sentence, whichever process read it.
head -c 2000 "$work/job/rank3.json.gz" > "$work/cut" && mv "$work/cut" "$work/job/rank3.json.gz"
check_job "rank 3 truncated"
grep -q "rank3.json.gz: .*; excluded." "$work/mpi4/analysis.md" ||
  { echo "FAILED: the truncated rank is not named" >&2; exit 1; }

# Commands other than analyze are refused with a usage error.
if mpirun "${mpi_flags[@]}" -np 1 "$traceprism_mpi" synth -o "$work/x" 2>"$work/err"; then
  echo "FAILED: traceprism-mpi ran synth" >&2
  exit 1
fi
grep -q "runs \`analyze\`" "$work/err" || { echo "FAILED: no usage sentence" >&2; exit 1; }
echo "PASSED"
