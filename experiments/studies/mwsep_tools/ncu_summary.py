#!/usr/bin/env python3
"""Condenses `ncu --csv --page details` output to the metrics that say what bounds a kernel.

usage: ncu_summary.py ncu_details.csv  ->  CSV on stdout: kernel,section,metric,unit,value
"""
import csv
import sys

KEEP = ("Duration", "SM Frequency", "Compute (SM) Throughput", "Executed Ipc Active", "Issue Slots Busy",
        "Issued Warp Per Scheduler", "No Eligible", "Active Warps Per Scheduler", "Eligible Warps Per Scheduler",
        "Achieved Occupancy", "Theoretical Occupancy", "Registers Per Thread", "Warp Cycles Per Issued Instruction",
        "Executed Instructions", "Avg. Executed Instructions Per Scheduler", "Block Limit Registers",
        "Avg. Active Threads Per Warp", "Branch Instructions", "Avg. Divergent Branches")


def main(path):
    lines = open(path).read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit("ncu_summary: no ncu CSV table in " + path)
    out = csv.writer(sys.stdout)
    out.writerow(["kernel", "section", "metric", "unit", "value"])
    for row in csv.DictReader(lines[start:]):
        name = row.get("Metric Name", "")
        if name.startswith(KEEP) or "Pipe" in name or "FP64" in name:
            kernel = row.get("Kernel Name", "").split("(")[0]
            out.writerow([kernel, row.get("Section Name", ""), name, row.get("Metric Unit", ""), row.get("Metric Value", "")])


if __name__ == "__main__":
    main(sys.argv[1])
