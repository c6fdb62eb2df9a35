"""The compressed line-of-sight quadrature (a different algorithm from the exact sum): its measured error
against modern-f64 on the large units and its timings, from experiments/device/compressed_check.sh's folder
committed as experiments/results/<gpu>/mwsep/compressed_check/. Not in CHAPTERS yet: the section's text
(compressed_section.md beside this module) is placed when the report's chapters are rearranged. Every number
it prints comes from those files."""
import json
import statistics

from report.common import MissingData, fmt, rows, table

UNITS = [("stripe11", "the stripe-11 model"), ("3s-large", "3s-large"), ("2s-large", "2s-large")]


def build(ctx):
    n = ctx.n
    folder = ctx.results / "compressed_check"
    if not folder.exists():
        raise MissingData(f"{folder}: run experiments/device/compressed_check.sh on a GPU host and commit its folder")
    errors = rows(folder, "large_units", ctx.read, check_valid=False)
    body, worst = [], 0.0
    for unit, label in UNITS:
        for r in (r for r in errors if r["work_unit"] == unit):
            d = float(r["rel_diff"])
            worst = max(worst, d)
            stated = r["stated_error"] or "-"
            cells = f"{r['fallback_cells']} of {r['cells']}" if r["cells"] else "-"
            body.append([label, r["component"], f"{d:.1e}", stated if stated == "-" else f"{float(stated):.1e}", cells])
    n["compressed_worst_rel_diff"] = f"{worst:.1e}"
    ctx.tables["table_compressed_error"] = table(
        "Table R@: the compressed quadrature (compressed-f64) against the exact sum (modern-f64) on the same GPU: "
        "measured relative difference of every integral and of the likelihood, the controller's stated "
        "relative error, and the cells that fell back to the exact sum.",
        ["work unit", "quantity", "measured", "stated", "exact fallbacks"], body)
    for unit, _ in UNITS[:2]:
        bench = rows(folder, f"bench_{unit}", ctx.read)
        t = {}
        for v in ("modern-f64", "compressed-f64"):
            samples = [float(r["integral_ms"]) for r in bench if r["variant"] == v]
            if not samples:
                raise MissingData(f"{folder}/bench_{unit}.csv: no rows of {v}")
            t[v] = statistics.median(samples)
        k = unit.replace("-", "_")
        n[f"compressed_ms_{k}"], n[f"compressed_exact_ms_{k}"] = fmt(t["compressed-f64"], 3), fmt(t["modern-f64"], 3)
        n[f"compressed_ratio_{k}"] = f"{t['modern-f64'] / t['compressed-f64']:.0f}"
    fast = json.loads((folder / "cpu_3s-large_fast.json").read_text())
    comp = json.loads((folder / "cpu_3s-large_compressed.json").read_text())
    ctx.read.update({folder / "cpu_3s-large_fast.json", folder / "cpu_3s-large_compressed.json"})
    tf, tc, rule = fast["timings"]["integral"], comp["timings"]["integral"], comp["controller"]["rule_seconds"]
    n["compressed_tolerance"] = f"{comp['controller']['tolerance']:.0e}"
    n["compressed_cpu_threads"] = str(fast["settings"]["threads"])
    n["compressed_cpu_fast_s"], n["compressed_cpu_s"] = fmt(tf, 3), fmt(tc, 3)
    n["compressed_cpu_ratio"], n["compressed_cpu_ratio_cached"] = f"{tf / tc:.0f}", f"{tf / (tc - rule):.0f}"
