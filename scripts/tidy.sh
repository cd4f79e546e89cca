#!/usr/bin/env bash
# Usage: scripts/tidy.sh [BUILD_DIR=build] [FILES...]
# Runs clang-tidy (.clang-tidy: bugprone, performance, naming) on the host and plugin sources,
# or on FILES, with the compile commands of BUILD_DIR (configured by scripts/build.sh).
# Installs clang-tidy from Debian when it is missing. Any diagnostic fails the script.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir="${1:-build}"
shift || true
command -v clang-tidy >/dev/null || ./scripts/setup.sh clang-tidy
[ -f "$build_dir/compile_commands.json" ] || { echo "tidy: $build_dir/compile_commands.json is missing; run scripts/build.sh first" >&2; exit 1; }

if [ "$#" -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'host/*.cpp' 'plugins/*.cpp')
fi
# One clang-tidy per core; -quiet keeps the output to the diagnostics.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -quiet -p "$build_dir" >"$log" 2>/dev/null ||
  status=$?
if [ "$status" -ne 0 ] || grep -qE '(error|warning):' "$log"; then
  cat "$log" >&2
  echo "tidy: clang-tidy found problems in ${#files[@]} files (above; exit status $status)" >&2
  exit 1
fi
echo "tidy: ${#files[@]} files clean ($(clang-tidy --version | grep -o 'version [0-9.]*'))"
