#!/usr/bin/env bash
# Usage: scripts/lint.sh
# The checks that need no build: every C/C++ file formatted as .clang-format says
# (clang-format --dry-run -Werror), and the host/ include graph without back edges or cycles
# (scripts/check_layers.sh). Installs clang-format from Debian when it is missing. Run by .ci/run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

command -v clang-format >/dev/null || ./scripts/setup.sh clang-format

mapfile -t sources < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
if ! clang-format --dry-run -Werror "${sources[@]}"; then
  echo "lint: the files above are not formatted; run: git ls-files '*.c' '*.h' '*.cpp' '*.hpp' | xargs clang-format -i" >&2
  exit 1
fi
echo "lint: ${#sources[@]} files formatted ($(clang-format --version | head -1))"
./scripts/check_layers.sh
