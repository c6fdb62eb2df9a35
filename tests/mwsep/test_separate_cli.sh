#!/usr/bin/env bash
# mwsep separate on the command line: the per-star CSV (one row per star, probabilities summing to 1, the most
# likely component named) and the JSON summary agree with each other and with `mwsep run`'s likelihood; the
# generator's labels add the fraction assigned correctly; bad use is refused before any work.
# Usage: test_separate_cli.sh MWSEP WORKDIR
set -euo pipefail
mwsep=$1 dir=$2
wu=$(cd "$(dirname "$0")/../../data/workunits/tiny" && pwd)/astronomy_parameters.txt
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail() { echo "FAIL: $*"; exit 1; }
"$mwsep" generate -a "$wu" -o stars.txt --count 500 --seed 4 --threads 1 --labels labels.csv 2> /dev/null
[ "$(wc -l < labels.csv)" = 501 ] || fail "the labels file does not hold one line per star"
"$mwsep" separate -a "$wu" -s stars.txt --labels labels.csv --csv stars_sep.csv --json > summary.json 2> /dev/null
"$mwsep" separate -a "$wu" -s stars.txt --csv - 2> /dev/null > stdout.csv
"$mwsep" run -a "$wu" -s stars.txt --json 2> /dev/null > run.json
python3 - <<'PY' || fail "the CSV, the summary and run disagree"
import csv, json
rows = list(csv.DictReader(open("stars_sep.csv")))
s, run = json.load(open("summary.json")), json.load(open("run.json"))
assert len(rows) == 500 == s["stars"]
assert s["likelihood"] == run["likelihood"], (s["likelihood"], run["likelihood"])
names = ["background", "stream1", "stream2"]
for r in rows:
    p = [float(r["p_" + n]) for n in names]
    assert abs(sum(p) - 1) < 1e-14
    assert r["most_likely"] == names[p.index(max(p))]
for n in names:
    expected = sum(float(r["p_" + n]) for r in rows)
    assert abs(expected - s["components"][n]["expected_stars"]) < 1e-9, n
    assert sum(r["most_likely"] == n for r in rows) == s["components"][n]["most_likely_stars"], n
correct = sum(r["most_likely"] == r["true_component"] for r in rows)
assert correct == s["correct_stars"], (correct, s["correct_stars"])
assert [r["star"] for r in csv.DictReader(open("stdout.csv"))] == [r["star"] for r in rows]
PY
refuse() {  # refuse [STATUS] ARGS... -- MESSAGE: STATUS 2 (a usage error) unless given, 3 for a refused input (docs/cli.md)
  local args=() message out rc=0 want=2
  case "$1" in [0-9]) want=$1; shift;; esac
  while [ "$1" != -- ]; do args+=("$1"); shift; done; message=$2
  out=$("$mwsep" "${args[@]}" 2>&1) || rc=$?
  [ "$rc" = "$want" ] || fail "exit $rc (expected $want) for ${args[*]}: $out"
  grep -qF -- "$message" <<< "$out" || fail "'${args[*]}' printed '$out', expected '$message'"
}
refuse separate -a "$wu" -s stars.txt --csv - --json -- "--csv '-' and --json both write to standard output"
refuse separate -a "$wu" -s stars.txt --csv stars.txt -- "is the same file as the input 'stars.txt' (-s)"
refuse separate -a "$wu" -s stars.txt --csv labels.csv --labels labels.csv -- "is the same file as the input 'labels.csv' (--labels)"
refuse separate -a "$wu" -s stars.txt --integrator fancy -- "--integrator"
head -101 labels.csv > short.csv
refuse 3 separate -a "$wu" -s stars.txt --labels short.csv -- "labels 100 stars; the catalogue stars.txt has 500"
refuse generate -a "$wu" -o out.txt --labels "$wu" -- "is the same file as the input"
echo "the separation's CSV and summary agree with each other and with run"
