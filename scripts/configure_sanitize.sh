#!/usr/bin/env bash
# Usage: scripts/configure_sanitize.sh
# Installs clang and its sanitizer/fuzzer runtimes (with the project's packages) and configures
# build-sanitize/: clang, AddressSanitizer + UBSan, libFuzzer's coverage instrumentation,
# warnings as errors. Shared by scripts/sanitize.sh and scripts/fuzz.sh, which then build in it.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=build-sanitize

./scripts/setup.sh
# clang and its sanitizer/fuzzer runtimes are needed only here.
./scripts/setup.sh clang libclang-rt-14-dev

# traceprism-mpi is left out: OpenMPI's own allocations would read as leaks, and its code is
# the same merge the sanitized tests run in one process.
# Every module loaded into the instrumented host must use clang's ASan runtime too (the C test
# plugins included), so a build directory configured with another C compiler is redone.
if [ -f "$build_dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_C_COMPILER:[A-Z]*=.*clang' "$build_dir/CMakeCache.txt"; then
  rm -rf "$build_dir"
fi
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DTRACEPRISM_SANITIZE=ON -DTRACEPRISM_FUZZ=ON -DTRACEPRISM_WERROR=ON -DTRACEPRISM_WITH_MPI=OFF
fi
