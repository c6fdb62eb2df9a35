#!/usr/bin/env python3
"""Splits each fit report of this record into its two phases, from the report (whole fit) and its progress file
(the global search, one row a generation; the rest is the polishes and the Hessian), for ab/ (one host, two
binaries), repeat/ (fit_recovery again at the recording's commit and host) and earlier/ (fit_recovery at 205ed9f,
the commit before, on another lent host, whose test-gpu.json gives that host's CPU-bound test time):
   python3 summarize.py > summary.json
per fit: evaluations, the evaluation's time over its integral's (events), and the preparation (model, stream
constants, skip thresholds) in ms an evaluation; whole, in the global search (CMA-ES: pagmo evaluates one
candidate at a time) and in the rest (the polishes run side by side, their candidates in batches of two)."""
import csv
import json
import pathlib

here = pathlib.Path(__file__).resolve().parent


def split(report, progress, unit=None):
    r = json.loads(report.read_text())
    rows = [x for x in csv.DictReader(progress.open()) if unit is None or x["work_unit"] == unit]
    p, evals = r["phase_seconds"], r["evaluations"]
    g_evals = int(rows[-1]["evaluations"])
    g = {k: sum(float(x[k]) for x in rows) for k in ("prepare_s", "integral_s", "evaluate_s")}
    rest = evals - g_evals
    return {
        "likelihood": r["likelihood"],
        "evaluations": evals,
        "whole": {"evaluation_over_integral": p["evaluation"] / p["integral"],
                  "prepare_ms": 1e3 * p["prepare"] / evals},
        "global_search": {"evaluations": g_evals,
                          "evaluation_over_integral": g["evaluate_s"] / g["integral_s"],
                          "prepare_ms": 1e3 * g["prepare_s"] / g_evals},
        "polishes_and_hessian": {"evaluations": rest,
                                 "evaluation_over_integral": (p["evaluation"] - g["evaluate_s"]) / (p["integral"] - g["integral_s"]),
                                 "prepare_ms": 1e3 * (p["prepare"] - g["prepare_s"]) / rest},
    }


out = {"ab": {}}
for report in sorted((here / "ab").glob("*.json")):
    if report.name != "provenance.json":
        out["ab"][report.stem] = split(report, report.with_suffix(".csv"))
for run in ("repeat", "earlier"):
    meta = json.loads((here / run / "fit_recovery.meta.json").read_text())
    tests = json.loads((here / run / "test-gpu.json").read_text())
    out[run] = {"git_commit": meta["git_commit"], "gpu_uuid": meta["gpu_uuid"],
                # the CPU-bound GPU test program's wall time on the same lent host: how fast its CPU was
                "mwsep_gpu_tests_wall_s": next(p["wall_s"] for p in tests["programs"] if p["program"] == "mwsep_gpu_tests")}
    for unit in ("2s-small", "3s-small"):
        out[run][unit] = split(here / run / f"fit_recovery_report_{unit}_0_1.json",
                               here / run / "fit_recovery_progress.csv", unit)
print(json.dumps(out, indent=1))
