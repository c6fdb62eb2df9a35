#!/usr/bin/env python3
"""Compares a fresh results folder with a committed one and prints a verdict per result file.

    python3 experiments/compare.py NEW_FOLDER REF_FOLDER [--out FILE.md] [--json FILE.json]

Both folders are written by experiments/run.py (each has a manifest.json). Each result file of REF is
compared with the same file of NEW as its kind declares (experiments/studies/<study>.py, `KINDS`; the
methods are described in experiments/harness/kinds.py): by the kind's key columns (one configuration
each), its value column and its tolerance. Every file is read through the results layer
(experiments/harness/results.py), which checks it as data first, and only when the manifest lists its
experiment as done. Rows marked invalid are never compared; a new file with such rows differs. A
correctness file's comparisons pass or fail by their values and the kind's declared checks, never by a
`pass` column. --out and --json are written whole (a temporary file renamed), never inside NEW, REF or a
committed folder (experiments/results/<host>/, experiments/records/).

Verdicts:
  agrees        compared, within its allowance; the detail gives the size of the difference and, for a median,
                the effective allowances (the tolerance, or the interval of the two medians where wider)
  too noisy to judge  a median kind whose change is within an allowance above the cap (10 %): never counted
                as agreeing
  differs       compared, outside the tolerance (the worst configuration and by how much), a configuration
                of REF missing from NEW, invalid rows, or the new run's experiment not done (its file unread)
  not compared  no comparison is declared for the file's kind (the reason is given); never counted as agreeing
  unreadable    the file is not what its kind declares (the results layer's finding: file, line, column), or
                the reference's experiment is not done
  not re-run    NEW did not run that experiment (a run of some experiments only, `--only` or `--study`)
  missing       NEW ran the experiment but lacks the file
  new           only in NEW
Exit status 1 when any file differs, is missing or unreadable; 2 when a folder is not a results folder (a
damaged or foreign manifest, a newer format) or an output may not be written there.
Two recordings on different GPUs differ by design; their verdicts say by how much.
"""
import argparse
import json
import math
import os
import pathlib
import re
import statistics
import sys

if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments.harness.kinds import ALLOWANCE_CAP, key_value  # noqa: E402
from experiments.harness.results import (NotAResultFolder, ResultFolder, committed_folder, failed_checks,  # noqa: E402
                                         invalid, number, samples)
from experiments.harness.stats import relative_halfwidth  # noqa: E402

VERDICTS = ("agrees", "differs", "too noisy to judge", "not compared", "unreadable", "not re-run", "missing", "new")


def label(key):
    return "/".join(x for x in key if x) or "(one configuration)"


def change(a, b):
    if b == 0:
        return 0.0 if a == 0 else float("inf")
    return a / b - 1


def host_constants(key, new_rows, ref_rows):
    """Key columns that hold one value in each file but a different one in the two (the SM count of two GPU
    models, say): set aside, the configurations of two hosts can still be matched."""
    out = []
    for k in key:
        a = {key_value(r, k) for r in new_rows}
        b = {key_value(r, k) for r in ref_rows}
        if len(a) == 1 and len(b) == 1 and a != b:
            out.append((k, a.pop(), b.pop()))
    return out


def rows_are_samples(kind):
    """Whether a kind's rows are samples of one configuration (a `repeat` or `sample` column, or the spread of its
    samples in `noise`), so that one row is one sample, not a configuration's one value."""
    return bool(kind.compare.noise) or any(c in kind.columns for c in ("repeat", "sample"))


def allowance(kind, new, ref):
    """(allowed relative change of the medians, why) for one configuration with samples @p new and @p ref: the
    kind's tolerance, widened to the uncertainty of the two medians, the root sum of squares of each median's
    relative interval half-width (harness.stats: order statistics of its samples). Where either recording has a
    single sample of a kind whose rows are samples, the uncertainty is unknown (infinite). A kind whose rows are
    one value per configuration allows its tolerance."""
    tolerance = kind.compare.tolerance
    if len(new) >= 2 and len(ref) >= 2:
        u = math.hypot(relative_halfwidth(new), relative_halfwidth(ref))
        return max(tolerance, u), ("the medians' interval" if u > tolerance else "the tolerance")
    if rows_are_samples(kind):
        return math.inf, f"{min(len(new), len(ref))} sample"
    return tolerance, "the tolerance"


def compare_median(kind, new_rows, ref_rows):
    """The median of each configuration within its allowance (allowance()); a configuration whose allowance is
    above ALLOWANCE_CAP and whose change is within it cannot be judged ("too noisy to judge", never agreement).
    The file differs when one configuration differs or is missing, else is too noisy to judge when one
    configuration is, else agrees; the detail gives the changes and the effective allowances."""
    bad = [r for r in new_rows if invalid(r)]
    if bad:
        return False, f"{len(bad)} rows of the new file are marked invalid"
    good_ref = [r for r in ref_rows if not invalid(r)]
    aside = host_constants(kind.key, new_rows, good_ref)
    key = tuple(k for k in kind.key if k not in {x[0] for x in aside})
    a, b = samples(new_rows, key, kind.value), samples(good_ref, key, kind.value)
    if not b:
        return False, f"the reference has no number in column {kind.value}"
    lost = sorted(set(b) - set(a))
    common = sorted(set(a) & set(b))
    if not common:
        return False, f"no configuration in common ({len(b)} in the reference, keyed by {', '.join(key)})"
    changes = {k: change(statistics.median(a[k]), statistics.median(b[k])) for k in common}
    allowed = {k: allowance(kind, a[k], b[k]) for k in common}
    outside = [k for k in common if abs(changes[k]) > allowed[k][0]]
    noisy = [k for k in common if k not in outside and allowed[k][0] > ALLOWANCE_CAP]
    worst = max(common, key=lambda k: (k in outside, abs(changes[k]) - min(allowed[k][0], 1e300)))
    finite = sorted(x for x, _ in allowed.values() if math.isfinite(x))
    spread = (f"{finite[0]:.1%} to {finite[-1]:.1%}, median {statistics.median(finite):.1%}" if finite else "none")
    unknown = len(allowed) - len(finite)
    detail = (f"{len(common)} configurations of {kind.value}; median change {statistics.median(changes.values()):+.1%}, "
              f"largest {changes[worst]:+.1%} at {label(worst)} (allowed {allowed[worst][0]:.1%}, "
              f"{allowed[worst][1]}); allowances {spread}"
              + (f", {unknown} unknown (one sample)" if unknown else ""))
    if outside:
        detail += f"; {len(outside)} outside their allowance"
    if noisy:
        detail += (f"; {len(noisy)} too noisy to judge (allowance above {ALLOWANCE_CAP:.0%}, first "
                   f"{label(noisy[0])}: {allowed[noisy[0]][0]:.1%}, {allowed[noisy[0]][1]})")
    if aside:
        detail += "; set aside: " + ", ".join(f"{k} {x} (reference {y})" for k, x, y in aside)
    if lost:
        detail += f"; {len(lost)} configurations of the reference missing, first {label(lost[0])}"
    if outside or lost:
        return False, detail
    return ("too noisy to judge" if noisy else True), detail


def configuration_verdicts(kind, new_rows, ref_rows):
    """{configuration: (verdict, change, allowance)} of a median kind: "agrees", "differs" or "too noisy to
    judge" per configuration (compare_median's rule), for tallies across files."""
    good_new = [r for r in new_rows if not invalid(r)]
    good_ref = [r for r in ref_rows if not invalid(r)]
    aside = host_constants(kind.key, good_new, good_ref)
    key = tuple(k for k in kind.key if k not in {x[0] for x in aside})
    a, b = samples(good_new, key, kind.value), samples(good_ref, key, kind.value)
    out = {}
    for k in sorted(set(a) & set(b)):
        d = change(statistics.median(a[k]), statistics.median(b[k]))
        allowed, _ = allowance(kind, a[k], b[k])
        verdict = "differs" if abs(d) > allowed else "too noisy to judge" if allowed > ALLOWANCE_CAP else "agrees"
        out[k] = (verdict, d, allowed)
    return out


def keyed(rows, key):
    out = {}
    for r in rows:
        out.setdefault(tuple(key_value(r, k) for k in key), []).append(r)
    return out


def compare_exact(kind, new_rows, ref_rows):
    a, b = keyed(new_rows, kind.key), keyed(ref_rows, kind.key)
    columns = list(kind.compare.values) or [c for c in (ref_rows[0] if ref_rows else {}) if c not in kind.key]
    diff = []
    for k in b:
        old = [[r.get(c) for c in columns] for r in b[k]]
        new = [[r.get(c) for c in columns] for r in a.get(k, [])]
        if old != new:
            diff.append(k)
    detail = f"{len(b)} configurations, columns {', '.join(columns)}; {len(diff)} differ"
    if diff:
        first = diff[0]
        detail += f", first {label(first)}"
    return not diff and bool(b), detail


def compare_points(kind, new_rows, ref_rows):
    a, b = keyed(new_rows, kind.key), keyed(ref_rows, kind.key)
    common = [k for k in b if k in a]
    worst, ok = (None, 0.0), True
    checked = 0
    for k in common:
        ra, rb = a[k][0], b[k][0]
        for col in rb:
            if col.endswith("_pct") and col in ra:
                x, y = number(ra[col]), number(rb[col])
                if x is None or y is None:
                    continue
                checked += 1
                d = abs(x - y)
                ok &= d <= kind.compare.tolerance
                if worst[0] is None or d > worst[1]:
                    worst = (f"{label(k)} {col}", d)
    lost = [k for k in b if k not in a]
    if not checked:
        return False, "no percentage column in common"
    detail = (f"{len(common)} configurations, {checked} percentages; largest change {worst[1]:.1f} points "
              f"({worst[0]}), allowed {kind.compare.tolerance:g}")
    if lost:
        detail += f"; {len(lost)} configurations of the reference missing, first {label(lost[0])}"
    return ok and not lost, detail


def compare_correctness(kind, new_rows, ref_rows):
    """Every comparison of the new recording passes, worked out from its values and the kind's declared checks
    (never from a `pass` column), and none of the reference's is missing."""
    failed = [(r, failed_checks(r, kind)) for r in new_rows]
    failed = [(r, why) for r, why in failed if why]
    a, b = keyed(new_rows, kind.key), keyed(ref_rows, kind.key)
    lost = [k for k in b if k not in a]

    def largest(rows):
        vals = [number(r.get(kind.value, "")) for r in rows]
        vals = [v for v in vals if v is not None]
        return max(vals) if vals else float("nan")
    detail = (f"{len(new_rows)} comparisons (reference {len(ref_rows)}); largest {kind.value} {largest(new_rows):.2e} "
              f"(reference {largest(ref_rows):.2e})")
    if failed:
        r, why = failed[0]
        detail = (f"{len(failed)} comparisons fail, first {label(tuple(r.get(k, '') for k in kind.key))} ({why[0]}); "
                  + detail)
    else:
        detail = "all pass (recomputed from the values: " + kind.compare.describe() + "); " + detail
    if lost:
        detail += f"; {len(lost)} comparisons of the reference missing, first {label(lost[0])}"
    return not failed and not lost, detail


def compare_marker(kind, new_path, ref_path):
    found = [bool(re.search(kind.marker, p.read_text(errors="replace"), re.M)) for p in (new_path, ref_path)]
    if not found[0]:
        return False, f"the new output lacks {kind.marker!r} (not whole, or not clean)"
    return True, f"both whole and clean ({kind.marker!r} found" + ("" if found[1] else "; the reference lacks it") + ")"


def listing_entries(text):
    """Per kernel line of `mwsep variants` (variant and build, capped or not): registers and spills."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+-(?:f64|f32))\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", line)
        if m:
            out[f"{m.group(1)} ({m.group(3)})"] = [m.group(4), m.group(5), m.group(6)]
    return out


def compare_listing(kind, new_path, ref_path):
    a, b = listing_entries(new_path.read_text()), listing_entries(ref_path.read_text())
    if not b:
        return False, "the reference lists no kernel"
    diff = [k for k in b if a.get(k) != b[k]]
    return not diff, f"{len(b)} kernels; {len(diff)} differ" + (f", first {diff[0]}: {a.get(diff[0])} vs {b[diff[0]]}" if diff else "")


def compare_json_value(kind, new_path, ref_path):
    a, b = (json.loads(p.read_text()).get(kind.value) for p in (new_path, ref_path))
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False, f"field {kind.value} is not a number in both ({a!r}, {b!r})"
    d = abs(change(a, b))
    return d <= kind.compare.tolerance, f"{kind.value} {a:.10g} (reference {b:.10g}), relative change {d:.1e}, allowed {kind.compare.tolerance:.0e}"


def compare_json_arrays(kind, new_path, ref_path):
    """The arrays the comparison names (nested lists of numbers, an image say): relative L2 difference each."""
    a, b = (json.loads(p.read_text()) for p in (new_path, ref_path))

    def flat(x):
        return [v for item in x for v in flat(item)] if isinstance(x, list) else [x]
    worst, details = 0.0, []
    for name in kind.compare.values:
        x, y = flat(a.get(name, [])), flat(b.get(name, []))
        if not x and not y:
            continue  # an array neither run has (a gridding-only run has no iterative image)
        if not y or len(x) != len(y) or not all(isinstance(v, (int, float)) for v in x + y):
            return False, f"array {name}: not the same shape of numbers in both"
        norm = math.sqrt(sum(v * v for v in y))
        d = math.sqrt(sum((u - v) ** 2 for u, v in zip(x, y))) / norm if norm else float(any(x))
        worst = max(worst, d)
        details.append(f"{name} {d:.1e}")
    return worst <= kind.compare.tolerance, f"relative L2 change {', '.join(details)}, allowed {kind.compare.tolerance:.0e}"


TABLES = {"median": compare_median, "exact": compare_exact, "points": compare_points, "correctness": compare_correctness}
TEXTS = {"marker": compare_marker, "listing": compare_listing, "json_value": compare_json_value,
         "json_arrays": compare_json_arrays}


def compare_file(kind, new, ref, rel):
    """(verdict, detail) for @p rel, a file of a declared kind in the ResultFolders @p new and @p ref; each file is
    read only once the results layer has checked it (a problem makes the verdict "unreadable", naming the file,
    the line and the column)."""
    method = kind.compare.method
    if method == "none":
        return "not compared", kind.compare.reason
    for folder, which in ((new, "new"), (ref, "reference")):
        problems = folder.problems(rel)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            return "unreadable", f"the {which} file: {problems[0]}{more}"
    try:
        if method in TABLES:
            ok, detail = TABLES[method](kind, new.rows(rel, "keep", incomplete="read"),
                                        ref.rows(rel, "keep", incomplete="read"))
        else:
            ok, detail = TEXTS[method](kind, new.path / rel, ref.path / rel)
    except (OSError, ValueError, KeyError, TypeError) as e:
        return "unreadable", f"{type(e).__name__}: {e}"
    if isinstance(ok, str):
        return ok, detail
    return ("agrees" if ok else "differs"), detail


def compare(new_dir, ref_dir):
    new, ref = ResultFolder(new_dir), ResultFolder(ref_dir)
    verdicts = []
    for rel, entry in sorted(ref.files.items()):
        experiment = entry["experiment"]
        if experiment not in new.experiments:
            verdicts.append((rel, "not re-run", f"the new run did not include experiment {experiment}"))
            continue
        if not new.has(rel):
            verdicts.append((rel, "missing", "not in the new folder"))
            continue
        kind = ref.kind(rel)
        if kind is None:
            verdicts.append((rel, "not compared", f"the study {ref.study_of(rel)} declares no kind '{entry['kind']}' "
                                                  "covering this file"))
            continue
        # Nothing reads a file whose experiment the manifest does not list as done.
        if not new.complete(rel):
            verdicts.append((rel, "differs", f"the new run's experiment is {new.status(rel)}, not done: its file "
                                             "is not read"))
            continue
        if not ref.complete(rel):
            verdicts.append((rel, "unreadable", f"the reference's experiment is {ref.status(rel)}, not done: its "
                                                "file is not read"))
            continue
        verdict, detail = compare_file(kind, new, ref, rel)
        if kind.host_specific and verdict in ("agrees", "differs", "too noisy to judge"):
            detail += (f"; host-specific: {kind.host_specific}, recorded on {new.meta(rel).get('host_cpu', 'an unnamed CPU')}"
                       f" (reference {ref.meta(rel).get('host_cpu', 'an unnamed CPU')})")
        verdicts.append((rel, verdict, detail))
    for rel in sorted(set(new.files) - set(ref.files)):
        verdicts.append((rel, "new", "only in the new folder"))
    return verdicts


def report(new_dir, ref_dir, verdicts):
    new, ref = ResultFolder(new_dir), ResultFolder(ref_dir)
    lines = [f"Comparison of {new_dir} ({new.gpu_count} x {new.gpu_name}) with {ref_dir} ({ref.gpu_count} x {ref.gpu_name})", ""]
    if (new.gpu_name, new.gpu_count) != (ref.gpu_name, ref.gpu_count):
        lines += ["The two folders were recorded on different hosts: timings are expected to differ; the details "
                  "say by how much.", ""]
    lines += ["| result | verdict | detail |", "|---|---|---|"]
    lines += [f"| {rel} | {v} | {d.replace('|', '/')} |" for rel, v, d in verdicts]
    counts = {v: sum(1 for _, x, _ in verdicts if x == v) for v in VERDICTS}
    lines += ["", "Totals: " + ", ".join(f"{n} {v}" for v, n in counts.items())]
    return "\n".join(lines) + "\n", counts


def write_atomic(path, text):
    """@p text into @p path whole or not at all: a temporary file beside it, then renamed over it (a killed
    comparison leaves the earlier file or none, never a part; a stale temporary of a killed run is removed)."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def refused_output(out, folders):
    """Why @p out may not be written (None when it may): inside one of the compared @p folders, or inside a
    committed results folder or record (experiments/results/<host>/, experiments/records/)."""
    p = out.resolve()
    for folder in folders:
        if p.is_relative_to(pathlib.Path(folder).resolve()):
            return f"{out} is inside the compared folder {folder}: a comparison never writes into a results folder"
    committed = committed_folder(p)
    if committed is not None:
        return f"{out} is inside the committed folder {committed}: no tool writes there"
    return None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("new", type=pathlib.Path)
    p.add_argument("ref", type=pathlib.Path)
    p.add_argument("--out", type=pathlib.Path, help="also write the verdicts as a Markdown table (not inside NEW, REF "
                                                    "or a committed folder)")
    p.add_argument("--json", type=pathlib.Path, help="also write the verdicts as JSON (the same places refused)")
    p.add_argument("--out-dir", type=pathlib.Path, help="write compare.md and compare.json into this folder")
    p.add_argument("--fresh-new", action="store_true", help="refuse a NEW that is a committed folder (make compare "
                                                            "without OUT=)")
    args = p.parse_args(argv)
    if args.out_dir is not None:
        args.out, args.json = args.out or args.out_dir / "compare.md", args.json or args.out_dir / "compare.json"
    if args.fresh_new and committed_folder(args.new) is not None:
        print(f"compare: NEW={args.new} is a committed folder, not a fresh run: the report never goes into it or "
              "beside it; to compare committed folders, say where the report goes: make compare NEW= REF= "
              "OUT=build/compare/<name>", file=sys.stderr)
        return 2
    for out in (args.out, args.json):
        why = refused_output(out, (args.new, args.ref)) if out is not None else None
        if why:
            print(f"compare: {why}; give another --out/--json (make compare OUT=, default build/compare/)",
                  file=sys.stderr)
            return 2
    try:
        verdicts = compare(args.new, args.ref)
        text, counts = report(args.new, args.ref, verdicts)
    except NotAResultFolder as e:
        print(f"compare: {e}", file=sys.stderr)
        return 2
    print(text)
    try:
        if args.out:
            write_atomic(args.out, text)
        if args.json:
            write_atomic(args.json, json.dumps({"new": str(args.new), "ref": str(args.ref), "verdicts": [
                {"result": r, "verdict": v, "detail": d} for r, v, d in verdicts], "totals": counts}, indent=1) + "\n")
    except OSError as e:
        print(f"compare: cannot write {e.filename}: {e.strerror}; the files written before are as they were",
              file=sys.stderr)
        return 2
    return 1 if counts["differs"] or counts["missing"] or counts["unreadable"] else 0


if __name__ == "__main__":
    sys.exit(main())
