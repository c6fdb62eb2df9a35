#!/usr/bin/env python3
"""The README's line on the reviewer's kit, from the kit's recorded runs (experiments/records/reproduce-check-*/).

    python3 tools/kit_summary.py --write README.md   # puts the line between the README's kit markers
    python3 tools/kit_summary.py --check README.md   # exit 1 when the README's line is not the records' (ctest)

The line names each recorded run: its GPU, commit, the claims and their verdicts, the seconds the claims took and
the estimate printed before; nothing in it is typed by hand.
"""
import argparse
import collections
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
RECORDS = ROOT / "experiments" / "records"
BEGIN, END = "<!-- kit-record: tools/kit_summary.py -->", "<!-- /kit-record -->"


# The plural of a verdict where it is the subject of a count ("2 differ", "3 hold").
PLURAL = {"differs": "differ", "holds": "hold", "does not hold here": "do not hold here"}


def counted(claims, key):
    """'14 reproduced, 4 differ' for the values of @p key over the claims, the most frequent first."""
    verdicts = collections.Counter(c[key] for c in claims)
    return ", ".join(f"{n} {PLURAL.get(v, v) if n != 1 else v}" for v, n in sorted(verdicts.items(), key=lambda kv: -kv[1]))


def summary():
    runs = sorted(RECORDS.glob("reproduce-check-*/reproduce_check.json"))
    if not runs:
        return "No run of the kit is recorded yet."
    parts = []
    for path in runs:
        r = json.loads(path.read_text())
        counts = counted(r["claims"], "verdict")
        if r.get("kit_format", 1) >= 2:  # the claims judged, and their timings apart (experiments/claim_verdicts.py)
            counts = f"claims: {counts}; timings against the reference: {counted(r['claims'], 'repeatability')}"
        else:  # the first kit judged whether the same medians came back, not the claims
            counts = f"timings only, by the first kit, which did not judge the claims: {counts}"
        parts.append(f"on {r['gpu']} at commit {r['commit'][:7]}{' (uncommitted changes)' if r.get('dirty') else ''}, "
                     f"{len(r['claims'])} claims took {r['total_s'] / 60:.0f} minutes of runs, besides the build "
                     f"(estimated {r['estimate_s'] / 60:.0f} minutes beforehand): {counts} "
                     f"(`{path.parent.relative_to(ROOT)}/reproduce_check.md`)")
    return "Recorded runs of the kit: " + "; ".join(parts) + "."


def block():
    return f"{BEGIN}\n{summary()}\n{END}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", type=pathlib.Path, metavar="README")
    g.add_argument("--check", type=pathlib.Path, metavar="README")
    a = p.parse_args(argv)
    path = a.write or a.check
    text = path.read_text()
    if BEGIN not in text or END not in text:
        print(f"kit_summary: {path}: no kit markers ({BEGIN} ... {END})", file=sys.stderr)
        return 2
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    new = head + block() + tail
    if a.check:
        if new != text:
            print(f"kit_summary: {path}: the kit's line differs from the records; run tools/kit_summary.py --write {path}",
                  file=sys.stderr)
            return 1
        print(f"kit_summary: {path}: the kit's line matches the records")
        return 0
    path.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
