#!/usr/bin/env python3
"""Compares a fresh results folder with a committed one and prints a verdict per result file.

    python3 experiments/compare.py NEW_FOLDER REF_FOLDER [--out FILE.md] [--json FILE.json]

Both folders are written by experiments/run.py (each has a manifest.json). Each result file present in
both is compared by what it measures, with the tolerances stated below:
  timings (GPU benchmarks)   median kernel time per configuration within max(2 %, 3 x the larger
                             relative spread (noise_pct) of the two runs)
  timings (CPU, end to end)  median within 10 % (a host shared with other work is noisier)
  correctness                every comparison passes in both; the largest difference within 10x of the
                             reference's or below its tolerance
  counts (skipping, SASS)    identical
  listings (registers)       identical registers and spills per kernel
  profiler metrics           percentages within 5 points
  microbenchmarks, peer      rates within 5 %, peer times within 10 %
A verdict is "agrees", "differs" (with the worst entry), "not re-run" (NEW did not run that experiment:
a run of some experiments only, `--only`), "missing" (NEW ran the experiment but lacks the file) or "new"
(only in NEW). Exit status 1 when any result differs or is missing.
"""
import argparse
import csv
import json
import pathlib
import re
import statistics
import sys

BENCH_KEYS = ["variant", "work_unit", "threads_per_block", "blocks_per_launch", "register_cap", "star_layout", "sm_count"]


def rows(path):
    with path.open() as f:
        return list(csv.DictReader(f))


def medians(rs, keys, value):
    groups = {}
    for r in rs:
        groups.setdefault(tuple(r.get(k, "") for k in keys), []).append(float(r[value]))
    return {k: statistics.median(v) for k, v in groups.items()}


def ratio_check(new, ref, keys, value, tol_of):
    """(ok, detail) comparing medians of `value` per key; tol_of(key) gives the allowed relative change."""
    a, b = medians(new, keys, value), medians(ref, keys, value)
    common = sorted(set(a) & set(b))
    if not common:
        return False, "no configuration in common"
    worst = max(common, key=lambda k: abs(a[k] / b[k] - 1) - tol_of(k))
    change = a[worst] / b[worst] - 1
    ok = all(abs(a[k] / b[k] - 1) <= tol_of(k) for k in common)
    return ok, f"{len(common)} configurations; largest change {change:+.1%} at {'/'.join(x for x in worst if x)} (allowed {tol_of(worst):.1%})"


def compare_bench(new, ref):
    def noise(rs):
        out = {}
        for r in rs:
            out[tuple(r.get(k, "") for k in BENCH_KEYS)] = float(r.get("noise_pct") or 0) / 100
        return out
    na, nb = noise(new), noise(ref)
    return ratio_check(new, ref, BENCH_KEYS, "kernel_ms", lambda k: max(0.02, 3 * max(na.get(k, 0), nb.get(k, 0))))


def compare_table(value, keys, tol):
    return lambda new, ref: ratio_check(new, ref, keys, value, lambda k: tol)


def compare_exact(keys):
    def check(new, ref):
        a = {tuple(r[k] for k in keys): r for r in new}
        b = {tuple(r[k] for k in keys): r for r in ref}
        diff = [k for k in b if k not in a or a[k] != b[k]]
        return not diff, f"{len(b)} rows; {len(diff)} differ" + (f", first {diff[0]}" if diff else "")
    return check


def compare_correctness(new, ref):
    failed = [r for r in new if r["pass"] != "true"]
    if failed:
        return False, f"{len(failed)} comparisons fail, first {failed[0]['variant']} on {failed[0]['work_unit']}"
    worst_new = max(float(r["max_rel_diff"]) for r in new)
    worst_ref = max(float(r["max_rel_diff"]) for r in ref)
    ok = len(new) >= len(ref)
    return ok, f"{len(new)} comparisons (reference {len(ref)}), all pass; largest difference {worst_new:.2e} (reference {worst_ref:.2e})"


def compare_ncu(new, ref):
    a = {r["variant"]: r for r in new}
    b = {r["variant"]: r for r in ref}
    worst, ok = (None, 0.0), True
    for v in set(a) & set(b):
        for c in b[v]:
            if c.endswith("_pct"):
                d = abs(float(a[v][c]) - float(b[v][c]))
                ok &= d <= 5
                if d > worst[1]:
                    worst = (f"{v} {c}", d)
    return ok, f"{len(set(a) & set(b))} kernels; largest change {worst[1]:.1f} points ({worst[0]}), allowed 5"


def listing_entries(text):
    """Per kernel line of `mwsep variants` (variant and build, capped or not): registers and spills."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+-(?:f64|f32))\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", line)
        if m:
            out[f"{m.group(1)} ({m.group(3)})"] = [m.group(4), m.group(5), m.group(6)]
    return out


def compare_listing(new_path, ref_path):
    a, b = listing_entries(new_path.read_text()), listing_entries(ref_path.read_text())
    diff = [k for k in b if a.get(k) != b[k]]
    return not diff and bool(b), f"{len(b)} variants; {len(diff)} differ" + (f", first {diff[0]}: {a.get(diff[0])} vs {b[diff[0]]}" if diff else "")


BY_KIND = {
    "bench": compare_bench,
    "bench_cpu": compare_table("seconds", ["integrator", "threads", "work_unit", "slices"], 0.10),
    "e2e": compare_table("wall_ms", ["work_unit", "variant"], 0.10),
    "slice_load": compare_table("seconds", ["integrator", "mode", "work_unit"], 0.10),
    "microbench": compare_table("exps_per_second", ["function"], 0.05),
    "peer": compare_table("integration_s", ["work_unit", "flags"], 0.10),
    "host": compare_exact(["work_unit", "area", "stream"]),
    "sass": compare_exact(["kernel"]),
    "correctness": compare_correctness,
    "ncu_metrics": compare_ncu,
}


def compare(new_dir, ref_dir):
    new_m = json.loads((new_dir / "manifest.json").read_text())
    ref_m = json.loads((ref_dir / "manifest.json").read_text())
    verdicts = []
    for rel, entry in sorted(ref_m["files"].items()):
        kind = entry["kind"]
        new_path, ref_path = new_dir / rel, ref_dir / rel
        if entry["experiment"] not in new_m["experiments"]:
            verdicts.append((rel, "not re-run", f"the new run did not include experiment {entry['experiment']}"))
            continue
        if rel not in new_m["files"] or not new_path.exists():
            verdicts.append((rel, "missing", "not in the new folder"))
            continue
        if rel.endswith(".csv") and kind in BY_KIND:
            ok, detail = BY_KIND[kind](rows(new_path), rows(ref_path))
        elif kind == "listing":
            ok, detail = compare_listing(new_path, ref_path)
        elif kind in ("sanitizer", "correctness") and rel.endswith(".log"):
            ok, detail = True, "a log; its verdict is its status: " + new_m["experiments"][entry["experiment"]]["status"]
        elif kind == "ncu_sections":
            ok, detail = True, "profiler sections: not compared (informational)"
        else:
            ok, detail = True, "not compared"
        status = new_m["experiments"].get(entry["experiment"], {}).get("status", "unknown")
        if status != "done":
            ok, detail = False, f"the new run's status is {status}; " + detail
        verdicts.append((rel, "agrees" if ok else "differs", detail))
    for rel in sorted(set(new_m["files"]) - set(ref_m["files"])):
        verdicts.append((rel, "new", "only in the new folder"))
    return verdicts


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("new", type=pathlib.Path)
    p.add_argument("ref", type=pathlib.Path)
    p.add_argument("--out", type=pathlib.Path, help="also write the verdicts as a Markdown table")
    p.add_argument("--json", type=pathlib.Path, help="also write the verdicts as JSON")
    args = p.parse_args()
    for d in (args.new, args.ref):
        if not (d / "manifest.json").exists():
            print(f"compare: {d} has no manifest.json (not a folder written by experiments/run.py)", file=sys.stderr)
            return 2
    verdicts = compare(args.new, args.ref)
    new_host = json.loads((args.new / "manifest.json").read_text()).get("host", {})
    ref_host = json.loads((args.ref / "manifest.json").read_text()).get("host", {})
    gpu = lambda h: (h.get("gpus") or [{}])[0].get("gpu_name", "no GPU")
    lines = [f"Comparison of {args.new} ({gpu(new_host)}) with {args.ref} ({gpu(ref_host)})", "",
             "| result | verdict | detail |", "|---|---|---|"]
    lines += [f"| {rel} | {v} | {d} |" for rel, v, d in verdicts]
    counts = {v: sum(1 for _, x, _ in verdicts if x == v) for v in ("agrees", "differs", "not re-run", "missing", "new")}
    lines += ["", "Totals: " + ", ".join(f"{n} {v}" for v, n in counts.items())]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    if args.json:
        args.json.write_text(json.dumps({"new": str(args.new), "ref": str(args.ref), "verdicts": [
            {"result": r, "verdict": v, "detail": d} for r, v, d in verdicts], "totals": counts}, indent=1) + "\n")
    return 1 if counts["differs"] or counts["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
