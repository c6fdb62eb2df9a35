#!/usr/bin/env bash
# The small inputs timed cold and warm, recorded through the runner (every file with its provenance):
#   experiments/device/cold_warm.sh OUT [build|run|all]
# (build: only the build, for a first call within a per-command time limit; run: the build is up to date, or
# rebuilt incrementally, and the experiments run; all, the default: both)
# builds this tree in $BUILD (default build-gpu, kept between calls) and records, under OUT/<study>/,
#   munch     convolution_cold_warm  the 1e5-sample convolution (tiled kernels and cuFFT, filters 9 to 999)
#             copy_cold_warm         the 1 KiB to 4 MiB end of the copy-bandwidth curve
#   kirk_hwu  mri_cold_warm          the first and last MRI steps on the small input
#   mwsep     cold_warm              the first and the final variant on the tiny unit and 3s-small
# each warm and cold (`cache` in the definitions: --cold flushes the L2 before every sample). The four together
# take under three minutes of timing on an H100, after the build. OUT is the runner's results folder (its
# --out: manifest.json and one folder per study): a fresh folder, or a copy of the committed
# experiments/results/<gpu>, to which the runner adds these experiments (their files, provenance and
# manifest entries) beside the older ones; that copy, brought back, gives the report its cold/warm tables.
# Then the folder is checked (tools/check_results.py's rules) and compared with itself (experiments/compare.py:
# every configuration agrees with itself, the cold and warm rows kept apart by the `cache` key), the verdicts
# in OUT.self_compare.md.
set -euo pipefail
out="${1:?usage: experiments/device/cold_warm.sh OUT [build|run|all]}"
phase="${2:-all}"
case "$phase" in build|run|all) ;; *) echo "cold_warm: phase must be build, run or all, not '$phase'"; exit 2;; esac
names=convolution_cold_warm,copy_cold_warm,mri_cold_warm,cold_warm
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if [ "$phase" = build ]; then BUILD_ONLY=1 exec experiments/gpu_host.sh "$out"; fi
t0=$SECONDS
status=0
experiments/gpu_host.sh "$out" --only "$names" || status=$?
echo "cold_warm: the runner exited $status after $((SECONDS - t0)) s"
# The folder as tools/check_results.py checks every committed one, then against itself.
python3 - "$out" <<'PY' || status=1
import pathlib, sys
from tools import check_results  # run from the checkout's root
errors, count = check_results.check_folder(pathlib.Path(sys.argv[1]))
print("\n".join(errors) or f"check_results: {count} files, no error")
sys.exit(1 if errors else 0)
PY
python3 experiments/compare.py "$out" "$out" --out "$out.self_compare.md" || status=1
exit $status
