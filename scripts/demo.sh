#!/usr/bin/env bash
# Usage: scripts/demo.sh
# Builds traceprism, writes a small synthetic Kineto trace (once) and runs `inspect` and
# `perf-report` on it. Everything goes to out/demo/ (git-ignored).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/build.sh

bin=build/traceprism
demo_dir=out/demo
trace="$demo_dir/sample_trace.json.gz"
report_dir="$demo_dir/perf_report_csvs"

mkdir -p "$demo_dir"
if [ ! -s "$trace" ]; then
  echo "demo: generating $trace"
  # synth writes atomically (temporary file + rename): an interrupted run leaves no partial trace.
  "$bin" synth -o "$trace" --layers 4 --steps 3 --seed 7
else
  echo "demo: reusing $trace (delete it to regenerate)"
fi

echo
echo "== traceprism inspect $trace"
"$bin" inspect "$trace"

echo
echo "== traceprism perf-report $trace -o $report_dir"
"$bin" perf-report "$trace" -o "$report_dir"

analysis_dir="$demo_dir/analysis"
echo
echo "== traceprism analyze $trace -o $analysis_dir"
"$bin" analyze "$trace" -o "$analysis_dir"

echo
echo "== top of $analysis_dir/analysis.md"
sed -n '1,16p' "$analysis_dir/analysis.md"

echo
echo "demo: outputs"
echo "  analysis:    $PWD/$analysis_dir/analysis.md, findings.json, perf_report_csvs/"
echo "  trace:       $PWD/$trace"
echo "  perf report: $PWD/$report_dir/"
for f in "$report_dir"/*; do
  if [ -e "$f" ]; then echo "    $(basename "$f")"; fi
done
