#!/usr/bin/env bash
# Usage: scripts/package_test.sh [DEB [DEV_DEB]]
# Checks the packages scripts/package.sh wrote (default build/traceprism_<version>_<arch>.deb
# and build/traceprism-dev_<version>_all.deb; build them with scripts/package.sh --check):
#  - DEB's Depends names runtime packages only (no *-dev) and DEB holds the binary, plugins,
#    platform files and man page but no headers;
#  - `dpkg -x` into a scratch root, the binary runs from there: it loads the plugins from
#    <root>/usr/lib/traceprism/plugins, `synth` writes the sample trace (scripts/demo.sh's) and
#    `analyze` on it exits 0 and writes analysis.md; the man page renders;
#  - DEV_DEB unpacked into the same root builds sdk/examples/hello_plugin, which the binary loads;
#  - as root: `apt-get install -s` of the packages would remove nothing (skipped otherwise).
# Nothing is installed; the scratch root is deleted on exit. Run by .ci/run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

version="$(sed -n 's/^project(traceprism VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)"
arch="$(dpkg --print-architecture)"
deb="${1:-build/traceprism_${version}_${arch}.deb}"
dev_deb="${2:-build/traceprism-dev_${version}_all.deb}"

fail() {
  echo "package_test: FAILED: $*" >&2
  exit 1
}
[ -f "$deb" ] || fail "no $deb (run scripts/package.sh first)"
[ -f "$dev_deb" ] || fail "no $dev_deb (run scripts/package.sh first)"

work="$(mktemp -d "${TMPDIR:-/tmp}/traceprism-package-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"

# 1. Control fields and contents.
[ "$(dpkg-deb -f "$deb" Package)" = traceprism ] || fail "$deb: Package is not traceprism"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "$deb: Version is not $version"
depends="$(dpkg-deb -f "$deb" Depends)"
[ -n "$depends" ] || fail "$deb has no Depends (dpkg-shlibdeps did not run?)"
# Every alternative of every dependency, without its version constraint or arch qualifier.
mapfile -t dep_names < <(printf '%s\n' "$depends" | tr ',|' '\n' |
  sed -e 's/(.*)//' -e 's/:.*//' -e 's/[[:space:]]//g' | sed '/^$/d')
for name in "${dep_names[@]}"; do
  case "$name" in
    *-dev) fail "$deb depends on the development package $name (Depends: $depends)" ;;
  esac
done
echo "package_test: Depends: $depends"

dpkg-deb -c "$deb" | awk '{ print $NF }' >"$work/contents"
for path in ./usr/bin/traceprism ./usr/share/man/man1/traceprism.1.gz \
            ./usr/share/traceprism/platforms/h100_sxm.json; do
  grep -qxF "$path" "$work/contents" || fail "$deb lacks $path"
done
grep -q '^\./usr/lib/traceprism/plugins/libtraceprism_.*\.so$' "$work/contents" ||
  fail "$deb holds no plugin in /usr/lib/traceprism/plugins"
if grep -q '^\./usr/include/' "$work/contents"; then fail "$deb holds headers (they go in -dev)"; fi
grep -q '^\./usr/include/traceprism/sdk\.hpp$' <(dpkg-deb -c "$dev_deb" | awk '{ print $NF }') ||
  fail "$dev_deb lacks /usr/include/traceprism/sdk.hpp"

# 2. The binary from a scratch root.
dpkg -x "$deb" "$root"
bin="$root/usr/bin/traceprism"
unset TRACEPRISM_PLUGIN_PATH
[ "$("$bin" --version)" = "traceprism $version" ] || fail "'$bin --version' is not 'traceprism $version'"

plugin_dir="$root/usr/lib/traceprism/plugins"
"$bin" plugins >"$work/plugins.txt"
if grep -q '^Refused:' "$work/plugins.txt"; then
  cat "$work/plugins.txt" >&2
  fail "the binary refused plugins"
fi
expected_plugins="$(find "$plugin_dir" -name '*.so' | wc -l)"
loaded_plugins="$(grep -c "(ABI [0-9.]*, $plugin_dir/" "$work/plugins.txt" || true)"
[ "$loaded_plugins" -eq "$expected_plugins" ] ||
  fail "loaded $loaded_plugins of the $expected_plugins plugins in $plugin_dir"

trace="$work/sample_trace.json.gz"
"$bin" synth -o "$trace" --layers 4 --steps 3 --seed 7
"$bin" analyze "$trace" -o "$work/analysis" -q || fail "'traceprism analyze' exited with $?"
[ -s "$work/analysis/analysis.md" ] || fail "analyze wrote no analysis.md"
"$bin" validate-report "$work/analysis" || fail "validate-report rejected the report"
echo "package_test: $bin analyze: $(grep -c '' "$work/analysis/analysis.md") lines of analysis.md," \
  "$loaded_plugins plugins loaded from the package"

man_page="$root/usr/share/man/man1/traceprism.1.gz"
if command -v man >/dev/null; then
  MANWIDTH=100 man -l "$man_page" >"$work/man.txt" 2>"$work/man.err" || fail "man -l $man_page failed"
  grep -q 'traceprism analyze' "$work/man.txt" || fail "the man page lacks the analyze command"
  if [ -s "$work/man.err" ]; then
    cat "$work/man.err" >&2
    fail "man -l $man_page warned"
  fi
else
  zcat "$man_page" | grep -q '^\.SS traceprism analyze' || fail "the man page lacks analyze"
fi

# 3. The SDK from the -dev package: an out-of-tree plugin the packaged binary loads.
dpkg -x "$dev_deb" "$root"
cmake -S sdk/examples/hello_plugin -B "$work/hello" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_TESTING=OFF -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  >"$work/hello.log" 2>&1 || { cat "$work/hello.log" >&2; fail "configuring hello_plugin"; }
grep -q "traceprismSDK_DIR:PATH=$root/" "$work/hello/CMakeCache.txt" ||
  fail "hello_plugin found another traceprismSDK: $(grep traceprismSDK_DIR "$work/hello/CMakeCache.txt")"
cmake --build "$work/hello" >>"$work/hello.log" 2>&1 ||
  { cat "$work/hello.log" >&2; fail "building hello_plugin"; }
"$bin" plugins --plugin-dir "$work/hello" | grep -q "^hello 1.0.0 " ||
  fail "the binary did not load the plugin built against traceprism-dev"
echo "package_test: hello_plugin built against $(basename "$dev_deb") and loaded"

# 4. Installing removes nothing (apt's simulation; it needs root).
if [ "$(id -u)" -eq 0 ]; then
  apt-get install -s --no-install-recommends "$(realpath "$deb")" "$(realpath "$dev_deb")" \
    >"$work/apt.txt" 2>&1 || { cat "$work/apt.txt" >&2; fail "apt-get install -s failed"; }
  if grep -q '^Remv ' "$work/apt.txt"; then
    grep '^Remv ' "$work/apt.txt" >&2
    fail "installing $deb would remove the packages above"
  fi
  grep -q '^Inst traceprism ' "$work/apt.txt" || grep -q '^traceprism is already' "$work/apt.txt" ||
    { cat "$work/apt.txt" >&2; fail "apt-get install -s would not install traceprism"; }
  echo "package_test: apt-get install -s: $(grep -c '^Inst ' "$work/apt.txt") to install, none removed"
else
  echo "package_test: skipped the apt-get install simulation (needs root)"
fi

echo "package_test: PASSED ($deb, $dev_deb)"
