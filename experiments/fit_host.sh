#!/usr/bin/env bash
# On a GPU host that cannot build `mwsep fit` (no pagmo2/Boost headers there): runs the fit experiments with the
# fit-enabled binary that tools/fit_bundle.sh built elsewhere and packed into .device-input/fit/.
#   experiments/fit_host.sh RESULTS_DIR [experiments/run.py arguments]
# It makes a build folder ($BUILD, default build-fit-host) holding the bundle's mwsep and build_info.json, puts the
# bundle's lib/ first on LD_LIBRARY_PATH (pagmo2, Boost.Serialization, TBB, NLopt, the CUDA runtime) and runs
#   experiments/run.py --build $BUILD --out RESULTS_DIR --study mwsep --only fit_gpu_correctness,fit_recovery,fit_scaling
# Open MPI (mpirun, libmpi.so.40) and the driver come from the host.
set -euo pipefail
results="${1:?usage: experiments/fit_host.sh RESULTS_DIR [run.py arguments]}"; shift
bundle="$PWD/.device-input/fit"
build="${BUILD:-build-fit-host}"
[ -x "$bundle/bin/mwsep" ] || { echo "fit_host: no $bundle/bin/mwsep: run tools/fit_bundle.sh on the build machine" >&2; exit 1; }
mkdir -p "$build"
cp "$bundle/bin/mwsep" "$build/mwsep"
cp "$bundle/build_info.json" "$build/build_info.json"
[ -f "$bundle/kernel_resources.txt" ] && cp "$bundle/kernel_resources.txt" "$build/kernel_resources.txt"
# The resident evaluator's GPU tests (experiment fit_gpu_correctness) read the work units under the path of
# the checkout the bundle was built in: that path is made to lead to this checkout.
if [ -x "$bundle/bin/mwsep_fit_gpu_tests" ]; then
  mkdir -p "$build/tests/mwsep"
  cp "$bundle/bin/mwsep_fit_gpu_tests" "$build/tests/mwsep/"
  src_dir=$(cat "$bundle/source_dir")
  if [ ! -e "$src_dir" ]; then mkdir -p "$(dirname "$src_dir")" && ln -s "$PWD" "$src_dir"; fi
fi
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -f .device-input/git_state ] && export MWSEP_GIT_STATE="$PWD/.device-input/git_state"
# The binary must load before any experiment starts: a missing library is named here, not inside a job.
if ! "$build/mwsep" fit --help > /dev/null; then
  ldd "$build/mwsep" | grep "not found" >&2 || true
  exit 1
fi
exec python3 experiments/run.py --build "$build" --out "$results" --study mwsep --only fit_gpu_correctness,fit_recovery,fit_scaling "$@"
