#!/usr/bin/env bash
# mwsep fit on the command line: the report carries the likelihood of the --truth vector, the start's when
# the truth is the start (the same vector through the same evaluator), and one entry per polish, from the
# global best and, unless that is the start, from the start, whose evaluations add up to the polish's. Usage: test_fit_cli.sh MWSEP WORKDIR
set -euo pipefail
mwsep=$1 dir=$2
wu=$(cd "$(dirname "$0")/../../data/workunits/tiny" && pwd)/astronomy_parameters.txt
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
"$mwsep" generate -a "$wu" -o stars.txt --count 400 --seed 9 --threads 1 > /dev/null
# The unit's own vector with stream 1's weight moved by +1.5, written as a search-parameters file.
"$mwsep" fit -a "$wu" --print-vector > vector.txt
{ echo start; printf 'parameters [%s]:' "$(wc -l < vector.txt)"; awk '{printf " %s", $2 + (NR == 3 ? 1.5 : 0)}' vector.txt; echo; } > start.txt
fit=(fit -a "$wu" -s stars.txt --search-parameters start.txt --truth start.txt --box 0.05 --backend cpu --threads 1
     --algorithm de --population 6 --generations 1 --polish 25 --no-uncertainties --seed 2 --quiet)
"$mwsep" "${fit[@]}" --report report.json > fit.log
value() { grep -E "^ *\"$1\": " report.json | head -1 | sed -E 's/.*: ([^,]*),?$/\1/'; }
[ "$(value truth_likelihood)" = "$(value start_likelihood)" ] || { echo "truth L $(value truth_likelihood) != start L $(value start_likelihood)"; exit 1; }
# A second polish starts from the start vector unless the global search's best is the start itself.
want=2; [ "$(value global_likelihood)" = "$(value start_likelihood)" ] && want=1
[ "$(grep -c -E '"(global best|start)": \{' report.json)" = "$want" ] || { echo "expected $want polishes"; cat report.json; exit 1; }
grep -q '"global best": {' report.json
sum=$(grep -A3 -E '"(global best|start)": \{' report.json | grep '"evaluations"' | sed -E 's/[^0-9]//g' | paste -sd+ | bc)
[ "$sum" = "$(value polish_evaluations)" ] || { echo "polish evaluations $sum != $(value polish_evaluations)"; exit 1; }
grep -q 'polish from the global best' fit.log
# Without the second polish there is one entry.
"$mwsep" "${fit[@]}" --no-polish-from-start --report one.json > /dev/null
[ "$(grep -c -E '"(global best|start)": \{' one.json)" = 1 ]
echo "the report carries the truth's likelihood and both polishes"
