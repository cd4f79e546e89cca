#!/usr/bin/env bash
# Usage: scripts/gen_manpage.sh TRACEPRISM_BINARY OUTPUT
# Writes the man page traceprism(1) to OUTPUT (roff) from the binary's own help: NAME and
# SYNOPSIS, `traceprism --help` as DESCRIPTION, then one COMMANDS subsection per subcommand
# with its `traceprism COMMAND --help`, verbatim. Called by the build (cmake/Packaging.cmake,
# TRACEPRISM_PACKAGE=ON); needs nothing but bash, sed and awk.
set -euo pipefail

if [ $# -ne 2 ]; then
  sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 64
fi
bin="$1"
output="$2"

# Help text as roff: no-fill lines, backslashes as \e, '-' as \- (copyable options), and a
# leading '.' or "'" escaped so that no line is read as a request.
verbatim() {
  echo '.nf'
  sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
  echo '.fi'
}

top_help="$("$bin" --help)"
version="$("$bin" --version | awk '{ print $NF; exit }')"
# The subcommands: "  NAME   description" lines of the Subcommands: block.
mapfile -t commands < <(printf '%s\n' "$top_help" |
  awk '/^Subcommands:/ { in_block = 1; next }
       in_block && /^[^ ]/ { in_block = 0 }
       in_block && /^  [a-z][a-z0-9-]* / { print $1 }')
if [ ${#commands[@]} -eq 0 ]; then
  echo "gen_manpage: found no subcommands in '$bin --help'" >&2
  exit 1
fi

mkdir -p "$(dirname "$output")"
tmp="$(mktemp "$output.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
{
  echo ".TH TRACEPRISM 1 \"\" \"traceprism $version\" \"User Commands\""
  cat <<'ROFF'
.SH NAME
traceprism \- turn PyTorch profiler traces into optimization reports
.SH SYNOPSIS
.B traceprism
[\fIOPTIONS\fR] \fICOMMAND\fR [\fIARGS\fR]
ROFF
  echo '.SH DESCRIPTION'
  printf '%s\n' "$top_help" | verbatim
  echo '.SH COMMANDS'
  for command in "${commands[@]}"; do
    echo ".SS traceprism $command"
    "$bin" "$command" --help | verbatim
  done
  cat <<'ROFF'
.SH ENVIRONMENT
.TP
.B TRACEPRISM_PLUGIN_PATH
Further plugin folders (':'\-separated), searched after the installed plugins in
.IR PREFIX /lib/traceprism/plugins.
.SH FILES
.TP
.IR PREFIX /lib/traceprism/plugins/
The default analyzer plugins, found relative to the binary (\fIPREFIX\fR/bin).
.TP
.IR PREFIX /share/traceprism/platforms/
The GPU platform files compiled into the binary, as templates for \fB\-\-platform\-file\fR.
ROFF
} >"$tmp"
mv "$tmp" "$output"
trap - EXIT
