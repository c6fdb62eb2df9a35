"""The toy study's program: sums 1..n by a loop, `repeats` times, and writes one CSV row per repeat."""
import argparse
import csv
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, required=True)
ap.add_argument("--repeats", type=int, default=1)
ap.add_argument("--experiment", required=True)
ap.add_argument("--csv", required=True)
args = ap.parse_args()
if args.n < 1:
    sys.exit("toy_sum: --n must be at least 1")
with open(args.csv, "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["experiment", "n", "repeat", "sum", "seconds"])
    for repeat in range(args.repeats):
        t0 = time.perf_counter()
        total = 0
        for i in range(1, args.n + 1):
            total += i
        w.writerow([args.experiment, args.n, repeat, total, time.perf_counter() - t0])
