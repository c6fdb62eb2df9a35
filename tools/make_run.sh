#!/usr/bin/env bash
# `make run`: one likelihood of a work unit, from a bare checkout, in a few quiet steps. Each step prints one
# line; what the tools print (apt-get, CMake, the compilers) goes to one log file, whose end is printed if a step
# fails. Steps: deps (tools/check_deps.sh), configure (CMake, once), build (the mwsep program and what it
# needs, not the tests or the other programs), stars (the work unit's synthetic catalogue, once), run
# (mwsep run: its estimate and progress on the terminal), check (tools/check_run.py: the result beside the
# values stored in data/workunits/<unit>/expected.json, exit 1 if it disagrees).
# Settings come from the Makefile's variables: BUILD, JOBS, WU, STARS, BACKEND, CMAKE_ARGS, NO_INSTALL.
set -uo pipefail
cd "$(dirname "$0")/.."
build="${BUILD:-build}"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
wu="${WU:-3s-small}"
stars="${STARS:-data/stars/$wu.txt}"
backend="${BACKEND:-cpu}"
make_cmd="${MAKE:-make}"
params="data/workunits/$wu/astronomy_parameters.txt"
logs="$build/logs"
log="$logs/run.log"
result="$logs/run-$wu.json"
start=$SECONDS

if [ ! -f "$params" ]; then
  echo "make run: no work unit '$wu' ($params does not exist); the work units: $(cd data/workunits && ls | tr '\n' ' ')" >&2
  exit 2
fi
mkdir -p "$logs"
: > "$log"
echo "make run: work unit $wu on the $backend backend; the tools' output goes to $log"

# step NAME WHAT COMMAND...: runs COMMAND with its output appended to the log and prints one line, "NAME:
# WHAT ... done (N s)"; on a terminal the line shows the seconds so far and the build's percentage while it
# runs. On failure: the end of the log and its path, and exit 1.
step() {
  local name="$1" what="$2"; shift 2
  local t0=$SECONDS status
  echo "== $name: $* ($(date -u '+%H:%M:%S'))" >> "$log"
  if [ -t 1 ]; then
    "$@" >> "$log" 2>&1 &
    local pid=$! pct
    while kill -0 "$pid" 2>/dev/null; do
      # The build's own percentage, from CMake's lines in the log (not for the other steps).
      pct=""
      [ "$name" = build ] && pct="$(sed -n '/^== build:/,$p' "$log" | grep -o '^\[ *[0-9]*%\]' | tail -n 1 | tr -d '[] ')"
      printf '\r%s: %s ... %d s%s ' "$name" "$what" $((SECONDS - t0)) "${pct:+, $pct}"
      sleep 1
    done
    wait "$pid"; status=$?
    printf '\r\033[K%s: %s ... ' "$name" "$what"
  else
    printf '%s: %s ... ' "$name" "$what"
    "$@" >> "$log" 2>&1; status=$?
  fi
  if [ "$status" -ne 0 ]; then
    echo "FAILED (exit status $status, after $((SECONDS - t0)) s); the end of $log:"
    tail -n 25 "$log" | sed 's/^/  | /'
    echo "make run: stopped at '$name'; the whole log: $log"
    exit 1
  fi
  echo "done ($((SECONDS - t0)) s)"
}

step deps "the build's tools (tools/check_deps.sh)" env DEPS_LOG="$log" bash tools/check_deps.sh build
# What check_deps said (an install, a library left out) is worth a line each on the terminal too.
sed -n '/^== deps:/,$p' "$log" | grep '^check_deps:' | sed 's/^/  /'

if [ -f "$build/CMakeCache.txt" ]; then
  echo "configure: $build/ is configured already"
else
  # CMAKE_ARGS is read as the shell reads the Makefile's own cmake line (quotes included: "80;90").
  eval "cmake_args=(${CMAKE_ARGS:-})"
  step configure "CMake, into $build/" cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${cmake_args[@]+"${cmake_args[@]}"}
fi
step build "the mwsep program ($jobs jobs)" cmake --build "$build" -j "$jobs" --target mwsep

if [ -f "$stars" ]; then
  echo "stars: $stars is there already"
else
  step stars "$stars (100000 synthetic stars)" "$make_cmd" --no-print-directory BUILD="$build" JOBS="$jobs" "$stars"
fi

echo "run: $build/mwsep run -a $params -s $stars --backend $backend --json > $result"
# The estimate and the progress (stderr) go to the terminal; the result (stdout) to the file.
if ! "$build/mwsep" run -a "$params" -s "$stars" --backend "$backend" --json > "$result.tmp"; then
  rm -f "$result.tmp"
  echo "make run: mwsep run failed (its message is above)" >&2
  exit 1
fi
mv "$result.tmp" "$result"
python3 -m tools.check_run "$result" --unit "$wu" --stars "$stars"
status=$?
echo "make run: $((SECONDS - start)) s in all; the tools' output: $log"
exit $status
