#!/usr/bin/env bash
# Usage: bench/serving.sh [RUNS=3]
#
# Inference mode on a long graph-replay trace (issue 17: "inference analysis of a 1 GB serving
# trace within the same budget as a training trace of that size"). Generates once, in
# out/bench/ (git-ignored), the 1.1 GB synthetic serving trace with its capture folder and the
# training synth of the same size, then runs `analyze` RUNS times on each of: the serving trace
# with --capture-dir (every graph launch merged), the serving trace in default mode, and the
# training trace. Prints the median wall time and peak RSS of each, one markdown table.
# TRACEPRISM_BIN=path benches that binary; BASE_BIN=path also benches another one, run by run
# interleaved with the first (before/after on a machine whose speed drifts).
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."

runs="${1:-3}"
bin="${TRACEPRISM_BIN:-build/traceprism}"
base="${BASE_BIN:-}"
[ -x "$bin" ] || { echo "serving.sh: $bin not built (run scripts/build.sh)" >&2; exit 1; }
mkdir -p out/bench
serving=out/bench/serving_1100mb.json.gz
captures=out/bench/serving_captures
training=out/bench/synth_1100mb_l24_s1.json.gz
[ -f "$serving" ] || "$bin" synth -o "$serving" --inference --graph-replay --target-mb 1100 \
  --layers 24 --seed 1 --capture-out "$captures" >/dev/null
[ -f "$training" ] || "$bin" synth -o "$training" --target-mb 1100 --layers 24 --seed 1 >/dev/null
cat "$serving" "$training" > /dev/null  # page cache

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Appends "<seconds> <peak KB>" of one analyze run to $tmp/<label>.
measure() {
  local label="$1"
  shift
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" -q -o "$tmp/out" >/dev/null 2>&1
  cat "$tmp/time" >> "$tmp/$label"
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

binaries=("$bin")
[ -n "$base" ] && binaries=("$base" "$bin")
for _ in $(seq "$runs"); do
  for b in "${binaries[@]}"; do
    tag="$(echo "$b" | tr '/' '_')"
    measure "$tag.merge" "$b" analyze "$serving" --capture-dir "$captures"
    measure "$tag.default" "$b" analyze "$serving"
    measure "$tag.training" "$b" analyze "$training"
  done
done

echo "| binary | serving, --capture-dir (s) | serving, default mode (s) | training (s) | merge / training | peak RSS merge / training (MB) |"
echo "|---|---:|---:|---:|---:|---:|"
for b in "${binaries[@]}"; do
  tag="$(echo "$b" | tr '/' '_')"
  m="$(cut -d' ' -f1 < "$tmp/$tag.merge" | median)"
  d="$(cut -d' ' -f1 < "$tmp/$tag.default" | median)"
  t="$(cut -d' ' -f1 < "$tmp/$tag.training" | median)"
  mr="$(cut -d' ' -f2 < "$tmp/$tag.merge" | median)"
  tr_="$(cut -d' ' -f2 < "$tmp/$tag.training" | median)"
  awk -v b="$b" -v m="$m" -v d="$d" -v t="$t" -v mr="$mr" -v tr="$tr_" 'BEGIN {
    printf "| %s | %.2f | %.2f | %.2f | %.2f | %d / %d |\n", b, m, d, t, m / t, mr / 1024, tr / 1024
  }'
done
