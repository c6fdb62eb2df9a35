"""Summary of engine_regression.sh: per configuration the median of each round of each build, after/before,
and the largest ratio between two rounds of the same build.  python3 engine_regression_summary.py OUT"""
import collections, csv, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
lines = ["program,configuration,before_rounds_ms,after_rounds_ms,median_before_ms,median_after_ms,ratio,within_2pct,round_spread"]
for prog, key, size, val in [("kirk_hwu", "variant", "size", "kernel_ms"), ("ryoo", "variant", "n", "kernel_ms")]:
    med = {}
    for tag in ("base", "new"):
        d = collections.defaultdict(lambda: collections.defaultdict(list))
        for r in csv.DictReader(open(out / f"reg_{prog}_{tag}.csv")):
            d[f"{r[key]}/{r[size]}"][r["experiment"]].append(float(r[val]))
        med[tag] = d
    worst = []
    for c in sorted(med["base"]):
        rb = [statistics.median(v) for v in med["base"][c].values()]
        rn = [statistics.median(v) for v in med["new"][c].values()]
        before = statistics.median([x for v in med["base"][c].values() for x in v])
        after = statistics.median([x for v in med["new"][c].values() for x in v])
        spread = max(max(rb) / min(rb), max(rn) / min(rn)) - 1
        ratio = after / before
        worst.append((abs(ratio - 1), spread, c))
        lines.append(f"{prog},{c},{';'.join(f'{x:.6g}' for x in rb)},{';'.join(f'{x:.6g}' for x in rn)},{before!r},{after!r},{ratio!r},{abs(ratio - 1) <= 0.02},{spread!r}")
    beyond = [w for w in worst if w[0] > 0.02]
    print(f"{prog:9s} {len(worst)} configurations, worst |after/before - 1| = {100 * max(worst)[0]:.2f} %, beyond 2 %: {len(beyond)}"
          f" (of which beyond their own round spread: {sum(1 for w in beyond if w[0] > w[1])})")
    for w in sorted(beyond, reverse=True)[:6]:
        print(f"    {w[2]}: {100 * w[0]:.2f} % (round spread {100 * w[1]:.2f} %)")
(out / "engine_regression.csv").write_text("\n".join(lines) + "\n")
