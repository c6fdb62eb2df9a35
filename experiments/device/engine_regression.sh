#!/usr/bin/env bash
# Before and after the measurement engine at the sizes the committed experiments time (kirk_hwu's MRI
# ladder at medium, its Coulomb ladder at full (their committed variants), ryoo's ladder at n = 4096), with the noise of the
# measurement itself beside it: three rounds alternating the base build (083e5ca) and this build, the same
# fixed sample counts, throttled samples kept. Needs the two builds of engine_check.sh (its `build` phase).
#   experiments/device/engine_regression.sh OUT
# Writes OUT/reg_<program>_<base|new>.csv and OUT/engine_regression.csv: per configuration the median of
# every round of each build, the ratio after/before, and the largest ratio between two rounds of the same
# build (the spread a 2 % criterion has to be judged against).
set -euo pipefail
out="${1:?usage: experiments/device/engine_regression.sh OUT}"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
new="$PWD/${BUILD:-build-gpu}" old="$PWD/${BASE_BUILD:-build-base}/b"
mri="$(python3 -c "import json; print(','.join(json.load(open('experiments/definitions/kirk_hwu/mri_ladder.json'))['runs'][0]['variants']))")"
dcs="$(python3 -c "import json; print(','.join(json.load(open('experiments/definitions/kirk_hwu/coulomb_ladder.json'))['runs'][0]['variants']))")"
for round in 1 2 3; do
  for tag in base new; do
    b="$old"; keep=(); [ $tag = new ] && { b="$new"; keep=(--throttle keep); }
    "$b/kirk_hwu" bench --variants "$mri" --size medium --min-samples 20 --max-samples 20 --time-limit 60 "${keep[@]}" \
      --experiment "$tag$round" --csv "$out/reg_kirk_hwu_$tag.csv" > /dev/null
    "$b/kirk_hwu" bench --variants "$dcs" --size full --min-samples 20 --max-samples 20 --time-limit 60 "${keep[@]}" \
      --experiment "$tag$round" --csv "$out/reg_kirk_hwu_$tag.csv" > /dev/null
    opts=(--repeats 20 --time-limit 60); [ $tag = new ] && opts=(--min-samples 20 --max-samples 20 --time-limit 60 --throttle keep)
    "$b/ryoo" bench --variants all --n 4096 --experiment "$tag$round" "${opts[@]}" --csv "$out/reg_ryoo_$tag.csv" > /dev/null
  done
  echo "round $round done"
done
python3 - "$out" <<'PY'
import collections, csv, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
lines = ["program,configuration,before_rounds_ms,after_rounds_ms,median_before_ms,median_after_ms,ratio,within_2pct,round_spread"]
for prog, key, size, val in [("kirk_hwu", "variant", "size", "kernel_ms"), ("ryoo", "variant", "n", "kernel_ms")]:
    med = {}
    for tag in ("base", "new"):
        d = collections.defaultdict(lambda: collections.defaultdict(list))
        for r in csv.DictReader(open(out / f"reg_{prog}_{tag}.csv")):
            d[f"{r[key]}/{r[size]}"][r["experiment"]].append(float(r[val]))
        med[tag] = d
    worst = []
    for c in sorted(med["base"]):
        rb = [statistics.median(v) for v in med["base"][c].values()]
        rn = [statistics.median(v) for v in med["new"][c].values()]
        before = statistics.median([x for v in med["base"][c].values() for x in v])
        after = statistics.median([x for v in med["new"][c].values() for x in v])
        spread = max(max(rb) / min(rb), max(rn) / min(rn)) - 1
        ratio = after / before
        worst.append((abs(ratio - 1), spread, c))
        lines.append(f"{prog},{c},{';'.join(f'{x:.6g}' for x in rb)},{';'.join(f'{x:.6g}' for x in rn)},{before!r},{after!r},{ratio!r},{abs(ratio - 1) <= 0.02},{spread!r}")
    beyond = [w for w in worst if w[0] > 0.02]
    print(f"{prog:9s} {len(worst)} configurations, worst |after/before - 1| = {100 * max(worst)[0]:.2f} %, beyond 2 %: {len(beyond)}"
          f" (of which beyond their own round spread: {sum(1 for w in beyond if w[0] > w[1])})")
    for w in sorted(beyond, reverse=True)[:6]:
        print(f"    {w[2]}: {100 * w[0]:.2f} % (round spread {100 * w[1]:.2f} %)")
(out / "engine_regression.csv").write_text("\n".join(lines) + "\n")
PY
