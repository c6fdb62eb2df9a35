#!/usr/bin/env bash
# The case-study programs and mwsep on their command lines: every command of every program answers --help;
# output paths, sizes, thread counts and work above the limits are refused before any work, naming the
# option; a thread that cannot start never aborts. Usage: test_programs_cli.sh BUILD_DIR WORKDIR
set -euo pipefail
build=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail() { echo "FAIL: $*"; exit 1; }
# refuse PROGRAM ARGS... -- MESSAGE: a non-zero exit within two seconds, MESSAGE printed, no file left.
refuse() {
  local args=() message out rc=0 t0=$SECONDS
  while [ "$1" != -- ]; do args+=("$1"); shift; done; message=$2
  out=$(timeout 20 "$build/${args[0]}" "${args[@]:1}" 2>&1) || rc=$?
  [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "exit $rc for ${args[*]}: $out"
  grep -qF -- "$message" <<< "$out" || fail "'${args[*]}' printed '$out', expected '$message'"
  [ $((SECONDS - t0)) -le 2 ] || fail "'${args[*]}' took $((SECONDS - t0)) s to refuse"
  [ -z "$(ls)" ] || fail "'${args[*]}' left $(ls)"
}
# The programs the study declaration names, and each program's commands as its own help lists them.
programs=$(python3 -c 'import json, sys; print(" ".join(s["program"] for s in json.load(open(sys.argv[1]))["studies"]))' \
           "$(dirname "$0")/../../experiments/studies.json")
for p in $programs; do
  for c in $("$build/$p" --help | sed -n '/^commands:/,/^$/p' | grep -oE "^  [a-z][a-z0-9-]+" | awk '{print $1}' | sort -u); do
    # A command this build cannot run (no CUDA) may say so instead; any other failure is a finding.
    if timeout 10 "$build/$p" "$c" --help > help.txt 2>&1; then
      grep -qiE "usage|$p $c" help.txt || fail "$p $c --help printed no usage: $(cat help.txt)"
    else
      grep -qiE "needs a build with CUDA" help.txt || fail "$p $c --help: $(cat help.txt)"
    fi
  done
done
rm -f help.txt
# ryoo: list items and thread counts named with the option; the CSV checked before the matrices; work limit.
refuse ryoo bench-cpu --n 64 --min-samples 1 --threads 1,,2 -- "--threads: an empty item in '1,,2'"
refuse ryoo bench-cpu --n 64 --min-samples 1 --threads '' -- "--threads: no items given"
if "$build/ryoo" info | grep -q "MAX_THREADS=64"; then
  refuse ryoo bench-cpu --n 64 --min-samples 1 --threads 65 -- "above the 64 threads the linked OpenBLAS runs at most"
fi
refuse ryoo bench-cpu --n 16384 --min-samples 1 --csv /dev/full -- "--csv: cannot write /dev/full"
refuse ryoo bench-cpu --n 16384 --min-samples 100 --threads 1,2 -- "above the limit of 1e15"
if ! nvidia-smi -L > /dev/null 2>&1 && "$build/ryoo" info | grep -q '"cuda": true'; then
  # Without a GPU the device is looked for before any host array or CPU reference, in the shared words.
  refuse ryoo stream --count 4294967296 -- "needs a CUDA GPU"
  refuse ryoo bench --n 16384 -- "needs a CUDA GPU"
fi
if "$build/ryoo" info | grep -q '"cuda": true'; then
  refuse ryoo bench --n 64 --sample 9000000000000000000 -- "--sample must be between 4 and 4096"
  refuse ryoo matmul-app --n 8 -- "--n must be between 16 and 16384"
  refuse ryoo h264 --width 100 -- "--width must be a multiple of 16"
  refuse ryoo rpes --spacing -1 -- "--spacing expected a spacing in (0, 100] bohr"
  refuse ryoo cp --cpu-points -3 -- "--cpu-points must be between 0"
  refuse ryoo mri-fhd --variants q-constaos-regs-sfu-u4-f32 -- "unknown variant 'q-constaos-regs-sfu-u4-f32'"
  refuse ryoo fdtd --nx 2 -- "--nx must be between 4 and 32768"
  refuse ryoo fem --edge 1 -- "--edge must be between 2 and 400"
  refuse ryoo lbm --cpu-steps 30 --steps 10 -- "--cpu-steps the CPU runs at most --steps steps (10)"
  refuse ryoo lbm --lid 0.5 -- "--lid expected a lid velocity below 0.3"
fi
# kirk_hwu: the missing variant list named; the work limit; a thread that cannot start leaves the work to others.
if "$build/ryoo" info | grep -q '"cuda": true'; then  # the GPU commands exist in a CUDA build only
  refuse kirk_hwu bench -- "--variants name at least one variant"
fi
refuse kirk_hwu cpu --size full --min-samples 1000 -- "above the limit of 1e13"
# The tuned loops' bench, the CPU solver and the voxel split: work, sizes and lists refused before any input is built.
refuse kirk_hwu cpu-bench --size full --points 0 --csv bench.csv -- "above the limit of 1e12"
refuse kirk_hwu solver --size full --source cpu --csv solver.csv -- "use --source gpu"
if "$build/ryoo" info | grep -q '"cuda": true'; then
  refuse kirk_hwu split --subsets 1,x --csv split.csv -- "--subsets a comma-separated list of counts"
fi
# (4096 thread stacks do not fit in 4 GB of address space; a sanitizer build cannot start under the limit at all.)
if (ulimit -v 4000000; "$build/kirk_hwu" --help > /dev/null 2>&1) 2> /dev/null; then
  out=$( (ulimit -v 4000000; "$build/kirk_hwu" cpu --size tiny --min-samples 1 --threads 4096) 2>&1) ||
    fail "kirk_hwu cpu with more threads than can start: $out"
  grep -q "could start only" <<< "$out" || fail "no thread was refused under the limit: $out"
else
  echo "note: the thread-start check skipped (this build cannot start under an address-space limit)"
fi
# munch: the time limit named before the CSV exists; the work estimate and its limit.
refuse munch bench-cpu --time-limit 0 --csv out.csv -- "--time-limit must be positive"
refuse munch bench-cpu --time-limit -1 --csv out.csv -- "--time-limit must be positive"
refuse munch bench-cpu --signal 100000000 --filter 2796202 --csv out.csv -- "above the limit of 1e13"
refuse munch bench-cpu --computation rolling-ball --signal 100000000 --filter 9999999 --csv out.csv -- "above the limit of 1e13"
echo "every command answers --help; every refusal before work, naming its option"
