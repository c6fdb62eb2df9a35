#!/usr/bin/env bash
# The GPU run of the MRI reconstruction (kirk_hwu reconstruct), one command on a GPU host:
#   experiments/device/mri_reconstruct.sh OUT
# Builds the program and its GPU tests in $BUILD (default build-gpu), runs the reconstruction's GPU tests
# (gpu_tests.log), then the experiment mri_reconstruct through the runner into OUT/results (a results folder
# as experiments/run.py writes it: manifest, provenance, kirk_hwu/mri_reconstruct.csv with the time of each
# stage per run, mri_reconstruct_history.csv, and the central image slices as mri_reconstruct_images_*.json):
# the published size (128³ voxels, 100,096 samples on 782 radial spokes) once per step of the documents'
# summary table (Q and F^H d by F3, F4, F6, F7, and F8 at the best configuration of the committed tuning
# sweep), once with the FP64 variants, and the gridding baseline on the CPU in double precision; the
# runner's output in run.log. About three minutes on one H100 or H200.
set -euo pipefail
out="${1:?usage: experiments/device/mri_reconstruct.sh OUT}"
build="${BUILD:-build-gpu}"
mkdir -p "$out" "$build"
source experiments/gpu_host_env.sh  # PATH, git_state, sysroot, the arrays gtest and generator
t0=$SECONDS
if ! { cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${gtest[@]}" &&
       cmake --build "$build" -j "$(nproc)" --target kirk_hwu kirk_hwu_gpu_tests; } > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"; exit 1
fi
echo "build: $((SECONDS - t0)) s"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > "$out/gpu.txt" 2>&1 || true
cat "$out/gpu.txt"

# The reconstruction's GPU tests (FP64 against the CPU, launch settings, SFU bound, refusals).
tests_status=0
"$build/tests/kirk_hwu/kirk_hwu_gpu_tests" --gtest_filter='GpuReconstruction.*' > "$out/gpu_tests.log" 2>&1 || tests_status=$?
tail -5 "$out/gpu_tests.log"

# The experiment, through the one runner (the tuned run reads the committed tuning sweep).
run_status=0
python3 experiments/run.py --build "$build" --out "$out/results" --study kirk_hwu --only mri_reconstruct 2>&1 |
  tee "$out/run.log" || run_status=$?
echo "total: $((SECONDS - t0)) s"
if [ "$tests_status" -ne 0 ]; then echo "the reconstruction's GPU tests FAILED (see gpu_tests.log)"; exit "$tests_status"; fi
exit "$run_status"
