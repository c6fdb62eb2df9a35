#!/usr/bin/env python3
"""The README's sample of `make run` and its line on how long the first `make run` and `make test` take, from the
newest first-run record (experiments/records/first-run-*/first_run.json, written by tools/time_first_run.py).

    python3 tools/first_run_summary.py --write README.md   # puts both between their markers
    python3 tools/first_run_summary.py --check README.md   # exit 1 when they are not the record's (ctest)

Nothing in either is typed by hand: the sample is what `make run` printed in that fresh clone, the times and the
host are the record's.
"""
import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
RECORDS = ROOT / "experiments" / "records"
BLOCKS = {
    "output": ("<!-- first-run-output: tools/first_run_summary.py -->", "<!-- /first-run-output -->"),
    "time": ("<!-- first-run-time: tools/first_run_summary.py -->", "<!-- /first-run-time -->"),
}


def newest_record():
    records = sorted(RECORDS.glob("first-run-*/first_run.json"))
    if not records:
        raise SystemExit("first_run_summary: no record experiments/records/first-run-*/first_run.json "
                         "(tools/time_first_run.py writes one)")
    return records[-1]


def duration(seconds):
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def tests_said(ctest):
    """What make test's tests came to, as the record's ctest summary has it."""
    if not ctest:
        return ""
    if not ctest["failed"]:
        return f" ({ctest['tests']} tests, none failed)"
    return (f" ({ctest['tests']} tests; {ctest['failed']} failed on that host: "
            + ", ".join(f"`{n}`" for n in ctest["failed_tests"]) + ")")


def texts(path):
    r = json.loads(path.read_text())
    run, test, host = r["make_run"], r["make_test"], r["host"]
    ctest = test.get("ctest")
    if run["exit_status"] != 0 or (test["exit_status"] != 0 and not (ctest and ctest["failed"])):
        raise SystemExit(f"first_run_summary: {path}: a make run that failed, or a make test that stopped before its "
                         "tests ran, is no record to cite")
    load = max(run["load_average_before"][0], run["load_average_after"][0],
               test["load_average_before"][0], test["load_average_after"][0])
    installed = ("as root, installing nothing (every package was there)" if not r["packages_installed_by_make_run"]
                 else "as root, installing the missing packages first")
    time_line = (
        f"In a fresh clone (commit {r['git_commit'][:7]}, {r['date_utc'][:10]}), on a {host['cores']}-core "
        f"{host['cpu']} {'with' if host['gpu'] else 'without'} a GPU and without a compiler cache, {installed}: "
        f"the first `make run` took {duration(run['wall_s'])} and printed {run['lines']} lines; `make test` after it "
        f"took {duration(test['wall_s'])}{tests_said(ctest)}. That machine was shared with other jobs (load average up to {load:.0f} "
        f"on its {host['cores']} cores), so an idle one is faster "
        f"(`{path.parent.relative_to(ROOT)}/first_run.json`).")
    output = "```text\n" + run["output"].rstrip("\n") + "\n```"
    return {"output": output, "time": time_line}


def replace(text, key, body, where):
    begin, end = BLOCKS[key]
    if begin not in text or end not in text:
        raise SystemExit(f"first_run_summary: {where}: no markers {begin} ... {end}")
    head, rest = text.split(begin, 1)
    return head + begin + "\n" + body + "\n" + end + rest.split(end, 1)[1]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", type=pathlib.Path, metavar="README")
    g.add_argument("--check", type=pathlib.Path, metavar="README")
    a = p.parse_args(argv)
    path = a.write or a.check
    text = path.read_text()
    record = newest_record()
    new = text
    for key, body in texts(record).items():
        new = replace(new, key, body, path)
    if a.check:
        if new != text:
            print(f"first_run_summary: {path}: the first run's sample or times differ from "
                  f"{record.relative_to(ROOT)}; run tools/first_run_summary.py --write {path}", file=sys.stderr)
            return 1
        print(f"first_run_summary: {path}: the first run's sample and times are those of {record.relative_to(ROOT)}")
        return 0
    path.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
