#!/usr/bin/env sh
# Concatenates the per-object ptxas reports of directory $1 into file $2.
set -eu
cat "$1"/*.resources > "$2"
