#!/usr/bin/env python3
"""One CSV row of an end-to-end run from `mwsep run --json` output (the runner's e2e kind, experiments/studies/mwsep.py).

usage: e2e_row.py --header [--devices]
       e2e_row.py RUN_JSON WORK_UNIT REPEAT WALL_MS [--devices]
--devices adds the number of GPUs the run used (from its settings.device, "N x name" for several).
"""
import json
import sys

PHASES = ("load", "device_start_wait", "prepare", "integral", "likelihood", "evaluate")


def main(args):
    devices = "--devices" in args
    args = [a for a in args if a != "--devices"]
    if args == ["--header"]:
        print(",".join(["work_unit", "variant", "repeat"] + (["devices"] if devices else []) + ["wall_ms"] +
                       [f"{p}_s" for p in PHASES]))
        return 0
    path, unit, repeat, wall_ms = args
    run = json.load(open(path))
    row = [unit, "modern-f64", repeat]
    if devices:
        device = run["settings"]["device"]
        row.append(device.split(" x ")[0] if " x " in device else "1")
    print(",".join(row + [wall_ms] + [repr(run["timings"][p]) for p in PHASES]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
