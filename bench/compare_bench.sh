#!/usr/bin/env bash
# Usage: bench/compare_bench.sh [SIZE_MB=1100] [RUNS=3]
#
# Measures `traceprism compare TRACE1 TRACE2` against `analyze TRACE1` plus `analyze TRACE2`
# (issue 16's target: compare within 2.5x of analysing both alone) and reports peak memory.
# Trace 1 is `synth --seed 2 --inject d2d-copy`, trace 2 `synth --seed 1`, both SIZE_MB of JSON
# with 24 layers, cached in out/bench/ (git-ignored). TRACEPRISM_BIN=path benches that binary
# instead of building build-rel/traceprism. The table reports medians of RUNS runs.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."

size_mb="${1:-1100}"
runs="${2:-3}"
bin="${TRACEPRISM_BIN:-}"
if [ -z "$bin" ]; then
  cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACEPRISM_BUILD_TESTS=OFF >/dev/null
  ninja -C build-rel >/dev/null
  bin=build-rel/traceprism
fi
mkdir -p out/bench
one="out/bench/synth_${size_mb}mb_l24_s2_d2d.json.gz"
two="out/bench/synth_${size_mb}mb_l24_s1.json.gz"
[ -f "$one" ] || "$bin" synth --target-mb "$size_mb" --layers 24 --seed 2 --inject d2d-copy -o "$one"
[ -f "$two" ] || "$bin" synth --target-mb "$size_mb" --layers 24 --seed 1 -o "$two"
cat "$one" "$two" > /dev/null  # page cache

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Prints "<seconds> <peak KB>" of one command.
measure() { /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>&1; cat "$tmp/time"; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

: > "$tmp/alone"; : > "$tmp/compare"; : > "$tmp/rss_alone"; : > "$tmp/rss_compare"
for _ in $(seq "$runs"); do
  read -r s1 m1 < <(measure "$bin" analyze -q "$one" -o "$tmp/a1")
  read -r s2 m2 < <(measure "$bin" analyze -q "$two" -o "$tmp/a2")
  read -r sc mc < <(measure "$bin" compare -q "$one" "$two" -o "$tmp/c")
  awk -v a="$s1" -v b="$s2" 'BEGIN {print a + b}' >> "$tmp/alone"
  echo "$sc" >> "$tmp/compare"
  echo $(( m1 > m2 ? m1 : m2 )) >> "$tmp/rss_alone"
  echo "$mc" >> "$tmp/rss_compare"
done
alone="$(median < "$tmp/alone")"; cmp="$(median < "$tmp/compare")"
rss_alone="$(median < "$tmp/rss_alone")"; rss_cmp="$(median < "$tmp/rss_compare")"
echo "| traces | analyze both (s) | compare (s) | ratio | peak RSS one analyze (MB) | peak RSS compare (MB) |"
echo "|---|---:|---:|---:|---:|---:|"
printf '| 2 x %s MB JSON | %.2f | %.2f | %.2fx | %d | %d |\n' "$size_mb" "$alone" "$cmp" \
  "$(awk -v a="$cmp" -v b="$alone" 'BEGIN {print a / b}')" $((rss_alone / 1024)) $((rss_cmp / 1024))
