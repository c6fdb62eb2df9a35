#!/usr/bin/env bash
# mwsep fit under MPI: the same fit as 1 process and as 2 and 4 ranks (each with one CPU thread) must write
# the same best vector, bit for bit, and the same report values; an input error under 2 ranks prints the
# program's own message and ends the job with a non-zero exit. Four ranks is the shape of a fit over the four
# GPUs of one host (one rank per GPU), and the path a run over several hosts takes (docs/mwsep/fitting.md).
# The population (6) is not a multiple of 4, so the 4-rank run also deals blocks of unequal size.
# Usage: test_fit_ranks.sh MWSEP MPIEXEC WORKDIR
set -euo pipefail
mwsep=$1 mpiexec=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
wu=$(dirname "$0")/../../data/workunits/tiny/astronomy_parameters.txt
"$mwsep" generate -a "$wu" -o stars.txt --count 500 --seed 5 --threads 1 > /dev/null
fit=(fit -a "$wu" -s stars.txt --box 0.05 --backend cpu --threads 1 --population 6 --generations 2 --polish 10
     --no-uncertainties --seed 3 --quiet)
"$mwsep" "${fit[@]}" -o one.txt --report one.json > one.log
# Every number of the reports but the times, the evaluator's description and its integral cache's account (one
# cache per process: how a batch is split decides which launches each makes, never a value) agrees.
strip() {
  sed -E '/"(hessian_)?integral_work": \{/,/\}/d' "$1" | grep -v -E 'seconds|per_second|"evaluator"|"ranks"|"command"' |
    grep -v -E '^\s*[-0-9.e]+,?$'
}
for n in 2 4; do
  # Open MPI refuses root without the flag, and a CI machine may have fewer slots than ranks.
  "$mpiexec" --allow-run-as-root --oversubscribe -np $n "$mwsep" "${fit[@]}" -o ranks$n.txt --report ranks$n.json > ranks$n.log
  cmp one.txt ranks$n.txt || { echo "$n ranks wrote another best vector than 1 process"; exit 1; }
  grep -q "\"ranks\": $n" ranks$n.json || { echo "the $n-rank report does not say $n ranks"; exit 1; }
  diff <(strip one.json) <(strip ranks$n.json) || { echo "the $n-rank report differs from 1 process's"; exit 1; }
done
# The asynchronous genetic search with simulated late and lost results: each round's individuals are one batch
# dealt over the ranks, so 2 ranks write the same fit as 1 process.
ga=(fit -a "$wu" -s stars.txt --box 0.05 --backend cpu --threads 1 --algorithm async-ga --population 6 --in-flight 5
    --late 0.3 --lost 0.1 --generations 3 --polish 0 --no-uncertainties --seed 3 --quiet)
"$mwsep" "${ga[@]}" -o ga_one.txt > /dev/null
"$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$mwsep" "${ga[@]}" -o ga_ranks.txt > /dev/null
cmp ga_one.txt ga_ranks.txt || { echo "the genetic search under 2 ranks wrote another best vector than 1 process"; exit 1; }
# The batched CMA-ES: each generation is one batch dealt over the ranks (6 candidates over 4 ranks: blocks of unequal
# size), so 4 ranks write the same fit as 1 process.
cma=(fit -a "$wu" -s stars.txt --box 0.05 --backend cpu --threads 1 --algorithm cmaes-batch --population 6
     --generations 3 --polish 0 --no-uncertainties --seed 3 --quiet)
"$mwsep" "${cma[@]}" -o cma_one.txt > /dev/null
"$mpiexec" --allow-run-as-root --oversubscribe -np 4 "$mwsep" "${cma[@]}" -o cma_ranks.txt > /dev/null
cmp cma_one.txt cma_ranks.txt || { echo "cmaes-batch under 4 ranks wrote another best vector than 1 process"; exit 1; }
# An input error after MPI start-up ends every rank with the program's own message and a non-zero exit.
rc=0
out=$("$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$mwsep" fit -a "$wu" -s missing.txt --box 0.05 --backend cpu \
      --threads 1 --population 6 --generations 2 --quiet 2>&1) || rc=$?
[ "$rc" != 0 ] || { echo "a missing catalogue under 2 ranks exited 0: $out"; exit 1; }
grep -q "missing.txt: cannot open" <<< "$out" || { echo "the program's message was lost under mpirun: $out"; exit 1; }
echo "1 process, 2 ranks and 4 ranks wrote the same fit (2 ranks the same genetic search, 4 ranks the same batched CMA-ES); an input error under 2 ranks keeps its message"
