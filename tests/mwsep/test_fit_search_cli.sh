#!/usr/bin/env bash
# mwsep fit --algorithm cgd|line|async-ga on the command line: options an algorithm would ignore are refused before
# any work; the asynchronous genetic search with simulated late and lost results, stopped after two rounds and
# resumed from its checkpoint, writes the same best vector and progress as the uninterrupted run, and the same
# seed the same fit; each method writes its progress (one row per generation, its name in the algorithm column);
# a compressed fit with --reference reports the reference's likelihood by the exact sum beside the optimum's, as
# printed. Usage: test_fit_search_cli.sh MWSEP WORKDIR
set -euo pipefail
mwsep=$1 dir=$2
wu=$(cd "$(dirname "$0")/../../data/workunits/tiny" && pwd)/astronomy_parameters.txt
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail() { echo "FAIL: $*"; exit 1; }
"$mwsep" generate -a "$wu" -o stars.txt --count 400 --seed 9 --threads 1 2> /dev/null
base=(fit -a "$wu" -s stars.txt --box 0.05 --backend cpu --threads 1 --polish 0 --no-uncertainties --seed 2 --quiet)
refuse() {  # refuse ARGS... -- MESSAGE: a usage error, exit status 2 (docs/cli.md)
  local args=() message out rc=0
  while [ "$1" != -- ]; do args+=("$1"); shift; done; message=$2
  out=$("$mwsep" "${args[@]}" 2>&1) || rc=$?
  [ "$rc" = 2 ] || fail "exit $rc for ${args[*]}: $out"
  grep -qF -- "$message" <<< "$out" || fail "'${args[*]}' printed '$out', expected '$message'"
}
refuse "${base[@]}" --algorithm cgd --population 6 -- "--population applies to no part of cgd"
refuse "${base[@]}" --algorithm cgd --late 0.2 -- "--late applies to --algorithm async-ga only"
refuse "${base[@]}" --algorithm de --gradient-step 1e-3 -- "--gradient-step applies to --algorithm cgd or line only"
refuse "${base[@]}" --algorithm line --gradient-step 0.5 -- "--gradient-step must lie in (0, 0.1]"
refuse "${base[@]}" --algorithm async-ga --late 0.6 --lost 0.6 -- "together must be at most 1"
refuse "${base[@]}" --algorithm async-ga --population 3 -- "must be at least 4 for async-ga"
refuse "${base[@]}" --algorithm line --population 2 -- "must be at least 3 for line"
refuse "${base[@]}" --algorithm async-ga --in-flight 0 -- "--in-flight"

ga=("${base[@]}" --algorithm async-ga --population 6 --in-flight 5 --late 0.3 --lost 0.1 --max-delay 2 --generations 5)
"$mwsep" "${ga[@]}" -o whole.txt --progress whole.csv > whole.log
"$mwsep" "${ga[@]}" -o again.txt > /dev/null
cmp whole.txt again.txt || fail "the same seed gave another fit"
"$mwsep" "${ga[@]}" --checkpoint ga.ckpt --stop-after 2 -o part.txt > part.log
[ -f ga.ckpt ] || fail "no checkpoint after a stopped fit"
grep -q "stopped early" part.log || fail "the stopped fit does not say so"
"$mwsep" "${ga[@]}" --checkpoint ga.ckpt --resume -o resumed.txt --progress resumed.csv > /dev/null
cmp whole.txt resumed.txt || fail "the resumed fit wrote another best vector"
cut -d, -f5-7 whole.csv > a.cols; cut -d, -f5-7 resumed.csv > b.cols
cmp a.cols b.cols || fail "the resumed fit's progress differs (generation, evaluations, best)"
[ ! -f ga.ckpt ] || fail "the completed fit left its checkpoint"

for a in cgd line async-ga; do
  extra=(); [ "$a" = cgd ] || extra=(--population 6)
  "$mwsep" "${base[@]}" --algorithm "$a" "${extra[@]}" --generations 3 --progress "$a.csv" > /dev/null
  rows=$(($(wc -l < "$a.csv") - 1))
  [ "$rows" -ge 2 ] && [ "$rows" -le 4 ] || fail "$a: $rows progress rows for 3 generations"
  [ "$(tail -n +2 "$a.csv" | cut -d, -f3 | sort -u)" = "$a" ] || fail "$a: the algorithm column is not '$a'"
done

# The compressed fit with a reference vector (the unit's own): the report holds the reference's likelihood by the
# compressed quadrature and by the exact sum, and the optimum's exact likelihood as printed.
"$mwsep" fit -a "$wu" --print-vector > vector.txt
{ echo mwh; printf 'parameters [%s]:' "$(wc -l < vector.txt)"; awk '{printf " %s", $2}' vector.txt; echo; } > reference.txt
"$mwsep" "${base[@]}" --algorithm cgd --generations 2 --integrator compressed --reference reference.txt \
  --report report.json > ref.log
value() { python3 -c "import json,sys; print(repr(json.load(open('report.json'))[sys.argv[1]]))" "$1"; }
printed=$(sed -nE 's/^likelihood at the optimum: compressed quadrature [^,]*, exact sum ([^ ]*) .*/\1/p' ref.log)
python3 - "$printed" "$(value exact_likelihood)" "$(value reference_exact_likelihood)" "$(value reference_likelihood)" <<'PY' || fail "report values"
import sys
printed, exact, ref_exact, ref = (float(v) for v in sys.argv[1:])
assert printed == exact, (printed, exact)
assert abs(ref_exact - ref) <= 1e-12 * abs(ref), (ref_exact, ref)  # the compressed quadrature's controlled error
PY
grep -q "likelihood of the reference (reference.txt): exact sum" ref.log || fail "the reference's line is missing"
grep -q '"reference_pull"' report.json || fail "no reference values per parameter"
echo "the thesis searches refuse what they would ignore, resume exactly and report the reference"
