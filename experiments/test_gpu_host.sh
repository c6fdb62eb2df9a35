#!/usr/bin/env bash
# On a GPU host: what the study layer needs checked on a real device, in one command.
#   experiments/test_gpu_host.sh OUT
# Builds as experiments/gpu_host.sh does (in $BUILD, default build-gpu), then writes into OUT:
#   device_facts.json  what the runner's provenance reads from each GPU (cudaDeviceGetAttribute)
#   test-gpu.json      `make test-gpu`: the GPU tests, one process per program, concurrently; wall time, counts
#   test-gpu-logs/     each program's output
#   results/           the ryoo study's listing and GPU correctness through the runner (provenance with the
#                      device facts), checked by tools/check_results.py (results-check.txt)
#   compare.md         that folder compared with the committed folder of the same GPU, if there is one
# Exit status: that of the GPU tests.
set -uo pipefail
out="${1:?usage: experiments/test_gpu_host.sh OUT}"
build="${BUILD:-build-gpu}"
mkdir -p "$out"
# Build, then two of the ryoo study's experiments through the runner (a minute).
bash experiments/gpu_host.sh "$out/results" --study ryoo --only variants,gpu_correctness > "$out/runner.log" 2>&1
echo "runner: exit $? (log $out/runner.log)"
python3 - "$out/device_facts.json" <<'PY'
import json, pathlib, sys
from experiments.harness import provenance  # run from the checkout's root
pathlib.Path(sys.argv[1]).write_text(json.dumps(provenance.gpus(), indent=1) + "\n")
print(open(sys.argv[1]).read())
PY
python3 tools/test_gpu.py "$build" --record "$out/test-gpu.json" --logs "$out/test-gpu-logs"
status=$?
mkdir -p "$out/check" && cp -r "$out/results" "$out/check/host"
python3 tools/check_results.py "$out/check" > "$out/results-check.txt" 2>&1; tail -3 "$out/results-check.txt"
rm -rf "$out/check"
slug=$(python3 -c "import json,re,sys; g=json.load(open(sys.argv[1])); print(re.sub(r'[^a-z0-9]+','-',g[0]['gpu_name'].lower()).strip('-') if g else '')" "$out/device_facts.json")
if [ -n "$slug" ] && [ -d "experiments/results/$slug" ]; then
  python3 experiments/compare.py "$out/results" "experiments/results/$slug" --out "$out/compare.md" > /dev/null
  echo "compare: exit $? ($out/compare.md)"
fi
exit $status
