#!/usr/bin/env sh
# Writes to file $1 the ptxas reports (<object>.resources) of the objects named by the other arguments:
# only the target's current objects, never a stale report left by a deleted source.
set -eu
out="$1"; shift
: > "$out.tmp"
for object in "$@"; do
  [ -f "$object.resources" ] || { echo "gather_resources: no resource report for $object" >&2; exit 1; }
  cat "$object.resources" >> "$out.tmp"
done
mv "$out.tmp" "$out"
