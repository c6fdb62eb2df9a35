#!/usr/bin/env bash
# The compressed line-of-sight quadrature (compressed-f64 and `--cpu compressed`) on one GPU host, in one
# call: build, GPU correctness of compressed-f64 on every unit, the large units' integrals and likelihoods
# against modern-f64, GPU timings of both variants on the stripe-11 model and 3s-large, and the CPU
# compressed integrator against the fast exact one on 3s-large on the host's cores.
#   experiments/device/compressed_check.sh OUT
# The stripe-11 model is the committed unit data/workunits/stripe11-large ($STRIPE11 names another file); its
# stars are the committed tests/data/oracle/stars/stars-11.txt. The recorded results come from the runner's
# definitions compressed_* (docs/mwsep/compressed.md); this script is a quick look outside it.
# Writes into OUT: build.log, gpu_tests.log, gpu_correctness.csv, run_<unit>_<engine>.json, large_units.csv,
# bench_<unit>.csv (+ .log), cpu_3s-large_<integrator>.json, summary.txt.
set -euo pipefail
out="${1:?usage: experiments/device/compressed_check.sh OUT}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
build="${BUILD:-build-gpu}"
stripe11="${STRIPE11:-data/workunits/stripe11-large/astronomy_parameters.txt}"
[ -f "$stripe11" ] || { echo "missing the stripe-11 model: $stripe11 (set STRIPE11)" >&2; exit 2; }
source experiments/gpu_host_env.sh  # PATH, git_state, sysroot, the arrays gtest and generator
t0=$SECONDS
if ! { cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${gtest[@]}" &&
       cmake --build "$build" -j "$(nproc)" --target mwsep mwsep_gpu_tests; } > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"; exit 1
fi
echo "build: $((SECONDS - t0)) s" | tee "$out/summary.txt"
mwsep="$build/mwsep"
gpu_tests="$(find "$build" -name mwsep_gpu_tests -type f -perm -u+x | head -1)"

# 1. GPU correctness: compressed-f64 against the CPU on tiny, 2s-small, 3s-small and every oracle case
#    (tolerance 1e-12 on integrals and likelihood), and the error tests every variant must pass.
MWSEP_GPU_RESULTS="$out" "$gpu_tests" --gtest_filter='All/GpuVariant.MatchesCpu/compressed*:GpuErrors.*:GpuResources.*' \
  > "$out/gpu_tests.log" 2>&1 || { tail -30 "$out/gpu_tests.log"; echo "GPU tests FAILED" | tee -a "$out/summary.txt"; }
grep -E "PASSED|FAILED" "$out/gpu_tests.log" | tail -3 | tee -a "$out/summary.txt"

# 2. The large units: compressed-f64 against modern-f64 on the same GPU (every integral and the likelihood).
mkdir -p data/stars
declare -A wu=([stripe11]="$stripe11" [3s-large]=data/workunits/3s-large/astronomy_parameters.txt
               [2s-large]=data/workunits/2s-large/astronomy_parameters.txt)
declare -A st=([stripe11]=tests/data/oracle/stars/stars-11.txt [3s-large]=data/stars/3s-large.txt
               [2s-large]=data/stars/2s-large.txt)
for u in 3s-large 2s-large; do
  [ -f "${st[$u]}" ] || "$mwsep" generate -a "${wu[$u]}" -o "${st[$u]}" > /dev/null
done
for u in stripe11 3s-large 2s-large; do
  for v in modern-f64 compressed-f64; do
    "$mwsep" run -a "${wu[$u]}" -s "${st[$u]}" --backend cuda --variant "$v" --json > "$out/run_${u}_${v}.json"
  done
done
python3 - "$out" <<'PY' | tee -a "$out/summary.txt"
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
rows = ["work_unit,component,modern_f64,compressed_f64,rel_diff,stated_error,fallback_cells,cells,pass"]
ok = True
for u in ["stripe11", "3s-large", "2s-large"]:
    m = json.loads((out / f"run_{u}_modern-f64.json").read_text())
    c = json.loads((out / f"run_{u}_compressed-f64.json").read_text())
    ctl = c["controller"]
    comps = [("background", m["background_integral"], c["background_integral"])] + \
            [(f"stream{i+1}", a, b) for i, (a, b) in enumerate(zip(m["stream_integrals"], c["stream_integrals"]))]
    for k, (name, a, b) in enumerate(comps):
        d = abs(b - a) / abs(a)
        good = d <= 1e-12
        ok &= good
        rows.append(f"{u},{name},{a!r},{b!r},{d:.3e},{ctl['stated_relative_error'][k]:.3e},{int(ctl['fallback_cells'][k])},{int(ctl['cells'][k])},{str(good).lower()}")
    d = abs(c["likelihood"] - m["likelihood"]) / abs(m["likelihood"])
    ok &= d <= 1e-12
    rows.append(f"{u},likelihood,{m['likelihood']!r},{c['likelihood']!r},{d:.3e},,,,{str(d <= 1e-12).lower()}")
    print(f"{u}: integral modern-f64 {m['timings']['integral']*1e3:.2f} ms, compressed-f64 {c['timings']['integral']*1e3:.3f} ms "
          f"(rules of up to {int(ctl['rule_nodes'][-1])} nodes built in {ctl['rule_seconds']:.2f} s, {int(ctl['fallbacks'])} fallbacks "
          f"{[int(f) for f in ctl['fallback_cells']]}); likelihood rel diff {d:.2e}")
(out / "large_units.csv").write_text("\n".join(rows) + "\n")
print("large units within 1e-12 of modern-f64:", "yes" if ok else "NO")
PY

# 3. GPU timings (mwsep bench: integral + likelihood kernels, checked against modern-f64's likelihood).
for u in stripe11 3s-large; do
  expect=$(python3 -c "import json,sys; print(repr(json.load(open(sys.argv[1]))['likelihood']))" "$out/run_${u}_modern-f64.json")
  "$mwsep" bench -a "${wu[$u]}" -s "${st[$u]}" --variants modern-f64,compressed-f64 --expect "$expect" \
    --time-limit 10 --min-samples 10 --work-unit "$u" --experiment compressed_check --csv "$out/bench_${u}.csv" \
    > "$out/bench_${u}.log" 2>&1 || echo "bench on $u reported invalid runs" | tee -a "$out/summary.txt"
  cat "$out/bench_${u}.log" | tee -a "$out/summary.txt"
done

# 4. CPU: one evaluation of 3s-large, compressed against the fast exact integrator on every core.
for i in compressed fast; do
  "$mwsep" run -a "${wu[3s-large]}" -s "${st[3s-large]}" --cpu "$i" --json > "$out/cpu_3s-large_${i}.json"
done
python3 - "$out" <<'PY' | tee -a "$out/summary.txt"
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
f = json.loads((out / "cpu_3s-large_fast.json").read_text())
c = json.loads((out / "cpu_3s-large_compressed.json").read_text())
rule = c["controller"]["rule_seconds"]
tf, tc = f["timings"]["integral"], c["timings"]["integral"]
diffs = [abs(c["background_integral"] - f["background_integral"]) / f["background_integral"]] + \
        [abs(a - b) / b for a, b in zip(c["stream_integrals"], f["stream_integrals"])]
print(f"CPU 3s-large on {f['settings']['threads']} threads ({f['settings']['device']}): fast {tf:.2f} s, compressed {tc:.3f} s "
      f"of which rules {rule:.3f} s: {tf/tc:.1f}x with the rules built, {tf/(tc-rule):.1f}x with them cached; "
      f"largest integral rel diff {max(diffs):.2e}")
PY
echo "total: $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
