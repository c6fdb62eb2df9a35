#!/usr/bin/env python3
"""Times what a new user does first, in a fresh clone: `make run`, then `make test`, without a compiler cache;
writes what it measured into a record (experiments/records/first-run-<date>/first_run.json), from which the
README's line on the first run is made (tools/first_run_summary.py).

    python3 tools/time_first_run.py --clone /tmp/fresh-run --out experiments/records/first-run-<date>/first_run.json

The clone is made from this checkout's HEAD (committed work only: uncommitted changes are not timed). The
record holds, per command: the wall seconds, the exit status, the number of lines printed and, for `make run`,
everything it printed; and the host: cores, CPU, memory, whether a GPU was present, and the load average before
and after each command, since a shared machine makes the times longer than on an idle one. Nothing is
installed by this tool; `make run` installs what is missing as root (NO_INSTALL=1 is not set), and the record
says whether it did.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def git(*args, cwd=ROOT):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def cpu_model():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def memory_gib():
    try:
        for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def timed(command, cwd, env, log):
    """Runs @p command in @p cwd; its output (stdout and stderr, as a terminal-less user sees them) into @p log."""
    load_before = os.getloadavg()
    t0 = time.monotonic()
    with open(log, "w") as out:
        status = subprocess.run(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL).returncode
    seconds = time.monotonic() - t0
    text = pathlib.Path(log).read_text(errors="replace")
    return {"command": " ".join(command), "exit_status": status, "wall_s": round(seconds, 1),
            "lines": text.count("\n"), "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()]}, text


def ctest_summary(text):
    """ctest's closing count in @p text: tests run, failed, and the names of those that failed (None without one)."""
    m = re.search(r"(\d+)% tests passed, (\d+) tests? failed out of (\d+)", text)
    if not m:
        return None
    failed = re.findall(r"^\s*\d+ - (\S+) \(Failed\)", text.split(m.group(0), 1)[1], re.M)
    return {"tests": int(m.group(3)), "failed": int(m.group(2)), "failed_tests": failed}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clone", type=pathlib.Path, required=True, help="where to clone (must not exist)")
    p.add_argument("--out", type=pathlib.Path, required=True, help="the record to write (must not exist)")
    a = p.parse_args(argv)
    if a.clone.exists():
        print(f"time_first_run: {a.clone} exists; name a folder that does not", file=sys.stderr)
        return 2
    if a.out.exists():
        print(f"time_first_run: {a.out} exists; this tool writes a new record only", file=sys.stderr)
        return 2
    commit = git("rev-parse", "HEAD")  # the clone holds this commit alone, never uncommitted changes
    subprocess.run(["git", "clone", "-q", str(ROOT), str(a.clone)], check=True)
    subprocess.run(["git", "checkout", "-q", commit], cwd=a.clone, check=True)
    # No compiler cache: the times are those of a machine that never built this before.
    env = {k: v for k, v in os.environ.items() if not k.startswith("CCACHE_")}
    env["CCACHE_DISABLE"] = "1"
    for var in ("CMAKE_ARGS", "BUILD", "JOBS", "WU", "STARS", "BACKEND", "NO_INSTALL"):
        env.pop(var, None)
    gpu = shutil.which("nvidia-smi") is not None and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0
    started = datetime.datetime.now(datetime.timezone.utc)
    run, run_text = timed(["make", "run"], a.clone, env, a.clone / "make-run.out")
    test, test_text = timed(["make", "test"], a.clone, env, a.clone / "make-test.out")
    test["ctest"] = ctest_summary(test_text)
    run_log = a.clone / "build" / "logs" / "run.log"
    installed = run_log.exists() and "check_deps: installing" in run_log.read_text(errors="replace")
    record = {
        "what": "the first `make run`, then `make test`, in a fresh clone, without a compiler cache",
        "date_utc": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git_commit": commit,
        "clone": "a fresh clone of that commit (uncommitted changes of the checkout it was made from are not in it)",
        "host": {"cores": os.cpu_count(), "cpu": cpu_model(), "memory_gib": memory_gib(),
                 "os": platform.platform(), "gpu": gpu,
                 "shared": "other jobs ran on the same machine meanwhile: see the load averages"},
        "packages_installed_by_make_run": installed,
        "make_run": dict(run, output=run_text),
        "make_test": test,
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = a.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    tmp.replace(a.out)
    failed = (test["ctest"] or {}).get("failed_tests")
    print(f"time_first_run: make run {run['wall_s']} s, {run['lines']} lines (exit {run['exit_status']}); "
          f"make test {test['wall_s']} s (exit {test['exit_status']}{'; failed: ' + ', '.join(failed) if failed else ''}); "
          f"record: {a.out}")
    return 0 if run["exit_status"] == 0 and test["exit_status"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
