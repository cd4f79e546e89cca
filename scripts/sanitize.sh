#!/usr/bin/env bash
# Usage: scripts/sanitize.sh [FUZZ_SECONDS=60]
# Builds build-sanitize/ with clang, AddressSanitizer + UBSan, libFuzzer's coverage
# instrumentation and warnings as errors, runs every CTest test there, then runs each libFuzzer
# target (trace_reader_fuzzer, trace_model_fuzzer) for FUZZ_SECONDS, seeded from
# tests/fuzz/corpus/ with the dictionary tests/fuzz/kineto.dict. A sanitizer report or a fuzzer
# crash fails the script; the crash's input is kept as build-sanitize/<fuzzer>-crash-<sha1>
# (docs/testing.md: turning it into a regression test). 0 skips the fuzzing.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

fuzz_seconds="${1:-60}"
build_dir=build-sanitize

./scripts/configure_sanitize.sh
cmake --build "$build_dir" -j "$(nproc)"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j "$(nproc)"

if [ "$fuzz_seconds" -gt 0 ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  failed=()
  for fuzzer in trace_reader_fuzzer trace_model_fuzzer; do
    # A scratch corpus: the seeds stay as committed; new inputs are dropped at the end.
    mkdir "$work/$fuzzer"
    cp tests/fuzz/corpus/* "$work/$fuzzer/"
    echo "sanitize.sh: fuzzing $fuzzer for ${fuzz_seconds}s"
    # -entropic=0: clang 14's entropic schedule spends most of a short run updating its feature
    # frequencies (fixed in LLVM 18); without it the model fuzzer runs about 2.5 times as many
    # inputs a minute and reaches more coverage (docs/testing.md).
    if "$build_dir/tests/$fuzzer" -entropic=0 -max_total_time="$fuzz_seconds" -max_len=8192 -timeout=30 \
      -rss_limit_mb=2048 -dict=tests/fuzz/kineto.dict -artifact_prefix="$build_dir/$fuzzer-" \
      -print_final_stats=1 "$work/$fuzzer" >"$work/$fuzzer.log" 2>&1; then
      grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
        "$work/$fuzzer.log" || true
    else
      tail -n 80 "$work/$fuzzer.log"
      failed+=("$fuzzer")
    fi
  done
  if [ "${#failed[@]}" -gt 0 ]; then
    echo "sanitize.sh: FAILED: ${failed[*]} found a bug; the input is kept as $build_dir/<fuzzer>-crash-* (or timeout-*, oom-*, leak-*)." >&2
    echo "  Replay it: $build_dir/tests/<fuzzer> FILE; then copy it into tests/fuzz/regressions/ under a descriptive name (docs/testing.md)." >&2
    exit 1
  fi
fi
echo "sanitize.sh: PASSED (ASan/UBSan tests and ${fuzz_seconds}s of fuzzing per fuzzer)"
