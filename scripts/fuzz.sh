#!/usr/bin/env bash
# Usage: scripts/fuzz.sh [MINUTES=30] [FUZZER...]
# A longer local fuzzing campaign than CI's minute per fuzzer (docs/testing.md). Builds the
# libFuzzer targets in build-sanitize/ (the build of scripts/sanitize.sh: clang, ASan + UBSan,
# coverage instrumentation) when needed, then runs each FUZZER (default: trace_reader_fuzzer and
# trace_model_fuzzer), one after the other, for MINUTES on all cores (-jobs and -workers =
# nproc). Each fuzzer keeps its corpus in build-sanitize/fuzz-corpus/<fuzzer>/ from one campaign
# to the next, seeded from tests/fuzz/corpus/; crash inputs land in build-sanitize/fuzz-artifacts/
# and the jobs' logs in build-sanitize/fuzz-logs/<fuzzer>/. Fails when any crash was found, and
# says how to turn it into a regression test. FUZZ_FLAGS adds libFuzzer flags (for example
# FUZZ_FLAGS=-entropic=1 to try the entropic schedule, off by default as in sanitize.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

minutes="${1:-30}"
shift || true
if [ "$#" -gt 0 ]; then
  fuzzers=("$@")
else
  fuzzers=(trace_reader_fuzzer trace_model_fuzzer)
fi
case "$minutes" in
  '' | *[!0-9]*) echo "fuzz.sh: MINUTES must be a whole number, got '$minutes'" >&2; exit 2 ;;
esac
build_dir=build-sanitize
root="$(pwd)"
cores="$(nproc)"

# The build of scripts/sanitize.sh, so that the two share one build directory.
./scripts/configure_sanitize.sh
cmake --build "$build_dir" -j "$cores" --target "${fuzzers[@]}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
artifacts="$root/$build_dir/fuzz-artifacts"
mkdir -p "$artifacts"
started="$(mktemp)"  # crash inputs newer than this one are this campaign's
trap 'rm -f "$started"' EXIT
echo "fuzz.sh: ${#fuzzers[@]} fuzzer(s), ${minutes} min each on $cores workers ($((minutes * ${#fuzzers[@]})) min in all)"
for fuzzer in "${fuzzers[@]}"; do
  corpus="$root/$build_dir/fuzz-corpus/$fuzzer"
  logs="$root/$build_dir/fuzz-logs/$fuzzer"
  mkdir -p "$corpus" "$logs"
  echo "fuzz.sh: $fuzzer: corpus $corpus ($(find "$corpus" -type f | wc -l) inputs), logs $logs/"
  # New inputs go to the first folder; the committed seeds are read, never written. Each job
  # runs for the whole time unless it crashes (its log then says why); the jobs share the
  # corpus folder and reload it as it grows.
  # shellcheck disable=SC2086  # FUZZ_FLAGS: one flag per word
  (cd "$logs" && "$root/$build_dir/tests/$fuzzer" -jobs="$cores" -workers="$cores" -entropic=0 \
    -max_total_time=$((minutes * 60)) -max_len=8192 -timeout=30 -rss_limit_mb=2048 \
    -dict="$root/tests/fuzz/kineto.dict" -artifact_prefix="$artifacts/$fuzzer-" \
    -print_final_stats=1 ${FUZZ_FLAGS:-} "$corpus" "$root/tests/fuzz/corpus") || true
  grep -h -E '^#[0-9]+[[:space:]]+DONE' "$logs"/fuzz-*.log 2>/dev/null | tail -n "$cores" || true
done

mapfile -t found < <(find "$artifacts" -type f \( -name '*crash-*' -o -name '*timeout-*' -o -name '*oom-*' -o -name '*leak-*' \) -newer "$started" | sort)
if [ "${#found[@]}" -eq 0 ]; then
  echo "fuzz.sh: no crash in $((minutes * ${#fuzzers[@]})) min of fuzzing; corpus kept in $build_dir/fuzz-corpus/"
  exit 0
fi
echo "fuzz.sh: ${#found[@]} input(s) made a fuzzer fail:" >&2
printf '  %s\n' "${found[@]}" >&2
cat >&2 <<EOF
Turn each into a regression test (docs/testing.md):
  1. Replay it (the stack trace names the bug): $build_dir/tests/<fuzzer> FILE
     (optionally shrink it first: $build_dir/tests/<fuzzer> -minimize_crash=1 -runs=20000 FILE)
  2. Copy it into tests/fuzz/regressions/ under a name that says what it exercises, and add a
     line about it to tests/fuzz/regressions/README.md.
  3. Fix the bug; unit_tests (FuzzReplay) then runs the input in every build:
     ctest --test-dir build -R FuzzReplay
EOF
exit 1
