#!/usr/bin/env bash
# Compiler launcher for CUDA sources: runs the compile command unchanged and keeps ptxas's resource
# report (registers, spills, stack of every kernel) in <object>.resources for `mwsep variants`.
set -uo pipefail
out=""
prev=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then out="$a"; fi
  prev="$a"
done
if [ -z "$out" ]; then exec "$@"; fi
log="$(mktemp)"
"$@" 2> "$log"
status=$?
grep -E "ptxas info|bytes stack frame" "$log" > "$out.resources" || true
grep -vE "ptxas info|bytes stack frame" "$log" >&2 || true
rm -f "$log"
exit $status
