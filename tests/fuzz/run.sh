#!/usr/bin/env bash
# Runs each reader's fuzz target for a bounded time from a seed corpus of the checkout's own inputs.
#   tests/fuzz/run.sh BUILD_DIR [SECONDS]
# The corpus is built afresh under BUILD_DIR/fuzz/corpus-<reader>; what the run adds to it stays there
# (a later run starts from it). A finding is written to BUILD_DIR/fuzz/ as crash-*, leak-* or timeout-*,
# and the script fails.
set -euo pipefail
build=$1
seconds=${2:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$build/fuzz

seed() {  # seed <reader> <file>...: copies the files into the reader's corpus under distinct names
  local dir=$out/corpus-$1; shift
  mkdir -p "$dir"
  for f in "$@"; do cp "$f" "$dir/seed-$(echo "${f#$root/}" | tr '/' '_')"; done
}
seed astronomy_parameters "$root"/data/workunits/*/astronomy_parameters.txt \
  "$root"/tests/data/oracle/*/astronomy_parameters*.txt
seed search_parameters "$root"/tests/data/oracle/*/search_parameters.txt
# Star seeds: the first few stars of a real catalogue, with the count made to match, so that inputs stay
# small and each run tries many of them; whole catalogues are megabytes.
mkdir -p "$out/corpus-stars"
for n in 1 5 20; do
  { echo "$n"; sed -n "2,$((n + 1))p" "$root/tests/data/oracle/stars/stars-20-first1000.txt"; } > "$out/corpus-stars/seed-first$n"
done

# Fit checkpoint seeds: valid files of the target's shape (3 parameters, a population of 6), written with
# the format's checksum (FNV-1a over every byte after the checksum line), so that mutations start inside.
mkdir -p "$out/corpus-fit_checkpoint"
python3 - "$out/corpus-fit_checkpoint" <<'PY'
import sys
def fnv1a(b):
    h = 1469598103934665603
    for c in b:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h
for generation in (1, 4):
    body = "for algorithm cmaes\nfor population 6\nfor seed 1\nfor generations 40\nfor stars 0123456789abcdef\n"
    body += "generation %d\nevaluations %d 1\npopulation 6 3\n" % (generation, 6 * (generation + 1))
    for i in range(6):
        body += "x %.17g %.17g %.17g %.17g\n" % (1.5 - 0.1 * i, 0.1 * i, 0.5, 1.0 - 0.05 * i)
    body += "champion 0.9 0.25 0.5 0.75\nhistory %d\n" % (generation + 1)
    for g in range(generation + 1):
        body += "h %d %d %.17g %.17g\n" % (g, 6 * (g + 1), -0.9 - 0.01 * g, 0.25 * g)
    blob = "22 serialization::archive 19 0 0 de 1 2 3\n"
    body += "algorithm %d\n%s" % (len(blob), blob)
    text = "mwsep-fit-checkpoint 3\nchecksum %016x\n%s" % (fnv1a(body.encode()), body)
    open("%s/seed-generation%d" % (sys.argv[1], generation), "w").write(text)
PY

status=0
for reader in astronomy_parameters search_parameters stars fit_checkpoint; do
  echo "fuzz: $reader for ${seconds}s"
  # -max_len: a few kilobytes covers every line kind of each format; -timeout: a reader that spends a
  # second on a few kilobytes of text is a finding; -rss_limit_mb: so is one that needs a gigabyte.
  if ! (cd "$out" && "./fuzz_$reader" -max_total_time="$seconds" -max_len=4096 -timeout=1 -rss_limit_mb=1024 \
          -print_final_stats=1 "corpus-$reader" > "fuzz_$reader.log" 2>&1); then
    echo "fuzz: $reader: FINDING (see $out/fuzz_$reader.log)"; tail -40 "$out/fuzz_$reader.log"; status=1
  else
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$out/fuzz_$reader.log" | sed "s/^/fuzz: $reader: /"
  fi
done
exit $status
