#!/usr/bin/env bash
# Usage: scripts/setup.sh [--allow-removals] [PACKAGE...]
# Installs the Debian 12 packages traceprism needs: without PACKAGE, every build and test
# dependency; with PACKAGEs, those only (the lint, tidy and sanitizer scripts' tools).
# Idempotent: installs only what is missing. Runs apt-get directly as root, through sudo
# otherwise.
#
# It never removes a package. apt first simulates the install; when that would remove anything
# (libboost1.81-dev conflicts with Boost 1.74, which python3-scipy, python3-matplotlib and numba
# may have pulled in), it stops and says what and why. --allow-removals (or
# TRACEPRISM_SETUP_ALLOW_REMOVALS=1, for scripts that call this one) accepts the removal.
set -euo pipefail

allow_removals="${TRACEPRISM_SETUP_ALLOW_REMOVALS:-0}"
requested=()
for arg in "$@"; do
  case "$arg" in
    --allow-removals) allow_removals=1 ;;
    -h | --help)
      sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "setup: unknown option '$arg' (see scripts/setup.sh --help)" >&2
      exit 64
      ;;
    *) requested+=("$arg") ;;
  esac
done

packages=("${requested[@]}")
if [ ${#packages[@]} -eq 0 ]; then
  packages=(
    build-essential cmake ninja-build pkg-config
    libboost1.81-dev libboost-json1.81-dev
    libtbb-dev libzstd-dev zlib1g-dev libisal-dev
    libspdlog-dev libgtest-dev libcli11-dev
    zstd gzip time
    openmpi-bin libopenmpi-dev
  )
fi

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all dependencies present"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq

# apt prints "Remv NAME [VERSION]" for every package a simulated install would remove.
mapfile -t removals < <(apt-get install -s --no-install-recommends "${missing[@]}" 2>/dev/null |
  awk '$1 == "Remv" { print $2 }')
if [ ${#removals[@]} -gt 0 ] && [ "$allow_removals" != 1 ]; then
  cat >&2 <<EOF
setup: installing ${missing[*]}
would REMOVE these packages from this machine: ${removals[*]}
(they conflict with what traceprism needs, typically Boost 1.74 against libboost1.81-dev).
Nothing was installed or removed. Choose one:
  - build and run traceprism in a container (docker run -it debian:12) or another machine;
  - accept the removal: scripts/setup.sh --allow-removals
    (or TRACEPRISM_SETUP_ALLOW_REMOVALS=1 for build.sh, test.sh and the other scripts).
EOF
  exit 1
fi

echo "setup: installing ${missing[*]}"
if [ ${#removals[@]} -gt 0 ]; then
  echo "setup: removing ${removals[*]} as --allow-removals accepts"
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends --no-remove "${missing[@]}"
fi
