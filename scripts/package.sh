#!/usr/bin/env bash
# Usage: scripts/package.sh [--check] [--reuse-build DIR]
# Builds the Debian packages with CPack (cmake/Packaging.cmake, docs/packaging.md): a Release
# build of the binary and the default plugins, no tests, in build-package/ (or
# $TRACEPRISM_PACKAGE_BUILD_DIR), then writes
#   build/traceprism_<version>_<arch>.deb   the binary, default plugins, platform files and man
#                                           page; Depends: runtime libraries only (dpkg-shlibdeps)
#   build/traceprism-dev_<version>_all.deb  the plugin SDK (headers, CMake package)
# leaving the rest of build/ alone. <version> is project()'s VERSION in CMakeLists.txt.
# --check then runs scripts/package_test.sh on them. --reuse-build DIR packages the build
# already in DIR (its build type and flags kept; CPack strips the files) instead of a clean
# Release build: .ci/run does so with the build the tests ran on, which saves a second full
# compile. Installs the build dependencies and dpkg-dev first (scripts/setup.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

check=0
reuse_build=""
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --reuse-build)
      if [ $# -lt 2 ]; then
        echo "package: --reuse-build needs a build folder (see scripts/package.sh --help)" >&2
        exit 64
      fi
      reuse_build="$2"
      shift
      ;;
    -h | --help)
      sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "package: unknown argument '$1' (see scripts/package.sh --help)" >&2
      exit 64
      ;;
  esac
  shift
done

build_dir="${reuse_build:-${TRACEPRISM_PACKAGE_BUILD_DIR:-build-package}}"
out_dir=build
jobs="$(nproc)"
version="$(sed -n 's/^project(traceprism VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)"
if [ -z "$version" ]; then
  echo "package: no 'project(traceprism VERSION x.y.z' line in CMakeLists.txt" >&2
  exit 1
fi

./scripts/setup.sh
./scripts/setup.sh dpkg-dev file  # dpkg-shlibdeps; CPack finds the ELF files with file(1)
arch="$(dpkg --print-architecture)"

start=$SECONDS
if [ -n "$reuse_build" ]; then
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    echo "package: --reuse-build $build_dir: no CMakeCache.txt there (build it first)" >&2
    exit 1
  fi
  echo "package: reusing $build_dir/ ($(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt"), TRACEPRISM_PACKAGE=ON)"
  cmake -S . -B "$build_dir" -DCMAKE_INSTALL_PREFIX=/usr -DTRACEPRISM_BUILD_PLUGINS=ON \
    -DTRACEPRISM_PACKAGE=ON >/dev/null
else
  # Release at -O2, as Debian builds its packages: quicker to compile than CMake's -O3, and
  # without GCC 12's -O3-only -Wrestrict false positives in std::string.
  echo "package: configuring $build_dir/ (Release -O2, plugins, no tests, TRACEPRISM_PACKAGE=ON)"
  cmake -S . -B "$build_dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DCMAKE_INSTALL_PREFIX=/usr \
    -DTRACEPRISM_BUILD_TESTS=OFF \
    -DTRACEPRISM_BUILD_PLUGINS=ON \
    -DTRACEPRISM_BUILD_BENCH=OFF \
    -DTRACEPRISM_SANITIZE=OFF \
    -DTRACEPRISM_FUZZ=OFF \
    -DTRACEPRISM_PACKAGE=ON >/dev/null
fi

echo "package: building with $jobs jobs"
cmake --build "$build_dir" -j "$jobs"

package_dir="$build_dir/packages"
rm -rf "$package_dir"
echo "package: cpack -G DEB"
cpack --config "$build_dir/CPackConfig.cmake" -B "$package_dir" >/dev/null

main_deb="traceprism_${version}_${arch}.deb"
dev_deb="traceprism-dev_${version}_all.deb"
for deb in "$main_deb" "$dev_deb"; do
  if [ ! -f "$package_dir/$deb" ]; then
    echo "package: cpack did not write $package_dir/$deb; it wrote:" >&2
    ls "$package_dir" >&2
    exit 1
  fi
done
mkdir -p "$out_dir"
cp -f "$package_dir/$main_deb" "$package_dir/$dev_deb" "$out_dir/"

echo "package: done in $((SECONDS - start)) s"
for deb in "$main_deb" "$dev_deb"; do
  echo "  $out_dir/$deb  $(du -h "$out_dir/$deb" | cut -f1)"
  echo "    Depends: $(dpkg-deb -f "$out_dir/$deb" Depends)"
done

if [ "$check" = 1 ]; then
  ./scripts/package_test.sh "$out_dir/$main_deb" "$out_dir/$dev_deb"
fi
