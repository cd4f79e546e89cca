#!/usr/bin/env bash
# Usage: bench/inspect_bench.sh [--json-plain] [--analyze|--perf-report] [SIZE_MB=1100] [RUNS=3]
#
# Measures `traceprism inspect` (or, with --analyze, the full `traceprism analyze` with the
# default plugins; with --perf-report, `traceprism perf-report`) on a large synthetic trace
# against the cost of just decompressing it (`gunzip -c > /dev/null`), and its peak memory
# against the uncompressed size.
#
#   SIZE_MB        uncompressed size of the synthetic trace, passed to `synth --target-mb`
#   RUNS           runs of each command; the table reports medians
#   --json-plain   also bench the uncompressed .json file (baseline: `cat > /dev/null`)
#   TRACEPRISM_BIN=path (environment) benches that binary instead of building build/traceprism
#   TRACEPRISM_BENCH_ARGS="..." (environment) extra options for analyze / perf-report / inspect,
#                  e.g. "--disable kernel-fusion"
#
# The trace is generated once and cached in out/bench/ (git-ignored), together with its
# uncompressed size. Each run is timed with GNU time (`/usr/bin/time -v`). The file is read
# once before timing, so every run starts with it in the page cache.
# Results worth keeping go to docs/performance.md (see bench/README.md).
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }

json_plain=0
command_name=inspect
read -r -a extra_args <<< "${TRACEPRISM_BENCH_ARGS:-}"
positional=()
for arg in "$@"; do
  case "$arg" in
    --json-plain) json_plain=1 ;;
    --analyze) command_name=analyze ;;
    --perf-report) command_name=perf-report ;;
    -h|--help) usage ;;
    -*) echo "inspect_bench: unknown option $arg" >&2; usage ;;
    *) positional+=("$arg") ;;
  esac
done
[ ${#positional[@]} -le 2 ] || usage
size_mb="${positional[0]:-1100}"
runs="${positional[1]:-3}"
[[ "$size_mb" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "inspect_bench: bad SIZE_MB '$size_mb'" >&2; exit 64; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "inspect_bench: bad RUNS '$runs'" >&2; exit 64; }

gnu_time=/usr/bin/time
if ! "$gnu_time" -v true >/dev/null 2>&1; then
  echo "inspect_bench: GNU time not found at $gnu_time (run scripts/setup.sh: package 'time')" >&2
  exit 1
fi

if [ -n "${TRACEPRISM_BIN:-}" ]; then
  bin="$(realpath "$TRACEPRISM_BIN")"
else
  # Build (incremental) so that the numbers are for the current sources.
  if [ -f build/build.ninja ]; then
    cmake --build build -j "$(nproc)" >/dev/null
  else
    ./scripts/build.sh >/dev/null
  fi
  bin="$PWD/build/traceprism"
fi
[ -x "$bin" ] || { echo "inspect_bench: $bin not built" >&2; exit 1; }

bench_dir=out/bench
mkdir -p "$bench_dir"
gz="$bench_dir/synth_${size_mb}mb_l24_s1.json.gz"
size_file="$gz.uncompressed_bytes"

if [ ! -s "$gz" ]; then
  echo "inspect_bench: generating $gz (--target-mb $size_mb --layers 24 --seed 1)" >&2
  start=$(date +%s)
  # synth writes atomically (temporary file + rename), so the cache never holds a partial trace.
  "$bin" synth -o "$gz" --target-mb "$size_mb" --layers 24 --seed 1 >&2
  rm -f "$size_file"
  echo "inspect_bench: generated in $(( $(date +%s) - start )) s" >&2
fi
# `gzip -l` reports the size modulo 4 GiB, so count the bytes once and cache the number.
if [ ! -s "$size_file" ] || [ "$size_file" -ot "$gz" ]; then
  echo "inspect_bench: measuring the uncompressed size of $gz" >&2
  zcat "$gz" | wc -c | tr -d ' ' > "$size_file"
fi
uncompressed_bytes=$(cat "$size_file")

plain=""
if [ "$json_plain" -eq 1 ]; then
  plain="${gz%.gz}"
  if [ ! -s "$plain" ] || [ "$plain" -ot "$gz" ]; then
    echo "inspect_bench: writing the uncompressed copy $plain" >&2
    zcat "$gz" > "$plain.tmp"
    mv -f "$plain.tmp" "$plain"
  fi
fi

timing=$(mktemp)
trap 'rm -f "$timing"' EXIT

# measure CMD...: runs CMD under GNU time with stdout to /dev/null; prints "WALL_S RSS_KB USER_S".
measure() {
  if ! "$gnu_time" -v -o "$timing" "$@" > /dev/null; then
    echo "inspect_bench: command failed: $*" >&2
    sed -n '1,3p' "$timing" >&2
    exit 1
  fi
  awk -F': ' '
    /Elapsed \(wall clock\) time/ {
      n = split($NF, p, ":")
      wall = (n == 3) ? p[1] * 3600 + p[2] * 60 + p[3] : p[1] * 60 + p[2]
    }
    /Maximum resident set size/ { rss = $NF }
    /User time \(seconds\)/ { user = $NF }
    END { printf "%.3f %d %.2f\n", wall, rss, user }' "$timing"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bench LABEL BASELINE_NAME FILE BASELINE_CMD...: prints one markdown table row.
bench() {
  local label=$1 base_name=$2 file=$3; shift 3
  local base_walls=() walls=() rsss=() users=() i w r u m
  cat "$file" > /dev/null  # warm the page cache
  for ((i = 1; i <= runs; i++)); do
    m=$(measure "$@")
    base_walls+=("${m%% *}")
    case "$command_name" in
      analyze) m=$(measure "$bin" analyze -q "$file" -o "$bench_dir/analysis" "${extra_args[@]}") ;;
      perf-report) m=$(measure "$bin" perf-report -q "$file" -o "$bench_dir/perf_report" "${extra_args[@]}") ;;
      *) m=$(measure "$bin" inspect "$file" "${extra_args[@]}") ;;
    esac
    read -r w r u <<< "$m"
    walls+=("$w"); rsss+=("$r"); users+=("$u")
    echo "inspect_bench: $label run $i/$runs: $base_name ${base_walls[-1]} s, $command_name $w s (user $u s), peak RSS $((r * 1024 / 1000000)) MB" >&2
  done
  local base_med wall_med rss_med user_med
  base_med=$(printf '%s\n' "${base_walls[@]}" | median)
  wall_med=$(printf '%s\n' "${walls[@]}" | median)
  rss_med=$(printf '%s\n' "${rsss[@]}" | median)
  user_med=$(printf '%s\n' "${users[@]}" | median)
  awk -v label="$label" -v base_name="$base_name" -v b="$base_med" -v w="$wall_med" \
      -v rss_kb="$rss_med" -v bytes="$uncompressed_bytes" -v user="$user_med" 'BEGIN {
    ratio = (b > 0) ? sprintf("%.2f", w / b) : "n/a"
    printf "| %s | %.0f | %s %.2f s | %.2f s | %s | %.0f | %.3f | %.2f s |\n",
      label, bytes / 1e6, base_name, b, w, ratio, rss_kb * 1024 / 1e6, rss_kb * 1024 / bytes, user
  }'
}

rows=$(bench "$(basename "$gz")" "gunzip -c" "$gz" gunzip -c "$gz")
if [ -n "$plain" ]; then
  rows+=$'\n'$(bench "$(basename "$plain")" "cat" "$plain" cat "$plain")
fi

build_type=unknown
# The build folder of the binary (build/, or the one TRACEPRISM_BIN lies in) names its type.
cache="$(dirname "$bin")/CMakeCache.txt"
if [ -f "$cache" ]; then
  build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$cache")
fi
mem_gib=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
cpu_model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)

echo
echo "### traceprism $command_name benchmark"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo none), $("$bin" --version 2>/dev/null | head -n 1 || echo "traceprism ?"), build type ${build_type:-unknown}, binary $bin"
echo "- machine: $(nproc) CPUs (${cpu_model:-unknown model}), ${mem_gib} GiB memory, $(uname -sr)"
echo "- input: synth --target-mb $size_mb --layers 24 --seed 1, $uncompressed_bytes bytes uncompressed, $(stat -c %s "$gz") bytes gzip"
echo "- medians of $runs runs, warm page cache; MB = 10^6 bytes"
echo
echo "| input | uncompressed MB | baseline wall | $command_name wall | ratio | $command_name peak RSS MB | RSS / uncompressed | $command_name user CPU |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
echo "$rows"
