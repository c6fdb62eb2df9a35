#!/usr/bin/env bash
# On a GPU host without the project's development packages (a lent or batch machine): configure and build
# in $BUILD (default build-gpu, kept between calls so rebuilds are incremental), then run the one runner.
#   experiments/gpu_host.sh RESULTS_DIR [experiments/run.py arguments]
# RUNNER=experiments/reproduce_check.py runs the reviewer's kit instead (RESULTS_DIR is then its --out).
# GoogleTest is built from .device-input/googletest when the host has none. A copy without a usable .git
# carries .source-manifest.json (python3 tools/source_manifest.py, run where the repository is), against which
# the runner measures its files (experiments/harness/provenance.py); without it the runner refuses to record.
set -euo pipefail
results="${1:?usage: experiments/gpu_host.sh RESULTS_DIR [run.py arguments]}"; shift
build="${BUILD:-build-gpu}"
source experiments/gpu_host_env.sh  # PATH, git_state, sysroot, the arrays gtest and generator
mkdir -p "$build"
t0=$SECONDS
if ! { cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${gtest[@]}" &&
       cmake --build "$build" -j "$(nproc)"; } > "$build/build.log" 2>&1; then
  tail -40 "$build/build.log"; exit 1
fi
echo "build: $((SECONDS - t0)) s ($(grep -o '"cuda_architectures": "[^"]*"' "$build/build_info.json"))"
# BUILD_ONLY=1: stop after the build (a first call within a per-command time limit; the next call rebuilds
# nothing and runs).
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
exec python3 "${RUNNER:-experiments/run.py}" --build "$build" --out "$results" "$@"
