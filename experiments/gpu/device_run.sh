#!/usr/bin/env bash
# One script for the GPU machine: builds, checks and times, writing logs and results under $OUT.
#   experiments/gpu/device_run.sh correctness   build; mwsep variants; GPU correctness tests; sanitizers
#   experiments/gpu/device_run.sh timing        time every variant on the large work units
#   experiments/gpu/device_run.sh profile       Nsight Compute: FP64 pipe use of every double variant
#   experiments/gpu/device_run.sh cpu           the fast CPU integrator on one and on all of the host's cores
#   experiments/gpu/device_run.sh experiments [--quick] [--only a,b]   the experiments of experiments/definitions
#   experiments/gpu/device_run.sh modern        modern variants: checks, instruction mix, exp microbenchmark,
#                                               timings, end-to-end runs
#   experiments/gpu/device_run.sh multi_gpu     modern variants split over every GPU of the host
# Inputs that do not live in the repository (GoogleTest source if the machine lacks it, the oracle cases
# and real catalogues) are read from .device-input/, which the caller carries.
set -uo pipefail
stage="${1:?usage: device_run.sh correctness|timing|profile|cpu|experiments|modern|multi_gpu [run.py arguments]}"
OUT="${OUT:-$PWD/device-out}"
mkdir -p "$OUT/logs"
# At most a few files come back: logs go to $OUT/logs and are packed into one archive at the end.
trap 'tar czf "$OUT/logs_$stage.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
B=build-gpu
M=$B/mwsep
export PATH=/usr/local/cuda/bin:$PATH
# The commit of this tree, for experiments/run.py (a .git found on the machine may be stale).
export MWSEP_GIT_STATE="$PWD/.device-input/git_state"

provenance() {
  {
    echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    # The working tree travels without .git: the caller records the commit in .device-input/git_state.
    cat .device-input/git_state 2>/dev/null || echo "git_commit=unknown"
    echo "gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv,noheader)"
    echo "nvcc=$(nvcc --version | tail -1)"
    echo "host_cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    echo "command=experiments/gpu/device_run.sh $stage"
  } > "$OUT/provenance_$stage.txt"
  cat "$OUT/provenance_$stage.txt"
}

build() {
  local t0=$SECONDS
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMWSEP_GTEST_SOURCE="$PWD/.device-input/googletest" \
    > "$OUT/logs/build.log" 2>&1 && cmake --build $B -j 16 >> "$OUT/logs/build.log" 2>&1 || { tail -40 "$OUT/logs/build.log"; exit 1; }
  echo "build: $((SECONDS - t0)) s"
}

# End-to-end runs of modern-f64 on work unit $1, $2 times, one row each appended to CSV $3 (with the
# number of GPUs used when $4 is --devices): wall time from process start to exit, phases from its JSON.
end_to_end_runs() {
  local wu=$1 repeats=$2 csv=$3 devices=${4:-}
  for rep in $(seq 1 "$repeats"); do
    local json="$OUT/logs/e2e_$(basename "$csv" .csv)_${wu}_${rep}.json"
    local t0 t1
    t0=$(date +%s%N); $M run -a data/workunits/$wu/astronomy_parameters.txt -s data/stars/$wu.txt --backend cuda \
      --variant modern-f64 --json > "$json"; t1=$(date +%s%N)
    python3 tools/e2e_row.py "$json" "$wu" "$rep" "$(( (t1 - t0) / 1000000 ))" $devices >> "$csv"
  done
}

case "$stage" in
  correctness)
    provenance
    build
    $M variants --streams 3 > "$OUT/logs/variants_s3.txt" 2>&1; echo "variants exit $?"
    $M variants --streams 2 > "$OUT/logs/variants_s2.txt" 2>&1
    t0=$SECONDS
    MWSEP_SHARED_DIR="$PWD/.device-input/shared" MWSEP_GPU_RESULTS="$OUT" \
      $B/tests/mwsep_gpu_tests > "$OUT/logs/gpu_tests.log" 2>&1
    echo "gpu tests exit $? in $((SECONDS - t0)) s"; tail -4 "$OUT/logs/gpu_tests.log"
    grep -E "FAILED|Failure" "$OUT/logs/gpu_tests.log" | head -20
    $M generate -a data/workunits/tiny/astronomy_parameters.txt -o /tmp/tiny-stars.txt --count 2000 --seed 3 2>/dev/null
    for v in shared-fast-unrolled-f64 shared-ieee-loop-f64 shared-fast-unrolled-f32; do
      compute-sanitizer --tool racecheck $M run -a data/workunits/tiny/astronomy_parameters.txt -s /tmp/tiny-stars.txt \
        --backend cuda --variant $v > "$OUT/logs/racecheck_$v.log" 2>&1; echo "racecheck $v exit $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/logs/racecheck_$v.log" | head -1)"
    done
    compute-sanitizer --tool memcheck $M run -a data/workunits/tiny/astronomy_parameters.txt -s /tmp/tiny-stars.txt \
      --backend cuda --variant texture-fast-unrolled-f64 > "$OUT/logs/memcheck.log" 2>&1; echo "memcheck exit $?: $(grep 'ERROR SUMMARY' "$OUT/logs/memcheck.log")"
    $M run -a data/workunits/tiny/astronomy_parameters.txt -s /tmp/tiny-stars.txt --backend cuda --variant nope > "$OUT/logs/bad_variant.log" 2>&1; echo "unknown variant exit $? (expect 1)"
    ;;
  timing)
    provenance
    build  # incremental: a warm machine keeps the last build, which may be stale
    for wu in 3s-large 2s-large; do
      [ -f data/stars/$wu.txt ] || { mkdir -p data/stars; $M generate -a data/workunits/$wu/astronomy_parameters.txt -o data/stars/$wu.txt --count 100000 --seed 1; }
      $M bench -a data/workunits/$wu/astronomy_parameters.txt -s data/stars/$wu.txt --work-unit $wu \
        --experiment variant_timings --repeats 3 --csv "$OUT/variant_timings.csv" 2>&1 | tee "$OUT/logs/variant_timings_$wu.txt"
    done
    ;;
  profile)
    # FP64 pipe utilisation and occupancy of one integral launch (r step 350 of 700) per double variant,
    # 3s-large, with Nsight Compute leaving the clocks alone.
    provenance
    build  # incremental: a warm machine keeps the last build, which may be stale
    [ -f data/stars/3s-large.txt ] || { mkdir -p data/stars; $M generate -a data/workunits/3s-large/astronomy_parameters.txt -o data/stars/3s-large.txt --count 100000 --seed 1; }
    echo "variant,fp64_pipe_pct,fp64_inst_pct,sm_throughput_pct,achieved_occupancy_pct,duration_ns" > "$OUT/ncu_fp64.csv"
    metrics=sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
    for v in $($M variants 2>/dev/null | awk '/-f64 / && $3 == "no" {print $1}'); do
      ncu --clock-control none --kernel-name regex:integral_kernel --launch-skip 350 --launch-count 1 \
        --metrics $metrics --csv $M run -a data/workunits/3s-large/astronomy_parameters.txt -s data/stars/3s-large.txt \
        --backend cuda --variant $v > "$OUT/logs/ncu_$v.csv" 2> "$OUT/logs/ncu_$v.err"
      python3 - "$v" "$OUT/logs/ncu_$v.csv" >> "$OUT/ncu_fp64.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[2])) if len(r) > 10]
head, data = rows[0], rows[1:]
val = {r[head.index("Metric Name")]: r[head.index("Metric Value")].replace(",", "") for r in data}
keys = ["sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "sm__warps_active.avg.pct_of_peak_sustained_active", "gpu__time_duration.sum"]
print(",".join([sys.argv[1]] + [val.get(k, "") for k in keys]))
PY
    done
    cat "$OUT/ncu_fp64.csv"
    ;;
  cpu)
    # The fast CPU integrator on one core and on all of this host's cores (parallel efficiency).
    provenance
    build  # incremental: a warm machine keeps the last build, which may be stale
    for wu in 2s-small 3s-small; do
      $M bench-cpu -a data/workunits/$wu/astronomy_parameters.txt --work-unit $wu --repeats 3 \
        --integrators fast1,fastN --csv "$OUT/bench_cpu.csv" | tee "$OUT/logs/bench_cpu_$wu.txt"
    done
    nproc > "$OUT/logs/nproc.txt"
    ;;
  experiments)
    # The experiments runner (extra arguments go to experiments/run.py); the results folder comes back
    # as one archive, to be unpacked over the checkout's experiments/results.
    provenance
    build  # incremental: a warm machine keeps the last build, which may be stale
    shift
    python3 experiments/run.py --build $B "$@" 2>&1 | tee "$OUT/logs/experiments.txt"
    status=${PIPESTATUS[0]}
    tar czf "$OUT/results.tgz" experiments/results
    exit $status
    ;;
  modern)
    # Beyond the thesis: checks of the modern variants (correctness cases, slicing, sanitizers), their
    # instruction mix and FP64 pipe use, the exp microbenchmark, the modern variants against the thesis's
    # final one on the large units, and end-to-end runs (files in, likelihood out, CUDA start-up included).
    provenance
    build  # incremental: a warm machine keeps the last build, which may be stale
    t0=$SECONDS
    MWSEP_SHARED_DIR="$PWD/.device-input/shared" $B/tests/mwsep_gpu_tests --gtest_filter='*modern*:GpuModern*:GpuMath*' \
      > "$OUT/logs/gpu_tests_modern.log" 2>&1
    echo "modern gpu tests exit $? in $((SECONDS - t0)) s"; tail -3 "$OUT/logs/gpu_tests_modern.log"
    grep -E "FAILED|Failure" -A3 "$OUT/logs/gpu_tests_modern.log" | head -30
    $M generate -a data/workunits/tiny/astronomy_parameters.txt -o /tmp/tiny-stars.txt --count 2000 --seed 3 2>/dev/null
    for tool in racecheck memcheck; do
      compute-sanitizer --tool $tool $M run -a data/workunits/tiny/astronomy_parameters.txt -s /tmp/tiny-stars.txt \
        --backend cuda --variant modern-f64 > "$OUT/logs/${tool}_modern.log" 2>&1
      echo "$tool modern-f64 exit $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/logs/${tool}_modern.log" | head -1)"
    done
    cuobjdump -sass $B/kernels/CMakeFiles/mwsep_cuda.dir/modern.cu.o > "$OUT/logs/modern.sass" 2>&1
    python3 tools/sass_mix.py "$OUT/logs/modern.sass" | tee "$OUT/sass_mix.csv"
    wu=2s-small; mkdir -p data/stars
    [ -f data/stars/$wu.txt ] || $M generate -a data/workunits/$wu/astronomy_parameters.txt -o data/stars/$wu.txt --count 100000 --seed 1 2>/dev/null
    ncu --kernel-name regex:modern_integral_kernel --launch-count 1 --csv --page details --print-units base \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
      --section Occupancy --section InstructionStats \
      $M run -a data/workunits/$wu/astronomy_parameters.txt -s data/stars/$wu.txt --backend cuda --variant modern-f64 \
      > "$OUT/logs/ncu_modern.csv" 2>&1
    echo "ncu exit $?"
    python3 tools/ncu_summary.py "$OUT/logs/ncu_modern.csv" | tee "$OUT/ncu_modern.csv"
    nvcc -O3 -arch=sm_90 -std=c++17 -Isrc experiments/gpu/exp_throughput.cu src/mwsep/math/exp_table.cpp -o /tmp/exp_throughput && \
      /tmp/exp_throughput | tee "$OUT/exp_throughput.csv"
    python3 tools/e2e_row.py --header > "$OUT/end_to_end.csv"
    for wu in 3s-large 2s-large; do
      [ -f data/stars/$wu.txt ] || { mkdir -p data/stars; $M generate -a data/workunits/$wu/astronomy_parameters.txt -o data/stars/$wu.txt --count 100000 --seed 1; }
      $M bench -a data/workunits/$wu/astronomy_parameters.txt -s data/stars/$wu.txt --work-unit $wu \
        --experiment modern --variants ${MODERN_VARIANTS:-modern-f64,modern-f32,shared-fast-unrolled-f64,constant-ieee-unrolled-f64} \
        --repeats 5 --csv "$OUT/modern.csv" 2>&1 | tee "$OUT/logs/modern_$wu.txt"
      end_to_end_runs $wu 5 "$OUT/end_to_end.csv"
    done
    cat "$OUT/end_to_end.csv"
    ;;
  multi_gpu)
    # A host with several GPUs: the modern variants' mu-range split, checked (the slicing tests now span
    # real devices) and timed on one GPU and on all of them, plus end-to-end runs that use all of them.
    provenance
    build  # incremental: a warm machine keeps the last build, which may be stale
    nvidia-smi -L | tee "$OUT/logs/gpus.txt"
    MWSEP_SHARED_DIR="$PWD/.device-input/shared" $B/tests/mwsep_gpu_tests --gtest_filter='*modern*:GpuModern*:GpuMath*' \
      > "$OUT/logs/gpu_tests_multi.log" 2>&1
    echo "modern gpu tests exit $?"; tail -3 "$OUT/logs/gpu_tests_multi.log"
    grep -E "FAILED|Failure" -A3 "$OUT/logs/gpu_tests_multi.log" | head -30
    mkdir -p data/stars
    python3 tools/e2e_row.py --header --devices > "$OUT/end_to_end_multi.csv"
    for wu in 3s-large 2s-large; do
      [ -f data/stars/$wu.txt ] || $M generate -a data/workunits/$wu/astronomy_parameters.txt -o data/stars/$wu.txt --count 100000 --seed 1 2>/dev/null
      for mode in one all; do
        flag=""; [ $mode = all ] && flag="--all-devices"
        $M bench -a data/workunits/$wu/astronomy_parameters.txt -s data/stars/$wu.txt --work-unit $wu \
          --experiment multi_gpu --variants modern-f64 $flag --repeats 5 --csv "$OUT/multi_gpu.csv" 2>&1 | tee -a "$OUT/logs/multi_$wu.txt"
      done
      end_to_end_runs $wu 3 "$OUT/end_to_end_multi.csv" --devices
    done
    cat "$OUT/end_to_end_multi.csv"
    ;;
  *) echo "unknown stage $stage"; exit 2 ;;
esac
