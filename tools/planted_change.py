#!/usr/bin/env python3
"""Whether the comparison catches a planted change: every timing file of a results folder slowed by a factor
(each sample of its measured value multiplied), compared with the folder as it is, configuration by
configuration, by the rule of experiments/compare.py. Prints the breakdown per study (differs / too noisy to
judge / agrees) and fails when fewer than --flagged of the configurations are flagged (differ or are too noisy
to judge) or when a configuration agrees with an allowance above the cap.

    python3 tools/planted_change.py [FOLDER ...] [--factor 1.15] [--flagged 0.95] [--json FILE]

A timing file: a file of a kind compared by its median (kinds.py) whose value is a duration or a rate (the
kind's `times`). Nothing is written into FOLDER: the slowed copy is made in memory (the rows as the results
layer reads them, checked as data first).
"""
import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments import compare  # noqa: E402
from experiments.harness.kinds import ALLOWANCE_CAP  # noqa: E402
from experiments.harness.results import ResultFolder, number  # noqa: E402

DEFAULT_FOLDERS = [ROOT / "experiments" / "results" / "nvidia-h200", ROOT / "experiments" / "results" / "nvidia-h100-80gb-hbm3"]


def timing_files(folder):
    """The timing files of @p folder (ResultFolder) with their kinds, in order."""
    out = []
    for rel in sorted(folder.files):
        kind = folder.kind(rel)
        if kind is not None and kind.suffix == ".csv" and kind.compare.method == "median" and kind.value in kind.times \
                and folder.complete(rel):
            out.append((rel, kind))
    return out


def slowed(rows, column, factor):
    """@p rows with @p column multiplied by @p factor where it holds a number."""
    out = []
    for r in rows:
        v = number(r.get(column, ""))
        out.append(dict(r, **{column: repr(v * factor)}) if v is not None else r)
    return out


def plant(path, factor):
    """{study: {verdict: configurations}}, {file: {verdict: configurations}} and the configurations that agree
    with an allowance above the cap, for the folder at @p path slowed by @p factor."""
    folder = ResultFolder(path)
    per_study, per_file, wrong = {}, {}, []
    for rel, kind in timing_files(folder):
        rows = folder.rows(rel, "keep")
        verdicts = compare.configuration_verdicts(kind, slowed(rows, kind.value, factor), rows)
        counts = per_file.setdefault(rel, {"differs": 0, "too noisy to judge": 0, "agrees": 0})
        for key, (verdict, change, allowed) in verdicts.items():
            counts[verdict] += 1
            if verdict == "agrees" and allowed > ALLOWANCE_CAP:
                wrong.append(f"{rel} {key}: agrees with an allowance of {allowed:.1%}")
        study = per_study.setdefault(rel.split("/")[0], {"differs": 0, "too noisy to judge": 0, "agrees": 0})
        for v, n in counts.items():
            study[v] += n
    return per_study, per_file, wrong


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folders", nargs="*", type=pathlib.Path, default=DEFAULT_FOLDERS)
    p.add_argument("--factor", type=float, default=1.15, help="the planted change (default 1.15: +15 %%)")
    p.add_argument("--flagged", type=float, default=0.95, help="the least share of configurations flagged")
    p.add_argument("--json", type=pathlib.Path, help="also write the breakdown as JSON")
    args = p.parse_args(argv)
    ok, report = True, {}
    for folder in args.folders:
        per_study, per_file, wrong = plant(folder, args.factor)
        total = {v: sum(c[v] for c in per_study.values()) for v in ("differs", "too noisy to judge", "agrees")}
        n = sum(total.values())
        flagged = (total["differs"] + total["too noisy to judge"]) / n if n else 0.0
        print(f"{folder}: x{args.factor:g} on {len(per_file)} timing files, {n} configurations: "
              f"{total['differs']} differ, {total['too noisy to judge']} too noisy to judge, {total['agrees']} agree; "
              f"flagged {flagged:.1%}")
        for study, c in sorted(per_study.items()):
            print(f"  {study}: {c['differs']} differ, {c['too noisy to judge']} too noisy, {c['agrees']} agree")
        for rel, c in per_file.items():
            if c["agrees"]:
                print(f"    agrees in {rel}: {c['agrees']} of {sum(c.values())}")
        for line in wrong:
            print(f"  AGREES ABOVE THE CAP: {line}")
        ok &= flagged >= args.flagged and not wrong
        report[str(folder)] = {"per_study": per_study, "per_file": per_file, "total": total, "flagged": flagged,
                               "agree_above_cap": wrong}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    print("planted change: " + ("flagged" if ok else "NOT flagged enough") + f" (at least {args.flagged:.0%} of the "
          f"configurations, none agreeing above {ALLOWANCE_CAP:.0%})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
