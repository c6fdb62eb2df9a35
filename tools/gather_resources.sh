#!/usr/bin/env sh
# Writes to file $1 the ptxas reports (<object>.resources) of the CUDA objects (*.cu.o) named by the other
# arguments: only the target's current objects, never a stale report left by a deleted source. Objects of
# C++ sources in the same target (no ptxas, no report) are passed over.
#   gather_resources.sh OUT OBJECT...                  a CUDA object without its report is an error
#   gather_resources.sh --allow-missing OUT OBJECT...  it is a line in OUT instead (an object compiled before
#                                                      its target kept reports: it gets one when next compiled)
set -eu
allow_missing=0
if [ "$1" = --allow-missing ]; then allow_missing=1; shift; fi
out="$1"; shift
: > "$out.tmp"
for object in "$@"; do
  case "$object" in *.cu.o|*.cu.obj) ;; *) continue ;; esac
  if [ ! -f "$object.resources" ]; then
    if [ "$allow_missing" = 1 ]; then
      echo "# no resource report for $object (compiled before its target kept them; next compile writes it)" >> "$out.tmp"
      continue
    fi
    rm -f "$out.tmp"
    echo "gather_resources: no resource report for $object" >&2
    exit 1
  fi
  cat "$object.resources" >> "$out.tmp"
done
mv "$out.tmp" "$out"
