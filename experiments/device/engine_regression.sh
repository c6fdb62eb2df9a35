#!/usr/bin/env bash
# Before and after the measurement engine at the sizes the committed experiments time (kirk_hwu's MRI
# ladder at medium, its Coulomb ladder at full (their committed variants), ryoo's ladder at n = 4096), with the noise of the
# measurement itself beside it (with ROUNDS >= 2): rounds alternating the base build (083e5ca) and this build, the same
# fixed sample counts, throttled samples kept; ROUNDS rounds (default 1: on an H100 one round of the two
# builds takes about 170 s). Needs the two builds of engine_check.sh (its `build` phase).
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
for round in $(seq 1 "${ROUNDS:-1}"); do
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
python3 experiments/device/engine_regression_summary.py "$out"
