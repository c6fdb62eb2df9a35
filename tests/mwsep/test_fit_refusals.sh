#!/usr/bin/env bash
# mwsep fit refuses, before any work, an output that is one of its inputs (by any name: the same path, ./,
# a symbolic or a hard link) or the file of another output, options it would ignore, a checkpoint of other
# inputs, bounds it cannot search and a start without a finite likelihood; it prints no NaN; a fit killed
# during its polish and resumed, and a finished fit run again, give the uninterrupted result; the progress
# file of a resumed fit keeps every generation. Usage: test_fit_refusals.sh MWSEP WORKDIR
set -euo pipefail
mwsep=$1 dir=$2
wu=$(cd "$(dirname "$0")/../../data/workunits/tiny" && pwd)/astronomy_parameters.txt
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail() { echo "FAIL: $*"; exit 1; }
"$mwsep" generate -a "$wu" -o stars.txt --count 400 --seed 9 --threads 1 2> /dev/null
cp "$wu" unit.txt
"$mwsep" fit -a unit.txt --print-vector > vector.txt
{ echo start; printf 'parameters [%s]:' "$(wc -l < vector.txt)"; awk '{printf " %s", $2}' vector.txt; echo; } > start.txt
G=(--box 0.05 --backend cpu --threads 1 --algorithm de --population 6 --polish 10 --no-uncertainties --seed 2 --quiet)
base=(fit -a unit.txt -s stars.txt --search-parameters start.txt --truth start.txt "${G[@]}" --generations 2)
sums() { md5sum unit.txt stars.txt start.txt; }
before=$(sums)

# refuse ARGS... -- MESSAGE: exit 2 (a usage error) or 3 (work that cannot be done; docs/cli.md) within a
# second, MESSAGE printed, every input unchanged.
refuse() {
  local args=() message
  while [ "$1" != -- ]; do args+=("$1"); shift; done; message=$2
  local out rc=0 t0=$SECONDS
  out=$("$mwsep" "${args[@]}" 2>&1) || rc=$?
  [ "$rc" = 2 ] || [ "$rc" = 3 ] || fail "exit $rc for ${args[*]}: $out"
  grep -qF -- "$message" <<< "$out" || fail "'${args[*]}' printed '$out', expected '$message'"
  [ $((SECONDS - t0)) -le 2 ] || fail "'${args[*]}' took $((SECONDS - t0)) s to refuse"
  [ "$(sums)" = "$before" ] || fail "'${args[*]}' changed an input"
}
ln -sf unit.txt link.txt; ln -f stars.txt hard.txt
for out in -o --report --progress --checkpoint; do
  refuse "${base[@]}" "$out" unit.txt -- "is the same file as the input 'unit.txt' (-a)"
  refuse "${base[@]}" "$out" ./stars.txt -- "is the same file as the input 'stars.txt' (-s)"
  refuse "${base[@]}" "$out" "$PWD/start.txt" -- "is the same file as the input 'start.txt' (--search-parameters)"
  refuse "${base[@]}" "$out" link.txt -- "is the same file as the input 'unit.txt' (-a)"
  refuse "${base[@]}" "$out" hard.txt -- "is the same file as the input 'stars.txt' (-s)"
done
cp start.txt truth.txt
refuse fit -a unit.txt -s stars.txt --truth truth.txt "${G[@]}" -o truth.txt -- "the input 'truth.txt' (--truth)"
refuse "${base[@]}" -o same.txt --report ./same.txt -- "--report: './same.txt' is the same file as the output of -o"
refuse "${base[@]}" --progress p.csv --checkpoint "$PWD/p.csv" -- "is the same file as the output of --progress"
[ ! -e same.txt ] && [ ! -e p.csv ] || fail "a refused fit wrote an output"
# Options that would be ignored, or work that cannot be resumed.
refuse "${base[@]}" --stop-after 1 -- "--stop-after needs --checkpoint FILE"
refuse "${base[@]}" --devices 0 -- "--devices applies to --backend cuda or auto only"
refuse "${base[@]}" --variant nonsense -- "--variant applies to --backend cuda or auto only"
refuse fit -a unit.txt -s stars.txt --box 0.05 --algorithm pso --checkpoint c.ck -- "--checkpoint needs another --algorithm than pso"
refuse fit -a unit.txt -s stars.txt --box 0.05 --algorithm cmaes --population 4 -- "--population must be at least 5 for cmaes"
refuse fit -a unit.txt -s stars.txt --box 0.05 --algorithm cmaes-batch --population 3 -- "--population must be at least 4 for cmaes-batch"
# A start outside its bounds (the committed units' angles) without --box: the refusal names the option to use.
refuse fit -a unit.txt -s stars.txt --backend cpu --threads 1 -- "search a box around the start: --box F"
# The work estimate: a population of 100000 over 30 generations is refused without --force.
refuse fit -a unit.txt -s stars.txt --box 0.05 --backend cpu --threads 1 --population 100000 -- "give --force"
# Bounds whose width is not finite, or so wide that the start is lost, are refused with the key.
sed 's/^stream_weight_min: .*/stream_weight_min: -1e308/; s/^stream_weight_max: .*/stream_weight_max: 1e308/' unit.txt > wide.txt
refuse fit -a wide.txt -s stars.txt "${G[@]}" -- "stream_weight_min"
sed 's/^stream_weight_min: .*/stream_weight_min: -1e300/; s/^stream_weight_max: .*/stream_weight_max: 1e300/' unit.txt > wide2.txt
refuse fit -a wide2.txt -s stars.txt "${G[@]}" -- "are too wide for its value"
# A start whose likelihood is not finite (a star at 1e300 kpc) is refused as run refuses it.
awk 'NR == 2 {$3 = "1e300"} {print}' stars.txt > far.txt
refuse fit -a unit.txt -s far.txt "${G[@]}" -- "has no finite likelihood on far.txt"
# --print-vector validates the unit as a fit would.
sed 's/^background_parameters\[4\]: 1.0, 0.571713/background_parameters[4]: 1.0, 0.0/' unit.txt > q0.txt
refuse fit -a q0.txt --print-vector -- "q (flattening, index 1)"

# No NaN or inf printed: an uncertainty not computed says so.
out=$("$mwsep" "${base[@]}")
grep -qiE 'nan|inf' <<< "$out" && fail "printed a NaN: $out"
grep -q "uncertainty not computed" <<< "$out" || fail "no word on the uncertainties: $out"

# A checkpoint of other inputs or settings is refused, naming what differs.
"$mwsep" generate -a "$wu" -o stars2.txt --count 400 --seed 10 --threads 1 2> /dev/null
C=(fit -a unit.txt "${G[@]}" --generations 6 --checkpoint d.ck)
"$mwsep" "${C[@]}" -s stars.txt --stop-after 2 > /dev/null
refuse "${C[@]}" -s stars2.txt --resume -- "its stars (checkpoint:"
refuse "${C[@]}" -s stars.txt --resume --r-binning kpc -- "its r-binning (checkpoint: magnitude, this fit: kpc)"
sed 's/^convolve: .*/convolve: 60/' unit.txt > unit60.txt
refuse fit -a unit60.txt "${G[@]}" --generations 6 --checkpoint d.ck -s stars.txt --resume -- "its work-unit (checkpoint:"

# The progress file of a resumed fit keeps every generation, and the result is the uninterrupted one.
"$mwsep" "${C[@]}" -s stars.txt --resume --progress resumed.csv > resumed.txt
[ ! -e d.ck ] || fail "the checkpoint of a completed fit was left behind"
"$mwsep" fit -a unit.txt "${G[@]}" --generations 6 -s stars.txt --progress whole.csv > whole.txt
cmp <(head -1 resumed.txt) <(head -1 whole.txt) || fail "resumed $(head -1 resumed.txt), uninterrupted $(head -1 whole.txt)"
[ "$(cut -d, -f1-3 resumed.csv)" = "$(cut -d, -f1-3 whole.csv)" ] || { head -20 resumed.csv whole.csv; fail "the progress files differ"; }

# CMA-ES killed during its polish, then run again: the uninterrupted result, and a finished fit run again too.
K=(fit -a unit.txt -s stars.txt --box 0.05 --backend cpu --threads 1 --algorithm cmaes --population 8 --generations 12
   --polish 120 --no-uncertainties --seed 2)
"$mwsep" "${K[@]}" --quiet > uninterrupted.txt
"$mwsep" "${K[@]}" --checkpoint k.ck 2> k.log > /dev/null &
pid=$!
for _ in $(seq 1 600); do grep -q "generation 12/12" k.log && break; sleep 0.05; done
sleep 0.2
kill -9 "$pid" 2> /dev/null || fail "the fit ended before it could be killed in its polish"
wait "$pid" 2> /dev/null || true
[ -e k.ck ] || fail "no checkpoint after the kill"
"$mwsep" "${K[@]}" --quiet --checkpoint k.ck --resume > killed.txt
cmp <(head -3 killed.txt) <(head -3 uninterrupted.txt) || fail "killed in the polish: $(head -1 killed.txt) vs $(head -1 uninterrupted.txt)"
"$mwsep" "${K[@]}" --quiet --checkpoint k.ck --resume > again.txt
cmp <(head -3 again.txt) <(head -3 uninterrupted.txt) || fail "a finished fit run again: $(head -1 again.txt)"
echo "every refusal, resume and kill as promised"
