#!/usr/bin/env bash
# The GPU under pressure, on a GPU host, in one run:
#   A. every GPU command of the four programs refuses, with the numbers (needed, free, total, the device),
#      work whose device memory does not fit, before it starts: under the test hook's cap
#      (GPU_STUDIES_DEVICE_MEMORY_LIMIT) a real work unit and catalogue of mwsep's run, bench and fit, a grid
#      and a catalogue each too large for the cap, and a command of each of kirk_hwu, munch and ryoo; the cap
#      of exactly the bytes a run needs is enough and one byte less is not; what a run really takes from the
#      device (its free memory's drop) stays within what the check counts;
#   B. the same against a device that is really full: another process (hold_device_memory) takes all but a
#      little of device 0's memory; a unit that needs more than is left is refused (run and fit), one that fits
#      still gives the single-process result bit for bit;
#   C. several processes on device 0 at once (4 runs of each of three variants, 2 checkpointed runs, 2 fits)
#      each give exactly the result of one process alone (the kernels and their sums run in a fixed order);
#   D. a CUDA error injected into a GPU fit (GPU_STUDIES_FAIL_AFTER_EVALUATIONS) leaves a whole checkpoint that
#      resumes to the uninterrupted result (tests/mwsep/test_fit_fault.sh with the GPU evaluator);
#   E. the GPU tests of the plans: each variant's plan against what it really allocates.
# Usage: [FIT_BUNDLE=DIR] tests/gpu_pressure/run.sh BUILD OUT
#   BUILD       a build folder with mwsep, kirk_hwu, munch, ryoo and tests/gpu_pressure/hold_device_memory
#   OUT         where gpu-pressure.log (every check, PASS, FAIL or SKIP, with the programs' own messages) and
#               provenance.json (commit, date, GPU) are written; scratch files go to a temporary folder
#   FIT_BUNDLE  where BUILD's mwsep has no fit (a GPU host without pagmo2): the folder tools/fit_bundle.sh
#               packs (.device-input/fit: bin/mwsep, bin/mwsep_fit_gpu_tests, lib/), whose mwsep runs the fits
# Exit status: 0 when every check passed, 1 when one failed, 77 without a GPU (skipped). The fit's checks are
# skipped, and said so, only where no mwsep with a fit is found.
set -uo pipefail
[ $# = 2 ] || { echo "usage: $0 BUILD OUT" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
src=$(cd "$(dirname "$0")/../.." && pwd)
mwsep=$build/mwsep kirk=$build/kirk_hwu munch=$build/munch ryoo=$build/ryoo
hold=$build/tests/gpu_pressure/hold_device_memory
for p in "$mwsep" "$kirk" "$munch" "$ryoo" "$hold"; do [ -x "$p" ] || { echo "missing program $p (build first)" >&2; exit 2; }; done
probe=$("$hold" probe)
case $? in
  0) ;;
  77) echo "no CUDA device: the GPU-pressure tests skip"; exit 77 ;;
  *) echo "cannot query the GPUs: $probe" >&2; exit 1 ;;
esac
log=$out/gpu-pressure.log
: > "$log"
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-pressure.XXXXXX")
holder=
cleanup() {
  [ -n "$holder" ] && kill "$holder" 2> /dev/null && wait "$holder" 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0 passes=0 skips=0
say() { printf '%s\n' "$*" | tee -a "$log"; }
ok() { passes=$((passes + 1)); say "PASS $*"; }
skip() { skips=$((skips + 1)); say "SKIP $*"; }
bad() { failures=$((failures + 1)); say "FAIL $1"; shift; [ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/     /' | tee -a "$log"; }
# The first line of an output that carries the program's error, for the log.
message() { grep -m1 -E 'error|needs' "$1" || head -c 600 "$1"; }
# The bytes a refusal says the work needs, the free bytes it saw, the free bytes the device itself reported.
needed_of() { sed -n 's/.* needs [^(]*(\([0-9]*\) bytes) of device memory.*/\1/p' "$1" | head -1; }
free_of() { sed -n 's/.* has [^(]*(\([0-9]*\) bytes) free of.*/\1/p' "$1" | head -1; }
reported_of() { sed -n 's/.*the device reports [^(]*(\([0-9]*\) bytes) free.*/\1/p' "$1" | head -1; }

# expect_refusal NAME CAP WANT... -- COMMAND...: COMMAND with the free memory capped at CAP ("" for no cap)
# exits with a failure (not a signal) and says it needs device memory, with every WANT in its message.
last=$work/last.txt
expect_refusal() {
  local name=$1 cap=$2; shift 2
  local wants=()
  while [ "$1" != -- ]; do wants+=("$1"); shift; done; shift
  local rc=0 t0=$SECONDS
  if [ -n "$cap" ]; then GPU_STUDIES_DEVICE_MEMORY_LIMIT=$cap timeout 600 "$@" > "$last" 2>&1 || rc=$?
  else timeout 600 "$@" > "$last" 2>&1 || rc=$?; fi
  if [ "$rc" = 0 ] || [ "$rc" -ge 124 ]; then bad "$name: exit $rc, expected a refusal" "$(tail -5 "$last")"; return 1; fi
  local w
  for w in "of device memory" "${wants[@]}"; do
    grep -qF -- "$w" "$last" || { bad "$name: the refusal does not say '$w'" "$(message "$last")"; return 1; }
  done
  ok "$name: refused in $((SECONDS - t0)) s, exit $rc: $(message "$last")"
}
# expect_success NAME CAP OUTFILE COMMAND...: exits 0; its standard output in OUTFILE.
expect_success() {
  local name=$1 cap=$2 file=$3; shift 3
  local rc=0
  if [ -n "$cap" ]; then GPU_STUDIES_DEVICE_MEMORY_LIMIT=$cap timeout 900 "$@" > "$file" 2> "$file.err" || rc=$?
  else timeout 900 "$@" > "$file" 2> "$file.err" || rc=$?; fi
  [ "$rc" = 0 ] || { bad "$name: exit $rc" "$(tail -5 "$file.err")"; return 1; }
  ok "$name"
}
# same_json NAME A B: the results of two `mwsep run --json` are the same doubles, bit for bit.
same_json() {
  local diff
  diff=$(python3 - "$2" "$3" <<'PY'
import json, struct, sys
keys = ["likelihood", "background_integral", "stream_integrals", "background_likelihood", "stream_only_likelihoods",
        "zero_probability_stars"]
a, b = (json.load(open(p)) for p in sys.argv[1:3])
bits = lambda v: [struct.pack("<d", x) for x in v] if isinstance(v, list) else struct.pack("<d", v)
print("; ".join(f"{k}: {a[k]} != {b[k]}" for k in keys if bits(a[k]) != bits(b[k])))
PY
)
  [ -z "$diff" ] && ok "$1" || bad "$1" "$diff"
}
# The fit's result lines without the wall time (the integral cache's account is the same for the same fit).
fit_result() { sed -E 's/, [0-9.]+ s( \(stopped early.*\))?$//' "$1"; }

# The commit as the runner measures it (experiments/harness/provenance.py: git, or the source manifest of a copy).
state=$(cd "$src" && python3 -c 'from experiments.harness import provenance as p; c, d = p.git_state(); print(c[:12] + (" (sources differ from it)" if d else ""))' 2> /dev/null || echo unknown)
say "GPU-pressure tests: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $state"
say "$probe"
(cd "$src" && python3 - "$out/provenance.json") <<'PY'
import json, pathlib, sys
from experiments.harness import provenance  # run from the checkout's root
commit, dirty = provenance.git_state()
data = {"command": "tests/gpu_pressure/run.sh BUILD OUT", "date_utc": provenance.now_utc(), "git_commit": commit,
        "git_dirty": dirty, "gpus": provenance.gpus()}
pathlib.Path(sys.argv[1]).write_text(json.dumps(data, indent=1) + "\n")
PY

# ---- the mwsep that fits ---------------------------------------------------------------------------------
fitbin=$mwsep fitgtest=$build/tests/mwsep/mwsep_fit_gpu_tests
if [ -n "${FIT_BUNDLE:-}" ]; then
  bundle=$(cd "$FIT_BUNDLE" && pwd) || { echo "FIT_BUNDLE=$FIT_BUNDLE is not a folder" >&2; exit 2; }
  # The bundle's libraries for its programs alone (pagmo2, Boost, NLopt, TBB), as experiments/fit_host.sh does.
  for p in mwsep mwsep_fit_gpu_tests; do
    printf '#!/bin/sh\nLD_LIBRARY_PATH="%s/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s/bin/%s" "$@"\n' \
      "$bundle" "$bundle" "$p" > "$work/bundle-$p"
    chmod +x "$work/bundle-$p"
  done
  fitbin=$work/bundle-mwsep fitgtest=$work/bundle-mwsep_fit_gpu_tests
  # Its GPU tests read the work units under the path of the checkout it was built in.
  if [ -f "$bundle/source_dir" ]; then
    built_in=$(cat "$bundle/source_dir")
    [ -e "$built_in" ] || { mkdir -p "$(dirname "$built_in")" && ln -s "$src" "$built_in"; }
  fi
fi
have_fit=0
"$fitbin" fit --help 2>&1 | grep -- "--devices" > /dev/null && have_fit=1  # grep -q could end the pipe early: SIGPIPE, a failure under pipefail
[ "$have_fit" = 1 ] || say "note: $fitbin has no fit command (give FIT_BUNDLE=.device-input/fit from tools/fit_bundle.sh): the fit's checks are skipped"

# ---- inputs ---------------------------------------------------------------------------------------------
tiny=$src/data/workunits/tiny/astronomy_parameters.txt
small=$src/data/workunits/3s-small/astronomy_parameters.txt
cd "$work" || exit 1
"$mwsep" generate -a "$tiny" -o tiny.txt --count 4000 --seed 9 2> /dev/null || { bad "generate the tiny catalogue"; exit 1; }
"$mwsep" generate -a "$small" -o small.txt --count 20000 --seed 1 2> /dev/null || { bad "generate the 3s-small catalogue"; exit 1; }
"$mwsep" generate -a "$tiny" -o many.txt --count 1000000 --seed 5 2> /dev/null || { bad "generate a catalogue of 10^6 stars"; exit 1; }
# The tiny unit with a grid of 2000 x 500 cells instead of 40 x 8.
sed 's/^mu\[min,max,steps\]: 133, 249, 40$/mu[min,max,steps]: 133, 249, 2000/; s/^nu\[min,max,steps\]: -1.25, 1.25, 8$/nu[min,max,steps]: -1.25, 1.25, 500/' \
  "$tiny" > wide.txt
grep -q 'steps\]: 133, 249, 2000' wide.txt || { bad "make the wide unit"; exit 1; }
variants=(shared-fast-unrolled-f64 modern-f64 modern-f32 compressed-f64)

say ""
say "== A. Refusals under the test hook's cap (GPU_STUDIES_DEVICE_MEMORY_LIMIT) =="
for v in "${variants[@]}"; do
  run=("$mwsep" run -a "$small" -s small.txt --backend cuda --device 0 --variant "$v")
  expect_refusal "mwsep run 3s-small $v, cap 1 byte" 1 "evaluating with $v" "device 0 (" \
    "capped by the test hook GPU_STUDIES_DEVICE_MEMORY_LIMIT" -- "${run[@]}" || continue
  n=$(needed_of "$last")
  [ -n "$n" ] || { bad "the refusal of $v names no byte count" "$(message "$last")"; continue; }
  expect_refusal "mwsep run 3s-small $v, cap one byte below the $n bytes it needs" $((n - 1)) "($((n - 1)) bytes) free of" -- "${run[@]}"
  expect_success "mwsep run 3s-small $v, cap of exactly the $n bytes it needs: runs" "$n" capped.json "${run[@]}" --json
  if expect_success "mwsep run 3s-small $v without a cap" "" uncapped.json "${run[@]}" --json; then
    read -r ib sb < <(python3 -c "import json,sys; m=json.load(open('uncapped.json'))['device_memory']; print(m['integral_bytes'], m['star_bytes'])")
    if [ "$ib" -le "$n" ] && [ "$sb" -le "$n" ]; then
      ok "$v takes what the check counts at most: the device's free memory dropped by $ib bytes (integral) and $sb bytes (stars); the check counted $n bytes, reserve included"
    else
      bad "$v took more than the check counted: integral $ib, stars $sb bytes, counted $n"
    fi
    same_json "the capped run of $v gives the uncapped run's result" capped.json uncapped.json
  fi
done
expect_refusal "mwsep run, a grid of 2000 x 500 cells under a cap of 96 MiB" 96MiB "while the integral runs" \
  "capped by the test hook" -- "$mwsep" run -a wide.txt -s tiny.txt --backend cuda --device 0 --variant modern-f64
grep -qE "largest parts: (cell directions|per-cell results)" "$last" && ok "the wide grid's refusal names the per-cell arrays" \
  || bad "the wide grid's refusal does not name the per-cell arrays" "$(message "$last")"
expect_refusal "mwsep run, 10^6 stars under a cap of 96 MiB" 96MiB "while the likelihood runs" "the star table" \
  -- "$mwsep" run -a "$tiny" -s many.txt --backend cuda --device 0 --variant modern-f64
expect_refusal "mwsep bench, refused before its CPU check value" 1 "evaluating with modern-f64" \
  -- "$mwsep" bench -a "$small" -s small.txt --variants modern-f64 --csv bench.csv
grep -q "CPU check value" "$last" && bad "mwsep bench computed its CPU check value before the refusal"
fit=(fit -a "$tiny" -s tiny.txt --box 0.05 --algorithm de --population 6 --generations 2 --polish 10 --no-uncertainties --seed 2)
if [ "$have_fit" = 1 ]; then
  expect_refusal "mwsep fit on the GPU, refused before its first evaluation" 1 "fitting with modern-f64" "stars, resident on the device" \
    -- "$fitbin" "${fit[@]}" --backend cuda --devices 0
  grep -qE "^generation|start L" "$last" && bad "mwsep fit evaluated before the refusal" "$(head -3 "$last")"
  expect_refusal "mwsep fit of a compressed fit also plans its exact re-evaluation" 1 "then its optimum evaluated with modern-f64" \
    -- "$fitbin" "${fit[@]}" --backend cuda --devices 0 --integrator compressed
  if expect_success "mwsep fit --backend auto under the cap falls back to the CPU" 1 autofit.txt "$fitbin" "${fit[@]}" --backend auto --quiet; then
    grep -q "not on a GPU (fitting with modern-f64" autofit.txt.err && ok "the fallback says why: $(head -c 300 autofit.txt.err)" \
      || bad "the fallback does not say why" "$(cat autofit.txt.err)"
  fi
else
  skip "mwsep fit under the cap (no fit in this build)"
fi
mri=$("$kirk" variants 2> /dev/null | awk '$2 == "mri-q" {print $1; exit}')
dcs=$("$kirk" variants 2> /dev/null | awk '$2 == "coulomb" {print $1; exit}')
expect_refusal "kirk_hwu bench (MRI-Q and Coulomb)" 1 "kirk_hwu bench at size small" \
  -- "$kirk" bench --variants "$mri,$dcs" --size small --max-samples 3
expect_refusal "kirk_hwu rates" 1 "the rate kernel's output" -- "$kirk" rates --max-samples 5
expect_refusal "kirk_hwu reconstruct on the GPU" 1 "the GPU reconstruction" -- "$kirk" reconstruct --backend cuda --size tiny
expect_refusal "munch bench (convolution)" 1 "munch bench (convolution" -- "$munch" bench --signal 100000 --filter 999 --csv m1.csv
expect_refusal "munch bench (rolling ball)" 1 "munch bench (rolling-ball" \
  -- "$munch" bench --computation rolling-ball --signal 100000 --filter 999 --csv m2.csv
expect_refusal "munch matmul" 1 "munch matmul on the GPU" -- "$munch" matmul --variants sdk-tiled-16 --sizes 256 --csv m3.csv
expect_refusal "munch copy" 1 "munch copy" -- "$munch" copy --max-bytes 1048576 --csv m4.csv
expect_refusal "munch roofline" 1 "munch roofline" -- "$munch" roofline --csv m5.csv
expect_refusal "munch ieee" 1 "munch ieee" -- "$munch" ieee --count 65536 --csv m6.csv
gemm=$("$ryoo" variants --names | awk '$1 == "gemm" {print $2; exit}')
expect_refusal "ryoo bench" 1 "ryoo bench at n = 1024" -- "$ryoo" bench --variants "$gemm" --n 1024
expect_refusal "ryoo stream" 1 "ryoo stream" -- "$ryoo" stream --count 1048576
expect_refusal "ryoo profile" 1 "ryoo profile at n = 1024" -- "$ryoo" profile --variants "$gemm" --n 1024
rc=0
GPU_STUDIES_DEVICE_MEMORY_LIMIT=plenty "$mwsep" run -a "$tiny" -s tiny.txt --backend cuda --device 0 > "$last" 2>&1 || rc=$?
[ "$rc" != 0 ] && [ "$rc" -lt 124 ] && grep -qF "GPU_STUDIES_DEVICE_MEMORY_LIMIT='plenty': expected a size" "$last" \
  && ok "a malformed cap is refused: $(message "$last")" || bad "a malformed cap: exit $rc" "$(cat "$last")"

say ""
say "== C. Several processes on device 0 at once =="
for v in shared-fast-unrolled-f64 modern-f64 compressed-f64; do
  expect_success "one mwsep run of 3s-small with $v alone" "" "one-$v.json" \
    "$mwsep" run -a "$small" -s small.txt --backend cuda --device 0 --variant "$v" --json
done
fitc=("$fitbin" fit -a "$tiny" -s tiny.txt --box 0.05 --backend cuda --devices 0 --algorithm de --population 8 --generations 4
      --polish 30 --no-uncertainties --seed 3 --quiet)
[ "$have_fit" = 1 ] && expect_success "one mwsep fit on the GPU alone" "" one-fit.txt "${fitc[@]}"
# Everything at once: 4 runs of each variant, 2 checkpointed runs, 2 fits.
pids=()
for v in shared-fast-unrolled-f64 modern-f64 compressed-f64; do
  for k in 1 2 3 4; do
    "$mwsep" run -a "$small" -s small.txt --backend cuda --device 0 --variant "$v" --json > "many-$v-$k.json" 2> "many-$v-$k.err" &
    pids+=($!)
  done
done
for k in 1 2; do
  "$mwsep" run -a "$small" -s small.txt --backend cuda --device 0 --variant modern-f64 --checkpoint "ck$k.ckpt" \
    --checkpoint-interval 0 --json > "ck-$k.json" 2> "ck-$k.err" &
  pids+=($!)
  if [ "$have_fit" = 1 ]; then
    "${fitc[@]}" > "fit-$k.txt" 2> "fit-$k.err" &
    pids+=($!)
  fi
done
codes=()
for p in "${pids[@]}"; do rc=0; wait "$p" || rc=$?; codes+=("$rc"); done
[ "$(printf '%s\n' "${codes[@]}" | sort -u)" = 0 ] && ok "${#pids[@]} processes on device 0 at once all exited 0" \
  || bad "not every concurrent process exited 0: exit codes ${codes[*]}" "$(tail -n 3 many-*.err ck-*.err fit-*.err 2> /dev/null)"
for v in shared-fast-unrolled-f64 modern-f64 compressed-f64; do
  for k in 1 2 3 4; do [ -s "many-$v-$k.json" ] && same_json "concurrent run $k of $v gives the single run's result" "one-$v.json" "many-$v-$k.json"; done
done
for k in 1 2; do
  [ -s "ck-$k.json" ] && same_json "concurrent checkpointed run $k gives the single run's result" one-modern-f64.json "ck-$k.json"
  [ ! -e "ck$k.ckpt" ] || bad "the checkpointed run $k left its checkpoint"
  if [ "$have_fit" != 1 ]; then skip "concurrent fit $k (no fit in this build)"
  elif cmp -s <(fit_result "fit-$k.txt") <(fit_result one-fit.txt); then ok "concurrent fit $k gives the single fit's result: $(head -1 one-fit.txt)"
  else bad "concurrent fit $k differs from the single fit" "$(diff <(fit_result "fit-$k.txt") <(fit_result one-fit.txt) | head -6)"; fi
done

say ""
say "== B. A device that is really full: another process holds all but a little of device 0's memory =="
start_holder() {
  "$hold" hold 0 "$1" 900 > holder.txt 2>&1 &
  holder=$!
  for _ in $(seq 1 240); do grep -q '^holding' holder.txt && break; kill -0 "$holder" 2> /dev/null || break; sleep 0.5; done
  grep -q '^holding' holder.txt
}
stop_holder() { [ -n "$holder" ] && kill "$holder" 2> /dev/null; wait "$holder" 2> /dev/null; holder=; }
leave=$((1 << 30))
if ! start_holder "$leave"; then
  bad "the holding process did not take the device's memory" "$(cat holder.txt)"
else
  say "     $(cat holder.txt)"
  # What this program sees free beside the holder (its own context created): the device's report, read
  # through a refusal under a cap of one byte.
  expect_refusal "mwsep run beside the holder, cap 1 byte (to read what it sees free)" 1 -- \
    "$mwsep" run -a "$tiny" -s tiny.txt --backend cuda --device 0 --variant modern-f64
  seen=$(reported_of "$last")
  tiny_needs=$(needed_of "$last")
  if [ -n "$seen" ] && [ -n "$tiny_needs" ] && [ "$seen" -lt $((tiny_needs + (128 << 20))) ]; then
    stop_holder
    leave=$((leave + tiny_needs + (256 << 20) - seen))
    start_holder "$leave" && say "     $(cat holder.txt)"
    expect_refusal "mwsep run beside the holder, cap 1 byte (again)" 1 -- \
      "$mwsep" run -a "$tiny" -s tiny.txt --backend cuda --device 0 --variant modern-f64
    seen=$(reported_of "$last")
  fi
  if [ -z "$seen" ] || [ "$seen" -gt $((16 << 30)) ]; then
    bad "the holder left too much free (this process sees '$seen' bytes)"
  else
    say "     this program sees $seen bytes free beside the holder; the tiny unit needs $tiny_needs"
    # A grid whose modern-f64 arrays (cell directions and results: 4 + 3 doubles per cell) exceed what is free.
    cells=$(( (seen + (512 << 20)) / 56 ))
    nu=$(( (cells + 3999) / 4000 ))
    sed "s/^mu\[min,max,steps\]: 133, 249, 40$/mu[min,max,steps]: 133, 249, 4000/; s/^nu\[min,max,steps\]: -1.25, 1.25, 8$/nu[min,max,steps]: -1.25, 1.25, $nu/" \
      "$tiny" > big.txt
    expect_refusal "mwsep run of a 4000 x $nu grid on the full device (no cap)" "" "in use by this and other processes" \
      "evaluating with modern-f64" -- "$mwsep" run -a big.txt -s tiny.txt --backend cuda --device 0 --variant modern-f64
    grep -q "capped" "$last" && bad "the refusal on the full device mentions the cap"
    if [ "$have_fit" = 1 ]; then
      expect_refusal "mwsep fit of the same grid on the full device (no cap)" "" "fitting with modern-f64" \
        -- "$fitbin" fit -a big.txt -s tiny.txt --box 0.05 --backend cuda --devices 0 --algorithm de --population 6 \
           --generations 1 --polish 0 --no-uncertainties
    else
      skip "mwsep fit on the full device (no fit in this build)"
    fi
    expect_success "mwsep run of the tiny unit still runs on the full device" "" full-tiny.json \
      "$mwsep" run -a "$tiny" -s tiny.txt --backend cuda --device 0 --variant modern-f64 --json
  fi
  stop_holder
  expect_success "mwsep run of the tiny unit with the device to itself" "" alone-tiny.json \
    "$mwsep" run -a "$tiny" -s tiny.txt --backend cuda --device 0 --variant modern-f64 --json
  [ -s full-tiny.json ] && [ -s alone-tiny.json ] && same_json "the run beside the holder gives the one alone's result" alone-tiny.json full-tiny.json
fi

say ""
say "== D. A CUDA error injected into a GPU fit =="
if [ "$have_fit" != 1 ]; then
  skip "the injected fault of a GPU fit (no fit in this build)"
elif bash "$src/tests/mwsep/test_fit_fault.sh" "$fitbin" "$work/fault" cuda > fault.txt 2>&1; then
  ok "test_fit_fault.sh cuda: $(tail -1 fault.txt)"
  sed 's/^/     /' fault.txt | head -n -1 | tee -a "$log"
else
  bad "test_fit_fault.sh cuda" "$(tail -15 fault.txt)"
fi

say ""
say "== E. Each variant's plan against what it allocates (GoogleTest, GPU) =="
gtest=$build/tests/mwsep/mwsep_gpu_tests
if [ -x "$gtest" ]; then
  if "$gtest" --gtest_filter='GpuMemory.*' > gtest.txt 2>&1; then ok "mwsep_gpu_tests GpuMemory.*: $(grep -c '^\[       OK \]' gtest.txt) tests passed"
  else bad "mwsep_gpu_tests GpuMemory.*" "$(grep -E 'FAILED|Failure|error' gtest.txt | head -10)"; fi
  grep -E '^(  )?[a-z0-9-]+ +planned' gtest.txt | sed 's/^/     /' | tee -a "$log"
fi
if [ -x "$fitgtest" ] && [ "$have_fit" = 1 ]; then
  if "$fitgtest" --gtest_filter='*Memory*' > fitgtest.txt 2>&1; then ok "mwsep_fit_gpu_tests *Memory*: $(grep -c '^\[       OK \]' fitgtest.txt) tests passed"
  else bad "mwsep_fit_gpu_tests *Memory*" "$(grep -E 'FAILED|Failure|error' fitgtest.txt | head -10)"; fi
fi

say ""
say "$passes checks passed, $failures failed, $skips skipped"
[ "$failures" = 0 ]
