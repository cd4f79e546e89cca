#!/usr/bin/env bash
# Usage: scripts/check_layers.sh
# Checks the include graph between host/ folders: each folder may include only itself and the
# folders listed before it below (data flows one way: reader -> index -> model -> products ->
# analyzers -> findings/ranking -> renderers). An include of a later folder is a back edge and
# fails the check; with a total order there can be no cycle either. Also checks that plugins/
# include nothing of host/ (they share only sdk/include/traceprism/). Run by .ci/run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

layers=(config io index text ingest platform synth model perf_report findings multirank comparison plugins schedule
        pipeline report validate cli mpi)

declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

problems=0
for dir in host/*/; do
  folder="$(basename "$dir")"
  if [ -z "${rank[$folder]+x}" ]; then
    echo "check_layers: host/$folder/ is not in the layer list of scripts/check_layers.sh" >&2
    problems=$((problems + 1))
    continue
  fi
  while IFS=: read -r file line target; do
    if [ -z "${rank[$target]+x}" ]; then continue; fi
    if [ "${rank[$target]}" -gt "${rank[$folder]}" ]; then
      echo "$file:$line: host/$folder/ includes host/$target/, a later layer (back edge)" >&2
      problems=$((problems + 1))
    fi
  done < <(grep -nHoE '^#include "[a-z_]+/' "$dir"*.[ch]pp 2>/dev/null |
           sed -E 's/#include "([a-z_]+)\//\1/')
done

host_folders="$(IFS='|'; echo "${layers[*]}")"
while IFS= read -r hit; do
  echo "$hit: a plugin includes a host header (plugins see only <traceprism/...>)" >&2
  problems=$((problems + 1))
done < <(grep -rnE "^#include \"($host_folders)/" plugins sdk --include='*.[ch]pp' --include='*.h' || true)

if [ "$problems" -gt 0 ]; then
  echo "check_layers: $problems problem(s)" >&2
  exit 1
fi
echo "check_layers: host/ include graph follows ${layers[*]}; no back edges, no cycles"
