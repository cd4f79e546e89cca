#!/usr/bin/env bash
# Usage: scripts/test.sh [CTEST_ARGS...]
# Installs the dependencies, configures and builds build/ (through scripts/build.sh), then runs
# every CTest test. Extra arguments go to ctest (for example: -R Ingest, -V).
# Tests that need the reference traces in ../shared/traces skip themselves when it is absent.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/build.sh

jobs="$(nproc)"
rc=0
# --no-tests=error: a run that finds no test at all is a failure, not a pass.
ctest --test-dir build --output-on-failure --no-tests=error -j "$jobs" "$@" || rc=$?

if [ "$rc" -eq 0 ]; then
  echo "test.sh: PASSED (all tests passed)"
else
  echo "test.sh: FAILED (ctest exit status $rc)" >&2
fi
exit "$rc"
