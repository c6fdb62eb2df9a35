#!/usr/bin/env python3
"""One CSV row of an end-to-end run from `mwsep run --json` output (the runner's e2e kind, experiments/studies/mwsep.py).

usage: e2e_row.py --header [--devices]
       e2e_row.py RUN_JSON WORK_UNIT REPEAT WALL_MS LAUNCH_NS EXIT_NS [--devices]
--devices adds the number of GPUs the run used (from its settings.device, "N x name" for several).
LAUNCH_NS and EXIT_NS: CLOCK_MONOTONIC (Python's time.monotonic_ns()) just before the process was started and
just after it ended. With the run's own clock (main() entered, result about to be written, same clock) they give
the last three columns: internal_ms (main() to the output), start_ms (launch to main(): exec, dynamic libraries,
static initialisers) and exit_ms (the output to the process's end: destructors, the CUDA runtime's teardown).
host_prepare_s, last: the integral's host tables and the star table, made while the device starts (inside
load and device_start_wait's span; prepare_s no longer holds them).
"""
import json
import sys

PHASES = ("load", "device_start_wait", "prepare", "integral", "likelihood", "evaluate")
# After the phases, at the end of the row (older files lack them).
PROCESS = ("internal_ms", "start_ms", "exit_ms", "host_prepare_s")


def main(args):
    devices = "--devices" in args
    args = [a for a in args if a != "--devices"]
    if args == ["--header"]:
        print(",".join(["work_unit", "variant", "repeat"] + (["devices"] if devices else []) + ["wall_ms"] +
                       [f"{p}_s" for p in PHASES] + list(PROCESS)))
        return 0
    path, unit, repeat, wall_ms, launch_ns, exit_ns = args
    run = json.load(open(path))
    clock = run["clock"]
    main_ns, output_ns = int(clock["main_entry_monotonic_ns"]), int(clock["output_monotonic_ns"])
    launch_ns, exit_ns = int(launch_ns), int(exit_ns)
    if not launch_ns <= main_ns <= output_ns <= exit_ns:
        raise SystemExit(f"e2e_row.py: the run's clock ({main_ns}, {output_ns}) does not lie within the launch and "
                         f"exit ({launch_ns}, {exit_ns}): not the same CLOCK_MONOTONIC")
    process = [(output_ns - main_ns) / 1e6, (main_ns - launch_ns) / 1e6, (exit_ns - output_ns) / 1e6,
               run["timings"]["host_prepare"]]
    engine = run["settings"].get("engine", "")
    if not engine.startswith("cuda "):
        raise SystemExit(f"e2e_row.py: {path} was not computed by a CUDA variant (engine '{engine}')")
    row = [unit, engine[len("cuda "):], repeat]
    if devices:
        device = run["settings"]["device"]
        row.append(device.split(" x ")[0] if " x " in device else "1")
    print(",".join(row + [wall_ms] + [repr(run["timings"][p]) for p in PHASES] + [repr(v) for v in process]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
