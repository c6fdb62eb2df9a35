#!/usr/bin/env bash
# A fit whose evaluator fails in the middle of its search (the test hook GPU_STUDIES_FAIL_AFTER_EVALUATIONS,
# which stands for a CUDA error: harness/fault_injection.hpp) stops at once with a clear message and a
# failure's exit status (not a signal); its last checkpoint is left whole (no temporary file beside it, and
# the checkpoint reader accepts it: the resume reads it, checksum and all) and --resume finishes with the
# uninterrupted fit's result, bit for bit, for de, cmaes and cmaes-batch. With BACKEND cuda the failure is the GPU
# evaluator's CUDA error check.
# Usage: test_fit_fault.sh MWSEP WORKDIR [cpu|cuda]
set -euo pipefail
mwsep=$1 dir=$2 backend=${3:-cpu}
wu=$(cd "$(dirname "$0")/../../data/workunits/tiny" && pwd)/astronomy_parameters.txt
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail() { echo "FAIL ($backend): $*"; exit 1; }
"$mwsep" generate -a "$wu" -o stars.txt --count 400 --seed 9 --threads 1 2> /dev/null
if [ "$backend" = cpu ]; then
  B=(--backend cpu --threads 1)
  says="a failure injected by the test hook GPU_STUDIES_FAIL_AFTER_EVALUATIONS=27"
else
  B=(--backend cuda --devices 0)
  says="CUDA error while trying to launch the integral kernels (a failure injected by the test hook GPU_STUDIES_FAIL_AFTER_EVALUATIONS=27): cudaErrorLaunchFailure"
fi
# The result lines without the wall time at the end of the evaluations line, and without the integral
# cache's account (a resumed run's cache starts empty: it counts other reuses, for the same values).
result() { sed -E 's/, [0-9.]+ s( \(stopped early.*\))?$//' "$1" | grep -v '^integrals: '; }
for algorithm in de cmaes cmaes-batch; do
  F=(fit -a "$wu" -s stars.txt --box 0.05 "${B[@]}" --algorithm "$algorithm" --population 6 --generations 8 --polish 20
     --no-uncertainties --seed 2 --quiet)
  "$mwsep" "${F[@]}" > whole.txt
  # pagmo's de and cmaes: before the search's generations the start (1), the initial population (6) and the start
  # put into it (1); then 6 per generation. 27 allowed: generations 1 to 3 complete (8 + 3 x 6 = 26 evaluations),
  # the 28th, in generation 4, fails; the checkpoint holds generation 3. cmaes-batch: the start (1), then a batch
  # of 6 per generation: generations 1 to 4 complete (25), the 28th, in generation 5's batch, fails.
  saved=3
  [ "$algorithm" = cmaes-batch ] && saved=4
  rc=0
  GPU_STUDIES_FAIL_AFTER_EVALUATIONS=27 "$mwsep" "${F[@]}" --checkpoint f.ck > failed.txt 2> failed.err || rc=$?
  { [ "$rc" != 0 ] && [ "$rc" -lt 124 ]; } || fail "$algorithm: the failed fit exited with $rc: $(cat failed.err)"
  grep -qF -- "$says" failed.err || fail "$algorithm: the failure said: $(cat failed.err)"
  [ ! -s failed.txt ] || fail "$algorithm: the failed fit printed a result: $(cat failed.txt)"
  [ -s f.ck ] || fail "$algorithm: no checkpoint after the failure"
  head -1 f.ck | grep -qx "mwsep-fit-checkpoint 3" || fail "$algorithm: the checkpoint does not begin with its header"
  leftovers=$(find . -name '.f.ck.tmp.*' | wc -l)
  [ "$leftovers" = 0 ] || fail "$algorithm: $leftovers temporary checkpoint file(s) left behind"
  cp f.ck kept.ck
  "$mwsep" "${F[@]}" --checkpoint f.ck --resume --report resumed.json > resumed.txt
  grep -q "\"resumed_from\": $saved" resumed.json ||
    fail "$algorithm: the resume did not start from generation $saved: $(grep resumed_from resumed.json)"
  cmp <(result resumed.txt) <(result whole.txt) || { diff <(result resumed.txt) <(result whole.txt); fail "$algorithm: the resumed fit differs from the uninterrupted one"; }
  [ ! -e f.ck ] || fail "$algorithm: the completed fit left its checkpoint"
  echo "$algorithm: failed after 27 evaluations, resumed from generation $saved to the uninterrupted result: $(head -1 whole.txt)"
done
# A malformed hook is refused before any work.
rc=0
out=$(GPU_STUDIES_FAIL_AFTER_EVALUATIONS=soon "$mwsep" "${F[@]}" 2>&1) || rc=$?
[ "$rc" != 0 ] && [ "$rc" -lt 124 ] && grep -qF "GPU_STUDIES_FAIL_AFTER_EVALUATIONS='soon': expected a whole number" <<< "$out" ||
  fail "a malformed hook: exit $rc: $out"
echo "an injected fault leaves a whole checkpoint that resumes exactly ($backend)"
