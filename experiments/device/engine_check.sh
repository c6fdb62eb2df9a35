#!/usr/bin/env bash
# The measurement engine on a GPU host, in one command:
#   experiments/device/engine_check.sh OUT [build|check|all]
# build: configures and builds this tree in $BUILD (default build-gpu) and the base commit (083e5ca, before
#        the engine) in $BASE_BUILD (default build-base), only the programs; both folders are kept, so a
#        second call on the same host rebuilds incrementally.
# check: runs the GPU tests that cover the engine; prints every program's criterion (--print-criterion);
#        times the small inputs cold and warm; times the same benches with the base build and this build,
#        alternating, and writes OUT/no_regression.csv with each variant's median before and after. A short
#        table ends the output.
# all (default): both. On a 16-core H100 host the two builds take a few minutes and the check about five:
# with a 10-minute limit per command, run `build` and then `check` on the same warm machine.
# The base tree comes from $BASE_TAR (a `git archive` of 083e5ca), from .device-input/base-083e5ca.tar, or
# from git when the host's copy has the repository; GoogleTest from .device-input/googletest when the host
# has none (as experiments/gpu_host.sh).
set -euo pipefail
out="${1:?usage: experiments/device/engine_check.sh OUT [build|check|all]}"
phase="${2:-all}"
base_commit=083e5ca
build="${BUILD:-build-gpu}"
base_build="${BASE_BUILD:-build-base}"
source experiments/gpu_host_env.sh  # PATH, git_state, sysroot, the arrays gtest and generator
mkdir -p "$out"
out="$(cd "$out" && pwd)"
jobs="$(nproc)"
# The programs the study declaration names.
read -r -a programs <<< "$(python3 -c 'import json; print(" ".join(s["program"] for s in json.load(open("experiments/studies.json"))["studies"]))')"

build_both() {
  local t0=$SECONDS
  # The base tree, unpacked once.
  local base_src="$base_build/src-$base_commit"
  if [ ! -f "$base_src/CMakeLists.txt" ]; then
    mkdir -p "$base_src"
    local tar="${BASE_TAR:-.device-input/base-$base_commit.tar}"
    if [ -f "$tar" ]; then tar -xf "$tar" -C "$base_src"
    elif git rev-parse --verify -q "$base_commit^{commit}" >/dev/null 2>&1; then git archive "$base_commit" | tar -x -C "$base_src"
    else echo "engine_check: no base tree: give BASE_TAR or .device-input/base-$base_commit.tar (git archive -o ... $base_commit)"; exit 2
    fi
  fi
  mkdir -p "$build" "$base_build/b"
  # The base's data folder is this tree's (work units and stars are the same files).
  { cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${gtest[@]}" &&
    cmake --build "$build" -j "$jobs" --target "${programs[@]}" harness_tests harness_gpu_tests mwsep_gpu_tests; } \
    > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
  { cmake -S "$base_src" -B "$base_build/b" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF "${gtest[@]}" &&
    cmake --build "$base_build/b" -j "$jobs" --target "${programs[@]}"; } \
    > "$out/build_base.log" 2>&1 || { tail -40 "$out/build_base.log"; exit 1; }
  echo "engine_check: both builds in $((SECONDS - t0)) s"
}

check() {
  local new="$PWD/$build" old="$PWD/$base_build/b" t0=$SECONDS
  nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
  # 1. The tests that cover the engine: the stop rule (CPU), the GPU engine, the variant registry.
  "$new/tests/harness/harness_tests" --gtest_brief=1 > "$out/harness_tests.log" 2>&1 && echo "harness_tests: passed" || { echo "harness_tests: FAILED"; tail -20 "$out/harness_tests.log"; }
  "$new/tests/harness/harness_gpu_tests" > "$out/harness_gpu_tests.log" 2>&1 && echo "harness_gpu_tests: passed" || { echo "harness_gpu_tests: FAILED"; tail -20 "$out/harness_gpu_tests.log"; }
  grep "warm median" "$out/harness_gpu_tests.log" || true
  "$new/tests/mwsep/mwsep_gpu_tests" --gtest_filter='GpuResources.*' > "$out/mwsep_gpu_tests.log" 2>&1 && echo "mwsep_gpu_tests GpuResources.*: passed" || { echo "mwsep_gpu_tests GpuResources.*: FAILED"; tail -20 "$out/mwsep_gpu_tests.log"; }

  # 2. Every timing command prints its criterion: each command whose help lists --print-criterion, of each
  #    program's own command list.
  for p in "${programs[@]}"; do
    for c in $("$new/$p" --help | sed -n '/^commands:/,/^$/p' | grep -oE "^  [a-z][a-z0-9-]+" | awk '{print $1}'); do
      "$new/$p" "$c" --help 2>/dev/null | grep -q -- "--print-criterion" || continue
      "$new/$p" "$c" --print-criterion > "$out/criterion_${p}_${c}.json" || echo "criterion of $p $c: FAILED"
    done
  done
  echo "criteria: $(ls "$out"/criterion_*.json | wc -l) printed"

  # Inputs of mwsep: the stars of 3s-large and tiny (made as the runner makes them), the CPU check values.
  mkdir -p "$out/stars"
  local -A expect
  for wu in 3s-large tiny; do
    local stars="data/stars/$wu.txt"
    [ -f "$stars" ] || { mkdir -p data/stars; "$new/mwsep" generate -a "data/workunits/$wu/astronomy_parameters.txt" -o "$stars" --count 100000 --seed 1 > /dev/null; }
    expect[$wu]="$("$new/mwsep" run -a "data/workunits/$wu/astronomy_parameters.txt" -s "$stars" --cpu fast --json |
                   python3 -c 'import json,sys; print(repr(json.load(sys.stdin)["likelihood"]))')"
  done

  # 3. Small inputs cold and warm (this build): munch's 1e5-sample convolution, kirk_hwu's small size, the
  #    copies from 1 KiB to 4 MiB, mwsep's tiny unit.
  local kirk_variants
  kirk_variants="$("$new/kirk_hwu" variants | awk 'NR > 2 && NF > 1 {print $1}' | paste -sd, -)"
  for cache in warm cold; do
    local flag=(); [ "$cache" = cold ] && flag=(--cold)
    "$new/munch" bench --computation convolution --variants "$("$new/munch" variants | awk '$1 == "convolution" {print $2}' | paste -sd, -)" \
      --signal 100000 --filter 999 --min-samples 10 --max-samples 30 --experiment "small_$cache" --csv "$out/munch_small.csv" "${flag[@]}" > /dev/null
    "$new/kirk_hwu" bench --variants "$kirk_variants" --size small --min-samples 10 --max-samples 30 \
      --experiment "small_$cache" --csv "$out/kirk_hwu_small.csv" "${flag[@]}" > /dev/null
    "$new/munch" copy --min-bytes 1024 --max-bytes 4194304 --min-samples 10 --max-samples 30 \
      --experiment "copy_$cache" --csv "$out/munch_copy_small.csv" "${flag[@]}" > /dev/null
    "$new/mwsep" bench -a data/workunits/tiny/astronomy_parameters.txt -s data/stars/tiny.txt --expect "${expect[tiny]}" \
      --variants '*-fast-unrolled-f64,modern-f64' --min-samples 10 --max-samples 30 --work-unit tiny \
      --experiment "small_$cache" --csv "$out/mwsep_small.csv" "${flag[@]}" > /dev/null
  done
  echo "cold and warm small inputs: $((SECONDS - t0)) s so far"

  # 4. Before and after, alternating per program, the same fixed sample counts, throttled samples kept (the
  #    base keeps them), warm (the base never flushed).
  for build_name in base new base2 new2; do
    local b="$old" tag=base; case $build_name in new*) b="$new"; tag=new;; esac
    # The base spells the minimum --repeats; this tree refuses that spelling and names --min-samples.
    local min=--repeats; [ $tag = new ] && min=--min-samples
    local opts_mwsep=($min 5 --max-samples 5) opts_kirk=(--min-samples 10 --max-samples 10 --time-limit 30)
    local opts_ryoo=($min 10 --time-limit 3) opts_munch=($min 10 --max-samples 10 --time-limit 30)
    [ $tag = new ] && { opts_mwsep+=(--throttle keep); opts_kirk+=(--throttle keep); opts_ryoo+=(--throttle keep); opts_munch+=(--throttle keep); }
    "$b/mwsep" bench -a data/workunits/3s-large/astronomy_parameters.txt -s data/stars/3s-large.txt --expect "${expect[3s-large]}" \
      --variants all --work-unit 3s-large --experiment "$build_name" "${opts_mwsep[@]}" --csv "$out/cmp_mwsep_$tag.csv" > "$out/cmp_mwsep_$build_name.log"
    "$b/kirk_hwu" bench --variants "$kirk_variants" --size small --experiment "$build_name" "${opts_kirk[@]}" \
      --csv "$out/cmp_kirk_hwu_$tag.csv" > "$out/cmp_kirk_hwu_$build_name.log"
    "$b/ryoo" bench --variants all --n 2048 --experiment "$build_name" "${opts_ryoo[@]}" --csv "$out/cmp_ryoo_$tag.csv" > "$out/cmp_ryoo_$build_name.log"
    "$b/munch" bench --computation convolution --variants "$("$new/munch" variants | awk '$1 == "convolution" {print $2}' | paste -sd, -)" \
      --signal 10000000 --filter 999 --experiment "$build_name" "${opts_munch[@]}" --csv "$out/cmp_munch_$tag.csv" > "$out/cmp_munch_$build_name.log"
    echo "timed $build_name: $((SECONDS - t0)) s so far"
    # A second round only while the whole check stays within its budget.
    [ "$build_name" = new ] && [ $((SECONDS - t0)) -gt 240 ] && break
  done
  python3 experiments/device/engine_compare.py "$out"
}

case "$phase" in
  build) build_both ;;
  check) check ;;
  all) build_both; check ;;
  *) echo "engine_check: unknown phase '$phase' (build, check or all)"; exit 2 ;;
esac
