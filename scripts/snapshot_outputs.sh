#!/usr/bin/env bash
# Usage: scripts/snapshot_outputs.sh BINARY OUTDIR [TRACES_DIR]
# Runs `analyze` and `perf-report` of BINARY on every trace under TRACES_DIR (default
# ../shared/traces) and on a synthetic trace, one folder per trace under OUTDIR, with each
# command's exit status and stderr. For refactors that must not change any output: snapshot
# before, snapshot after, then `diff -r BEFORE AFTER` (timings are left out of stderr.txt).
set -euo pipefail

binary="$(realpath "$1")"
out="$2"
traces="${3:-$(dirname "${BASH_SOURCE[0]}")/../../shared/traces}"
mkdir -p "$out"

snapshot() {  # TRACE NAME
  local dir="$out/$2"
  mkdir -p "$dir"
  local rc=0
  "$binary" analyze "$1" -o "$dir/analyze" -q >"$dir/analyze.stdout" 2>"$dir/analyze.stderr" || rc=$?
  echo "$rc" >"$dir/analyze.rc"
  rc=0
  "$binary" perf-report "$1" -o "$dir/perf" -q >"$dir/perf.stdout" 2>"$dir/perf.stderr" || rc=$?
  echo "$rc" >"$dir/perf.rc"
  rc=0
  "$binary" inspect "$1" --json >"$dir/inspect.json" 2>"$dir/inspect.stderr" || rc=$?
  echo "$rc" >"$dir/inspect.rc"
  # Stage timings differ from run to run.
  sed -i -E '/^read [0-9.]+ s/d' "$dir"/*.stderr
}

# Relative, so that the trace path the outputs print is the same in every snapshot.
(cd "$out" && "$binary" synth -o synthetic.json.gz --layers 4 --steps 3 --seed 7 >/dev/null &&
  out=. && snapshot synthetic.json.gz synthetic)
if [ -d "$traces" ]; then
  while IFS= read -r trace; do
    name="$(echo "${trace#"$traces"/}" | tr '/' '_')"
    snapshot "$trace" "$name"
  done < <(find "$traces" \( -name '*.json' -o -name '*.json.gz' \) -size +2k \
             -not -path '*expected*' -not -path '*reference*' -not -path '*golden*' \
             -not -name '*metrics*' -not -name '*priority*' -not -name '*fusion_candidates*' | sort)
else
  echo "snapshot_outputs.sh: $traces is absent; only the synthetic trace was run" >&2
fi
echo "snapshot_outputs.sh: $(find "$out" -mindepth 1 -maxdepth 1 -type d | wc -l) traces in $out"
