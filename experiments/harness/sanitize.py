"""compute-sanitizer over a study's GPU tests: the kind `sanitizer_tests`, shared by every study.

A definition's run names a GoogleTest program of the build, a test filter (small inputs: the tools slow a
kernel down by one or two orders of magnitude) and the tools (memcheck, racecheck, synccheck, initcheck).
Each tool is one job; its output is <name>_<tool>.log, verified when the tool reports no error (no hazard
for racecheck) and every selected test passed. Every study has the kind through the base Study
(experiments/harness/study.py).
"""
import re
import subprocess

from .runner import Job, JobFailed

# What a clean run of each tool prints; the marker the results check looks for in the kept logs.
CLEAN = r"(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)"


def kind_sanitizer_tests(study, d):
    name = d["name"]
    for run in d["runs"]:
        binary = study.build / run["binary"]
        for tool in run["tools"]:
            def job(tmp, tool=tool, run=run, binary=binary):
                log = tmp / f"{name}_{tool}.log"
                cmd = ["compute-sanitizer", "--tool", tool, "--error-exitcode", "9", str(binary),
                       f"--gtest_filter={run['filter']}"]
                try:
                    r = subprocess.run(cmd, text=True, capture_output=True, timeout=run["timeout_s"])
                    out, rc = r.stdout + "\n" + r.stderr, r.returncode
                except subprocess.TimeoutExpired as e:
                    out, rc = f"{e.stdout or ''}\n{e.stderr or ''}\n(timed out after {e.timeout} s)", -1
                log.write_text(f"$ {' '.join(cmd)}\n{out}")
                passed = re.search(r"\[  PASSED  \] \d+ tests?\.", out) and "[  FAILED" not in out
                clean = re.search(CLEAN, out)
                print(f"    {tool}: exit {rc}, {'clean' if clean else 'NOT clean'}", flush=True)
                if rc != 0 or not clean or not passed:
                    e = JobFailed(f"compute-sanitizer {tool} on {binary.name}: exit {rc}")
                    e.outputs = {log.name: log}
                    raise e
                return {log.name: log}
            skip = None if binary.exists() else f"this build has no {run['binary']}"
            yield Job(f"{run['binary']}|{tool}", job,
                      [f"compute-sanitizer --tool {tool} {run['binary']} --gtest_filter='{run['filter']}'"],
                      needs_gpus=1, skip=skip)
