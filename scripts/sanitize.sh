#!/usr/bin/env bash
# Usage: scripts/sanitize.sh [FUZZ_SECONDS=60]
# Builds build-sanitize/ with clang, AddressSanitizer + UBSan and warnings as errors, runs every
# CTest test there, then fuzzes the trace reader (libFuzzer) for FUZZ_SECONDS, seeded from
# tests/fuzz/corpus/. A sanitizer report or a fuzzer crash fails the script.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

fuzz_seconds="${1:-60}"
build_dir=build-sanitize

./scripts/setup.sh
# clang and its sanitizer/fuzzer runtimes are needed only here.
./scripts/setup.sh clang libclang-rt-14-dev

# Every module loaded into the instrumented host must use clang's ASan runtime too (the C test
# plugins included), so a build directory configured with another C compiler is redone.
if [ -f "$build_dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_C_COMPILER:[A-Z]*=.*clang' "$build_dir/CMakeCache.txt"; then
  rm -rf "$build_dir"
fi
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DTRACEPRISM_SANITIZE=ON -DTRACEPRISM_FUZZ=ON -DTRACEPRISM_WERROR=ON
fi
cmake --build "$build_dir" -j "$(nproc)"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j "$(nproc)"

if [ "$fuzz_seconds" -gt 0 ]; then
  corpus="$(mktemp -d)"
  trap 'rm -rf "$corpus"' EXIT
  cp tests/fuzz/corpus/* "$corpus/"
  # Crash reproducers (crash-*) land in $build_dir so they are easy to find.
  (cd "$build_dir" && ./tests/trace_reader_fuzzer -max_total_time="$fuzz_seconds" -max_len=8192 \
    -rss_limit_mb=2048 -print_final_stats=1 "$corpus" 2>&1 | tail -n 12)  # pipefail keeps its status
fi
echo "sanitize.sh: PASSED (ASan/UBSan tests and ${fuzz_seconds}s of fuzzing)"
