#!/usr/bin/env bash
# Usage: scripts/build.sh [BUILD_TYPE]
# Installs the dependencies (scripts/setup.sh), configures build/ once (CMake + Ninja, warnings
# as errors) and builds it. BUILD_TYPE defaults to RelWithDebInfo; giving a different one
# reconfigures the existing build/ directory. Works from any directory.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

requested_type="${1:-}"
build_type="${requested_type:-RelWithDebInfo}"
build_dir=build
jobs="$(nproc)"

./scripts/setup.sh

cache="$build_dir/CMakeCache.txt"
if [ -f "$cache" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; then
  echo "build.sh: $build_dir/ was configured with another generator; remove it and rerun" >&2
  exit 1
fi

if [ ! -f "$cache" ] || [ ! -f "$build_dir/build.ninja" ]; then
  echo "build.sh: configuring $build_dir/ ($build_type)"
  cmake -S . -B "$build_dir" -G Ninja \
    -DCMAKE_BUILD_TYPE="$build_type" \
    -DTRACEPRISM_WERROR=ON
elif [ -n "$requested_type" ] &&
     ! grep -q "^CMAKE_BUILD_TYPE:[A-Z]*=${requested_type}\$" "$cache"; then
  echo "build.sh: reconfiguring $build_dir/ as $build_type"
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type"
fi

echo "build.sh: building with $jobs jobs"
cmake --build "$build_dir" -j "$jobs"
echo "build.sh: done ($build_dir/traceprism)"
