#!/usr/bin/env bash
# The GPU run of the pipelines beyond the documents, one command on a GPU host:
#   experiments/device/pipelines.sh OUT [FINUFFT_SOURCES]
# Builds the three programs and their GPU tests in $BUILD (default build-gpu); runs the GPU tests of the pipelined
# convolution, the reconstruction (fastest kernels, checked before timing) and the NUFFT (gpu_tests.log); builds
# cuFINUFFT from FINUFFT_SOURCES (a folder experiments/peer/finufft/prepare_sources.sh made) when given; then the
# experiments through the one runner into OUT/results:
#   munch     convolution_pipeline                    (the 10⁷-sample convolution with its transfers, copy floor)
#   kirk_hwu  mri_reconstruct_fastest, mri_nufft      (the reconstruction on the fastest kernels; the NUFFT, its
#                                                      width sweep and, with the peer, cuFINUFFT in the same job)
#   ryoo      app_mri_q_fastest, app_mri_fhd_fastest  (MRI-Q and MRI-FHD on the fastest kernels beside the documents')
# The runner's output in run.log. STEPS (default "build tests peer run") chooses the steps, so that the work fits
# calls of ten minutes on a machine that keeps $BUILD between them: the build and the tests about 5 minutes on one
# H100 or H200, the cuFINUFFT build 5 to 10, the experiments about 6.
set -euo pipefail
out="${1:?usage: experiments/device/pipelines.sh OUT [FINUFFT_SOURCES]}"
sources="${2:-}"
build="${BUILD:-build-gpu}"
steps=" ${STEPS:-build tests peer run} "
mkdir -p "$out" "$build"
source experiments/gpu_host_env.sh  # PATH, git_state, sysroot, the arrays gtest and generator
t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > "$out/gpu.txt" 2>&1 || true
cat "$out/gpu.txt"
if [[ "$steps" == *" build "* ]]; then
  if ! { cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${gtest[@]}" &&
         cmake --build "$build" -j "$(nproc)" --target munch kirk_hwu ryoo munch_gpu_tests kirk_hwu_gpu_tests; } > "$out/build.log" 2>&1; then
    tail -40 "$out/build.log"; exit 1
  fi
  echo "build: $((SECONDS - t0)) s"
fi

tests_status=0
if [[ "$steps" == *" tests "* ]]; then
"$build/tests/munch/munch_gpu_tests" --gtest_filter='GpuPipeline.*' > "$out/gpu_tests.log" 2>&1 || tests_status=$?
"$build/tests/kirk_hwu/kirk_hwu_gpu_tests" --gtest_filter='GpuReconstruction.*:GpuNufft.*' >> "$out/gpu_tests.log" 2>&1 || tests_status=$?
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/gpu_tests.log" || true
fi

peer=()
if [[ "$steps" == *" peer "* ]] && [ -n "$sources" ]; then
  if experiments/peer/finufft/build_cufinufft.sh "$sources" "$build/cufinufft" > "$out/cufinufft_build.log" 2>&1; then
    peer=(--peer-nufft "$build/cufinufft/lib/libcufinufft.so")
    cp "$build/cufinufft/lib/build_info.json" "$out/cufinufft_build_info.json"
  else
    tail -20 "$out/cufinufft_build.log"; echo "the cuFINUFFT build failed: mri_nufft runs without its peer"
  fi
elif [ -f "$build/cufinufft/lib/libcufinufft.so" ]; then
  peer=(--peer-nufft "$build/cufinufft/lib/libcufinufft.so")  # built by an earlier call
fi

run_status=0
if [[ "$steps" == *" run "* ]]; then
python3 experiments/run.py --build "$build" --out "$out/results" --study munch --study kirk_hwu --study ryoo \
  --only convolution_pipeline,mri_reconstruct_fastest,mri_nufft,app_mri_q_fastest,app_mri_fhd_fastest "${peer[@]}" 2>&1 |
  tee "$out/run.log" || run_status=$?
fi
echo "total: $((SECONDS - t0)) s"
if [ "$tests_status" -ne 0 ]; then echo "GPU tests FAILED (see gpu_tests.log)"; exit "$tests_status"; fi
exit "$run_status"
