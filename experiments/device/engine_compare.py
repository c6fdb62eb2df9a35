"""Summarises experiments/device/engine_check.sh's output folder: each variant's median before (the base
build) and after (this build) with their ratio, written to no_regression.csv, and the cold/warm medians of
the small inputs, written to cold_warm.csv; prints a short table of both (the table ends the output).

    python3 experiments/device/engine_compare.py OUT
"""
import csv
import pathlib
import statistics
import sys

TOLERANCE = 0.02  # the medians before and after may differ by 2 %
# Per program: the columns that name a timed configuration, and the time column.
PROGRAMS = {"mwsep": (("variant", "work_unit"), "kernel_ms"), "kirk_hwu": (("variant", "size"), "kernel_ms"),
            "ryoo": (("variant", "n"), "kernel_ms"), "munch": (("variant", "signal", "filter"), "kernel_ms")}
SMALL = {"mwsep_small": (("variant", "work_unit"), "kernel_ms"), "kirk_hwu_small": (("variant", "size"), "kernel_ms"),
         "munch_small": (("variant", "signal"), "kernel_ms"), "munch_copy_small": (("memory", "direction", "bytes"), "ms")}


def medians(path, keys, value, split=None):
    """Median of @p value per key tuple (and per the value of column @p split, when given)."""
    groups = {}
    if not path.exists():
        return groups
    with path.open() as f:
        for row in csv.DictReader(f):
            if row.get("valid", "true") != "true":
                continue
            k = tuple(row[c] for c in keys) + ((row[split],) if split else ())
            groups.setdefault(k, []).append(float(row[value]))
    return {k: statistics.median(v) for k, v in groups.items()}


def main(out):
    out = pathlib.Path(out)
    lines, rows = [], []
    for program, (keys, value) in PROGRAMS.items():
        before = medians(out / f"cmp_{program}_base.csv", keys, value)
        after = medians(out / f"cmp_{program}_new.csv", keys, value)
        common = sorted(set(before) & set(after))
        if not common:
            lines.append(f"{program:9s} not compared (no common configurations)")
            continue
        beyond = []
        for k in common:
            ratio = after[k] / before[k]
            rows.append([program, "/".join(k), before[k], after[k], ratio, abs(ratio - 1) <= TOLERANCE])
            if abs(ratio - 1) > TOLERANCE:
                beyond.append((abs(ratio - 1), "/".join(k), ratio))
        worst = max(abs(after[k] / before[k] - 1) for k in common)
        lines.append(f"{program:9s} {len(common):3d} configurations  worst |after/before - 1| = {100 * worst:5.2f} %  "
                     f"beyond 2 %: {len(beyond)}" + "".join(f"\n          {n}: {100 * (r - 1):+.2f} %" for _, n, r in sorted(beyond, reverse=True)[:5]))
    with (out / "no_regression.csv").open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["program", "configuration", "median_before_ms", "median_after_ms", "ratio", "within_2pct"])
        w.writerows(rows)
    small = []
    for name, (keys, value) in SMALL.items():
        m = medians(out / f"{name}.csv", keys, value, split="cache")
        for k in sorted({k[:-1] for k in m}):
            warm, cold = m.get(k + ("warm",)), m.get(k + ("cold",))
            if warm and cold:
                small.append([name, "/".join(k), warm, cold, cold / warm])
    with (out / "cold_warm.csv").open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["input", "configuration", "median_warm_ms", "median_cold_ms", "cold_over_warm"])
        w.writerows(small)
    print("\ncold / warm medians of the small inputs (cold_warm.csv):")
    for name in SMALL:
        ratios = [r[4] for r in small if r[0] == name]
        if ratios:
            print(f"  {name:17s} {len(ratios):3d} configurations, cold/warm from {min(ratios):.3f} to {max(ratios):.3f}")
        else:
            print(f"  {name:17s} not measured")
    print("\nbefore (base build) and after (this build), medians (no_regression.csv):")
    for line in lines:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
