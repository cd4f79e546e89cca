#!/usr/bin/env bash
# scripts/setup.sh never removes a package (issue 19): with apt stubbed so that installing would
# remove python3-scipy, setup stops with an explanation and installs nothing; without removals
# it installs with --no-remove; --allow-removals accepts the removal explicitly.
set -euo pipefail

setup="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/setup.sh"
stubs="$(mktemp -d)"
trap 'rm -rf "$stubs"' EXIT

# Every package is missing; we are root; apt-get logs its calls and simulates per STUB_REMOVE.
cat >"$stubs/dpkg-query" <<'STUB'
#!/bin/sh
exit 1
STUB
cat >"$stubs/id" <<'STUB'
#!/bin/sh
echo 0
STUB
cat >"$stubs/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $*" >>"$STUB_LOG"
case " $* " in
  *" -s "*)
    echo "NOTE: This is only a simulation!"
    [ -n "$STUB_REMOVE" ] && echo "Remv $STUB_REMOVE [1.10.1-2]"
    echo "Inst libboost1.81-dev (1.81.0-5 Debian:12/stable [amd64])"
    ;;
esac
exit 0
STUB
chmod +x "$stubs"/*

fail() { echo "FAIL: $*" >&2; exit 1; }
run_setup() {  # STUB_REMOVE, args...; sets out, rc
  export STUB_LOG="$stubs/log" STUB_REMOVE="$1"
  shift
  : >"$STUB_LOG"
  rc=0
  out="$(PATH="$stubs:$PATH" TRACEPRISM_SETUP_ALLOW_REMOVALS= bash "$setup" "$@" 2>&1)" || rc=$?
}

run_setup python3-scipy libboost1.81-dev
[ "$rc" -ne 0 ] || fail "setup went on although installing would remove python3-scipy"
grep -q "would REMOVE these packages from this machine: python3-scipy" <<<"$out" ||
  fail "the refusal does not name the package: $out"
grep -q -- "--allow-removals" <<<"$out" || fail "the refusal does not name the way out: $out"
if grep -v -- " -s " "$stubs/log" | grep -q "apt-get install"; then
  fail "setup ran a real install: $(cat "$stubs/log")"
fi

run_setup "" libboost1.81-dev
[ "$rc" -eq 0 ] || fail "setup failed without removals: $out"
grep -v -- " -s " "$stubs/log" | grep "apt-get install" | grep -q -- "--no-remove" ||
  fail "the install does not forbid removals: $(cat "$stubs/log")"

run_setup python3-scipy --allow-removals libboost1.81-dev
[ "$rc" -eq 0 ] || fail "--allow-removals did not accept the removal: $out"
grep -q "removing python3-scipy" <<<"$out" || fail "the accepted removal is not announced: $out"

echo "setup_never_removes_test: PASSED"
