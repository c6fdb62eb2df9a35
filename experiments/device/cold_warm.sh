#!/usr/bin/env bash
# The small inputs timed cold and warm, recorded through the runner (every file with its provenance):
#   experiments/device/cold_warm.sh OUT
# builds this tree in $BUILD (default build-gpu, kept between calls) and records, under OUT/<gpu>/<study>/,
#   munch     convolution_cold_warm  the 1e5-sample convolution (tiled kernels and cuFFT, filters 9 to 999)
#             copy_cold_warm         the 1 KiB to 4 MiB end of the copy-bandwidth curve
#   kirk_hwu  mri_cold_warm          the first and last MRI steps on the small input
#   mwsep     cold_warm              the first and the final variant on the tiny unit and 3s-small
# each warm and cold (`cache` in the definitions: --cold flushes the L2 before every sample). The four together
# take under three minutes of timing on an H100, after the build. Then the folder is checked
# (tools/check_results.py) and compared with itself (experiments/compare.py: every configuration agrees with
# itself, the cold and warm rows kept apart by the `cache` key). Copy OUT/<gpu>/<study>/*cold_warm* into
# experiments/results/<gpu>/<study>/ to give the report its cold/warm tables.
set -euo pipefail
out="${1:?usage: experiments/device/cold_warm.sh OUT}"
names=convolution_cold_warm,copy_cold_warm,mri_cold_warm,cold_warm
mkdir -p "$out"
out="$(cd "$out" && pwd)"
t0=$SECONDS
status=0
experiments/gpu_host.sh "$out" --only "$names" || status=$?
echo "cold_warm: the runner exited $status after $((SECONDS - t0)) s"
python3 tools/check_results.py "$out" || status=1
for folder in "$out"/*/; do
  [ -f "$folder/manifest.json" ] || continue
  python3 experiments/compare.py "$folder" "$folder" --out "$out/self_compare_$(basename "$folder").md" || status=1
done
exit $status
