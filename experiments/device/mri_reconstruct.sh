#!/usr/bin/env bash
# The GPU run of the MRI reconstruction (kirk_hwu reconstruct), one command on a GPU host:
#   experiments/device/mri_reconstruct.sh OUT
# Builds the program and its GPU tests in $BUILD (default build-gpu), runs the reconstruction's GPU tests,
# then reconstructs the published size (128³ voxels, 100,096 samples on 782 radial spokes) once per step of
# the documents' summary table (Q and F^H d by F3, F4, F6, F7, and F8 at the best configuration of the
# committed tuning sweep), once with the FP64 variants, and the gridding baseline on the CPU in double
# precision. Writes under OUT: reconstruct.csv (one row per method and run, times per stage),
# cg_history.csv, <label>.log per run, gpu_tests.log, tuning_choice.txt, gpu.txt and the central slices of
# each image as .npy files (3 × 128 × 128 float32). About three minutes on one H100 or H200.
set -euo pipefail
out="${1:?usage: experiments/device/mri_reconstruct.sh OUT}"
build="${BUILD:-build-gpu}"
tuning="${TUNING:-experiments/results/nvidia-h200/kirk_hwu/mri_tuning.csv}"
mkdir -p "$out" "$build"
export PATH=/usr/local/cuda/bin:$PATH
[ -d .device-input/sysroot ] && export CMAKE_PREFIX_PATH="$PWD/.device-input/sysroot${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
gtest=()
[ -d .device-input/googletest ] && gtest=(-DMWSEP_GTEST_SOURCE="$PWD/.device-input/googletest")
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
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

# The best configuration of the tuning sweep per computation: the highest median rate of its valid rows.
read -r q_tpb q_chunk fhd_tpb fhd_chunk < <(python3 - "$tuning" <<'PY'
import csv, statistics, sys
rates = {}
for row in csv.DictReader(open(sys.argv[1])):
    if row["valid"] != "true":
        continue
    key = (row["problem"], int(row["threads_per_block"]), int(row["chunk"]))
    rates.setdefault(key, []).append(float(row["pairs_per_second"]))
best = {}
for (problem, tpb, chunk), r in rates.items():
    m = statistics.median(r)
    if problem not in best or m > best[problem][0]:
        best[problem] = (m, tpb, chunk)
print(best["mri-q"][1], best["mri-q"][2], best["mri-fhd"][1], best["mri-fhd"][2])
PY
)
echo "tuned (from $tuning): Q $q_tpb threads per block, chunk $q_chunk; F^H d $fhd_tpb, chunk $fhd_chunk" | tee "$out/tuning_choice.txt"

bin="$build/kirk_hwu"
common=(--size full --lambda 0.01 --iterations 30 --tolerance 0 --experiment mri_reconstruct
        --csv "$out/reconstruct.csv" --history "$out/cg_history.csv")
run() {  # label, then options
  local label=$1; shift
  "$bin" reconstruct "${common[@]}" --label "$label" "$@" > "$out/$label.log" 2>&1 || { cat "$out/$label.log"; exit 1; }
  cat "$out/$label.log"
}
q=(--q-variant); f=(--fhd-variant)
run gpu-f3 --device gpu "${q[@]}" q-global-memacc-libm-u1-f32 "${f[@]}" fhd-global-memacc-libm-u1-f32
run gpu-f4 --device gpu "${q[@]}" q-global-regs-libm-u1-f32 "${f[@]}" fhd-global-regs-libm-u1-f32
run gpu-f6 --device gpu "${q[@]}" q-constaos-regs-libm-u1-f32 "${f[@]}" fhd-constaos-regs-libm-u1-f32 --out "$out"
run gpu-f7 --device gpu "${q[@]}" q-constaos-regs-sfu-u1-f32 "${f[@]}" fhd-constaos-regs-sfu-u1-f32
run gpu-f8 --device gpu "${q[@]}" q-constaos-regs-sfu-u4-f32 "${f[@]}" fhd-constaos-regs-sfu-u4-f32 --out "$out" \
    --q-threads-per-block "$q_tpb" --q-chunk "$q_chunk" --fhd-threads-per-block "$fhd_tpb" --fhd-chunk "$fhd_chunk"
run gpu-fp64 --device gpu "${q[@]}" q-constaos-regs-libm-u1-f64 "${f[@]}" fhd-constaos-regs-libm-u1-f64 --out "$out"
run cpu-gridding --device cpu --method gridding --threads 1 --out "$out"
echo "total: $((SECONDS - t0)) s"
if [ "$tests_status" -ne 0 ]; then echo "the reconstruction's GPU tests FAILED (see gpu_tests.log)"; exit "$tests_status"; fi
