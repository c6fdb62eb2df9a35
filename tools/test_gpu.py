#!/usr/bin/env python3
"""Runs the GPU tests (ctest label `gpu`) concurrently: one process per GoogleTest program, all at once,
instead of one process per test; records the wall time.

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

ROOT = pathlib.Path(__file__).resolve().parent.parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments.harness import provenance  # noqa: E402


def gpu_tests(build):
    r = subprocess.run(["ctest", "-L", "gpu", "--show-only=json-v1"], cwd=build, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"test_gpu: ctest in {build} failed: {r.stderr.strip()[-400:]}")
    tests = json.loads(r.stdout).get("tests", [])
    programs, others = {}, []
    for t in tests:
        cmd = t.get("command") or []
        gtest = [a for a in cmd[1:] if a.startswith("--gtest_filter=")]
        if cmd and gtest:
            programs.setdefault(cmd[0], []).append(gtest[0].split("=", 1)[1])
        elif cmd:
            others.append((t["name"], cmd))
    return programs, others


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
    programs, others = gpu_tests(build)
    if not programs and not others:
        print(f"test_gpu: no test labelled gpu in {build}", file=sys.stderr)
        return 1
    start = time.monotonic()
    running = []
    for exe, names in sorted(programs.items()):
        log = logs / f"{pathlib.Path(exe).name}.log"
        cmd = [exe, "--gtest_filter=" + ":".join(names)]
        running.append((pathlib.Path(exe).name, len(names), cmd, log, time.monotonic(),
                        subprocess.Popen(cmd, cwd=build, stdout=log.open("w"), stderr=subprocess.STDOUT)))
    for name, cmd in others:
        log = logs / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.log"
        running.append((name, 1, cmd, log, time.monotonic(),
                        subprocess.Popen(cmd, cwd=build, stdout=log.open("w"), stderr=subprocess.STDOUT)))
    results = []
    for name, n, cmd, log, t0, proc in running:
        code = proc.wait()
        text = log.read_text(errors="replace")
        results.append(dict(program=name, tests=n, exit=code, wall_s=round(time.monotonic() - t0, 1),
                            log=str(log), **counts(text)))
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
              f"{r['failed']} failed, {r['skipped']} skipped, {r['wall_s']} s (log {r['log']})")
    failed = [r for r in results if r["exit"] != 0]
    print(f"test_gpu: {sum(r['tests'] for r in results)} tests in {len(results)} processes, {wall:.1f} s wall on "
          f"{', '.join(data['gpus']) or 'no GPU'}; {len(failed)} failed; recorded in {record}")
    if not devices:
        print("test_gpu: no GPU on this machine: the GPU tests skipped themselves", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
