#!/usr/bin/env python3
"""Runs the GPU tests (ctest label `gpu`) concurrently: one process per GoogleTest program, all at once,
instead of one process per test; records the wall time. A program any of whose tests has ctest's RUN_SERIAL
property (tests that time the GPU and need it to themselves), or such a test that is no GoogleTest case, runs
first, alone, before the others start.

    python3 tools/test_gpu.py BUILD [--record FILE.json] [--logs DIR]

The tests come from `ctest -L gpu --show-only=json-v1` in BUILD: the tests of one program run in one
process (--gtest_filter naming them); a labelled test that is not a GoogleTest case runs as ctest would run
it. Each process's output goes to DIR/<program>.log (default BUILD/test-gpu-logs). The record (default
BUILD/test-gpu.json) says when and where it ran (GPU, commit), the wall time of the whole run and of each
program, and each program's passed, failed and skipped counts, so that a stated time comes from a file.
Exit status 1 when a program fails or no GPU test is found.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import time
import typing

ROOT = pathlib.Path(__file__).resolve().parent.parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments.harness import provenance  # noqa: E402


def gpu_tests(build):
    r = subprocess.run(["ctest", "-L", "gpu", "--show-only=json-v1"], cwd=build, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"test_gpu: ctest in {build} failed: {r.stderr.strip()[-400:]}")
    return group(json.loads(r.stdout).get("tests", []))


def run_serial(test):
    """Whether ctest's description @p test (json-v1) has the RUN_SERIAL property set."""
    return any(p.get("name") == "RUN_SERIAL" and p.get("value") in (True, "ON", "TRUE", "1", 1)
               for p in test.get("properties") or [])


class Run(typing.NamedTuple):
    """One process of the run: a GoogleTest program with the cases of it that are labelled gpu, or another
    labelled test by itself."""
    name: str        # the program's file name, or the test's name
    tests: int       # the ctest tests it runs
    command: list    # what runs
    alone: bool      # any of its tests has RUN_SERIAL: it runs before the others, by itself


def group(tests):
    """The processes that run ctest's json-v1 list @p tests (Run): one per GoogleTest program, its cases named
    by --gtest_filter, in the programs' order; then one per other test, in ctest's order."""
    programs, others = {}, []
    for t in tests:
        cmd = t.get("command") or []
        gtest = [a for a in cmd[1:] if a.startswith("--gtest_filter=")]
        if cmd and gtest:
            cases, alone = programs.get(cmd[0], ([], False))
            programs[cmd[0]] = (cases + [gtest[0].split("=", 1)[1]], alone or run_serial(t))
        elif cmd:
            others.append(Run(t["name"], 1, cmd, run_serial(t)))
    return [Run(pathlib.Path(exe).name, len(cases), [exe, "--gtest_filter=" + ":".join(cases)], alone)
            for exe, (cases, alone) in sorted(programs.items())] + others


def counts(text):
    def one(pattern):
        m = re.search(pattern, text, re.M)
        return int(m.group(1)) if m else 0
    return {"passed": one(r"^\[  PASSED  \] (\d+) tests?"), "failed": one(r"^\[  FAILED  \] (\d+) tests?"),
            "skipped": one(r"^\[  SKIPPED \] (\d+) tests?")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", type=pathlib.Path)
    ap.add_argument("--record", type=pathlib.Path)
    ap.add_argument("--logs", type=pathlib.Path)
    args = ap.parse_args()
    build = args.build.resolve()
    record = args.record or build / "test-gpu.json"
    logs = args.logs or build / "test-gpu-logs"
    logs.mkdir(parents=True, exist_ok=True)
    runs = gpu_tests(build)
    if not runs:
        print(f"test_gpu: no test labelled gpu in {build}", file=sys.stderr)
        return 1
    start = time.monotonic()
    results = []

    def launch(run):
        log = logs / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', run.name)}.log"
        return run, log, time.monotonic(), subprocess.Popen(run.command, cwd=build, stdout=log.open("w"),
                                                             stderr=subprocess.STDOUT)

    def finish(run, log, t0, proc):
        code = proc.wait()
        results.append(dict(program=run.name, tests=run.tests, exit=code, wall_s=round(time.monotonic() - t0, 1),
                            log=str(log), alone=run.alone, **counts(log.read_text(errors="replace"))))
    # What times the GPU first, one at a time, with the device to itself; then the rest at once.
    for run in runs:
        if run.alone:
            finish(*launch(run))
    for started in [launch(run) for run in runs if not run.alone]:
        finish(*started)
    wall = time.monotonic() - start
    devices = provenance.gpus()
    commit, dirty = provenance.git_state()
    data = {"command": "make test-gpu", "date_utc": provenance.now_utc(), "git_commit": commit, "git_dirty": dirty,
            "gpus": [g["gpu_name"] for g in devices], "wall_s": round(wall, 1), "programs": results}
    tmp = record.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(record)
    for r in results:
        print(f"test_gpu: {r['program']}: {r['tests']} tests, exit {r['exit']}, {r['passed']} passed, "
              f"{r['failed']} failed, {r['skipped']} skipped, {r['wall_s']} s{' (alone)' if r['alone'] else ''} "
              f"(log {r['log']})")
    failed = [r for r in results if r["exit"] != 0]
    print(f"test_gpu: {sum(r['tests'] for r in results)} tests in {len(results)} processes, {wall:.1f} s wall on "
          f"{', '.join(data['gpus']) or 'no GPU'}; {len(failed)} failed; recorded in {record}")
    if not devices:
        print("test_gpu: no GPU on this machine: the GPU tests skipped themselves", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
