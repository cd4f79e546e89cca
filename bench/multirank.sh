#!/usr/bin/env bash
# Usage: bench/multirank.sh [SIZE_MB=50] [RANKS="4 16"] [RUNS=1]
#
# Multi-rank analysis (issue 20, spec multi-rank.md §12 "Performance"): `traceprism analyze` over
# N synthetic rank traces of SIZE_MB of JSON each (`synth --ranks N --target-mb SIZE_MB`, cached
# in out/bench/, git-ignored), one rank at a time (--rank-jobs 1), against T1 = `analyze` of one
# of those rank files alone. The spec's targets on the 2-core machine: wall(N) <= 1.10 x N x T1
# + 1 s, and peak RSS(16) <= 1.1 x peak RSS(4) + 32 MB (memory flat in N).
# TRACEPRISM_BIN=path benches that binary instead of building build-rel/traceprism.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."

size_mb="${1:-50}"
ranks_list="${2:-4 16}"
runs="${3:-1}"
bin="${TRACEPRISM_BIN:-}"
if [ -z "$bin" ]; then
  cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACEPRISM_BUILD_TESTS=OFF >/dev/null
  ninja -C build-rel >/dev/null
  bin=build-rel/traceprism
fi
mkdir -p out/bench
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Prints "<seconds> <peak KB>" of one command.
measure() { /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>&1; cat "$tmp/time"; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "| ranks | JSON per rank (MB) | T1 (s) | analyze N ranks (s) | 1.10 x N x T1 + 1 (s) | peak RSS (MB) |"
echo "|---:|---:|---:|---:|---:|---:|"
for n in $ranks_list; do
  job="out/bench/multirank_${n}x${size_mb}mb"
  [ -d "$job" ] || "$bin" synth --ranks "$n" --target-mb "$size_mb" --layers 24 --seed 7 \
    --straggler 1:1.2 -o "$job" >/dev/null
  cat "$job"/*.json.gz > /dev/null  # page cache
  : > "$tmp/one"; : > "$tmp/all"; : > "$tmp/rss"
  for _ in $(seq "$runs"); do
    read -r s1 _m1 < <(measure "$bin" analyze -q "$job/rank0.json.gz" -o "$tmp/one_out")
    read -r sn mn < <(measure "$bin" analyze -q "$job" --rank-jobs 1 -o "$tmp/all_out")
    echo "$s1" >> "$tmp/one"; echo "$sn" >> "$tmp/all"; echo "$mn" >> "$tmp/rss"
  done
  t1="$(median < "$tmp/one")"; tn="$(median < "$tmp/all")"; rss="$(median < "$tmp/rss")"
  printf '| %d | %s | %.2f | %.2f | %.2f | %d |\n' "$n" "$size_mb" "$t1" "$tn" \
    "$(awk -v n="$n" -v t="$t1" 'BEGIN {print 1.10 * n * t + 1}')" $((rss / 1024))
done
