#!/usr/bin/env bash
# Prepares, on a machine with the three public repositories cloned, the source trees that build_cufinufft.sh builds
# cuFINUFFT from on a GPU host that cannot reach the network:
#   experiments/peer/finufft/prepare_sources.sh FINUFFT_CLONE POET_CLONE CPM_CLONE OUT
# FINUFFT_CLONE  a clone of https://github.com/flatironinstitute/finufft      (the commit below is exported)
# POET_CLONE     a clone of https://github.com/flatironinstitute/poet          (tag v0.0.1, what FINUFFT asks for)
# CPM_CLONE      a clone of https://github.com/cpm-cmake/CPM.cmake             (its cmake/CPM.cmake at the commit below)
# OUT            a new folder: OUT/finufft (git archive of the commit, about 8 MB), OUT/poet (about 0.5 MB),
#                OUT/cpm/CPM.cmake (45 kB) and OUT/sources.json (the commits). Nothing of them is committed to this
#                project; carry OUT to the GPU host (for the device runner: a folder .git/info/exclude ignores,
#                named in `carry`).
set -euo pipefail
FINUFFT_COMMIT="${FINUFFT_COMMIT:-9810998d273b504de6d61896047cc691738cd94c}"
POET_TAG="${POET_TAG:-v0.0.1}"
CPM_COMMIT="${CPM_COMMIT:-af416b918dc58da4bc2c618673e351c8a57303c7}"
if [ $# -ne 4 ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
finufft="$1" poet="$2" cpm="$3" out="$4"
for repo in "$finufft" "$poet" "$cpm"; do
  git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || { echo "prepare_sources: $repo is not a git clone" >&2; exit 2; }
done
if [ -e "$out" ]; then echo "prepare_sources: $out exists; give a new folder" >&2; exit 2; fi
git -C "$finufft" cat-file -e "$FINUFFT_COMMIT^{commit}" 2>/dev/null || { echo "prepare_sources: $finufft lacks commit $FINUFFT_COMMIT" >&2; exit 2; }
git -C "$poet" rev-parse -q --verify "refs/tags/$POET_TAG" >/dev/null || { echo "prepare_sources: $poet lacks tag $POET_TAG" >&2; exit 2; }
git -C "$cpm" cat-file -e "$CPM_COMMIT^{commit}" 2>/dev/null || { echo "prepare_sources: $cpm lacks commit $CPM_COMMIT" >&2; exit 2; }
mkdir -p "$out/finufft" "$out/poet" "$out/cpm"
git -C "$finufft" archive "$FINUFFT_COMMIT" | tar -x -C "$out/finufft"
git -C "$poet" archive "$POET_TAG" | tar -x -C "$out/poet"
git -C "$cpm" show "$CPM_COMMIT:cmake/CPM.cmake" > "$out/cpm/CPM.cmake"
printf '{"finufft_commit": "%s", "poet_tag": "%s", "poet_commit": "%s", "cpm_commit": "%s"}\n' \
  "$FINUFFT_COMMIT" "$POET_TAG" "$(git -C "$poet" rev-parse "$POET_TAG^{commit}")" "$CPM_COMMIT" > "$out/sources.json"
du -sh "$out"
