"""The MilkyWay@Home separation study: its work units, catalogues, CPU check values and kinds of job.

Each kind turns one run of a definition into jobs (experiments/harness/runner.py); a job runs `mwsep`
or a tool, writes its rows or text into a scratch folder and verifies them:
  bench        GPU timings (`mwsep bench`, nvbench's method): <name>.csv, every row checked against the CPU
  bench_cpu    CPU integrator timings (`mwsep bench-cpu`): <name>.csv
  slice_load   one single-core slice alone and under the load of all slices (`bench-cpu --slice-load`)
  host         host-only counts (`mwsep skipping`): <name>.csv
  correctness  every GPU variant against the CPU (the GPU test suite): gpu_correctness.csv and its log
  sanitizer    compute-sanitizer on `mwsep run` of a variant: <tool>_<variant>.log, no error allowed
  listing      `mwsep variants`: registers, spills, occupancy: <name>.txt
  ncu_metrics  Nsight Compute metrics of one launch per variant, clocks left alone: <name>.csv
  ncu_sections Nsight Compute sections of the modern kernel, summarised: <name>.csv
  sass         the SASS instruction mix of the modern kernels: <name>.csv
  e2e          end-to-end `mwsep run` (files in, likelihood out): <name>.csv
  microbench   the exponential-rate microbenchmark: <name>.csv
  microbench_pipe  a microbenchmark's rows with Nsight Compute's FP64-pipe and issue use per row: <name>.csv
  microbench_chains  the same with chains per thread, registers and resident warps per SM: <name>.csv
  hw_microbench  the hardware microbenchmarks (latency, constant cache, coalescing, shared banks): <name>.csv
  device_memory  the device memory `mwsep run` takes per unit and variant (its --json device_memory): <name>.csv
  peer         the public application on the same units (experiments/peer/run_peer.py): <name>.csv
"""
import csv
import json
import pathlib
import re
import subprocess
import sys
import time

from experiments.harness import study
from experiments.harness.kinds import CACHE_KEY, SANITIZER_CLEAN, Compare, Input, Kind, text_kind
from experiments.harness.provenance import ROOT, sh
from experiments.harness.runner import Job, JobFailed
from experiments.harness.study import correctness_kind

from . import mwsep_stripes

SMALL = ["3s-small", "2s-small"]

# Every kind this study writes (experiments/harness/kinds.py): its columns, the columns that name one
# configuration, its measured value and how two recordings are compared. An ncu_metrics definition adds its
# metric columns.
_GPU_BENCH = ["experiment", "variant", "work_unit", "repeat", "sm_count", "kernel_ms", "total_ms", "likelihood",
              "valid", "sm_clock_mhz", "throttled", "noise_pct", "samples", "stop_reason"]
# Columns that must hold numbers wherever they appear.
NUMERIC = {"kernel_ms", "total_ms", "likelihood", "sm_count", "noise_pct", "samples", "seconds",
           "points_per_second_per_core", "max_rel_diff", "tolerance", "wall_ms", "exps_per_second", "integration_s",
           "process_s", "stream_terms", "evaluated_terms", "instructions", "fp64_pipe_pct", "achieved_occupancy_pct",
           "evaluations_per_second", "seconds_per_evaluation", "max_abs_pull", "global_seconds", "truth_likelihood",
           # end_to_end's process columns (after its phases; older files lack them)
           "internal_ms", "start_ms", "exit_ms", "host_prepare_s",
           # the fit's per-generation phase columns (after _FIT_PROGRESS; older files lack them)
           "prepare_s", "integral_s", "likelihood_s", "evaluate_s"}
# A GPU configuration: the variant, the unit, the launch and the cache state (older files lack the launch and
# cache columns: empty).
_BENCH_KEY = ["variant", "work_unit", "threads_per_block", "blocks_per_launch", "register_cap", "star_layout", "sm_count",
              *CACHE_KEY]
# The fit: rows per fit (<name>.csv), per generation (<name>_progress.csv) and its report (JSON).
_FIT = ["experiment", "work_unit", "algorithm", "devices", "ranks", "population", "generations",
        "evaluations", "global_evaluations", "global_seconds", "evaluations_per_second", "seconds",
        "seconds_per_evaluation", "start_likelihood", "likelihood", "truth_likelihood", "max_abs_pull",
        "parameters", "evaluator"]
_FIT_PROGRESS = ["experiment", "work_unit", "algorithm", "evaluator", "generation", "evaluations",
                 "best_likelihood", "seconds"]
# After those, `mwsep fit --progress` writes the evaluator's seconds of each generation's evaluations per phase,
# prepare_s, integral_s, likelihood_s and evaluate_s (empty where it measures none: the CPU). Files recorded
# before lack them, so they are checked as numbers where present (NUMERIC) and not required.
# The compressed quadrature: one row per quantity (background, stream<i>, likelihood) of a unit and parameter
# vector (`candidate`: "model" for the unit's own), and CPU timings with the rules' build time beside.
_COMPRESSED_ACCURACY = ["experiment", "work_unit", "candidate", "quantity", "exact", "compressed", "rel_diff",
                        "stated_error", "fallback_cells", "cells", "tolerance", "extended", "exact_error",
                        "compressed_error", "pass"]
_COMPRESSED_CPU = ["experiment", "integrator", "work_unit", "threads", "repeat", "integral_s", "rule_s",
                   "integral_without_rules_s", "likelihood", "fallbacks"]
_HESSIAN = ["experiment", "work_unit", "variant", "integral_cache", "parameters", "hessian_evaluations",
            "hessian_seconds", "hessian_integral_s", "full", "partial", "none", "components", "reused",
            "likelihood", "same_uncertainties"]
_HESSIAN_NUMERIC = {"parameters", "hessian_evaluations", "hessian_seconds", "hessian_integral_s", "full", "partial",
                    "none", "components", "reused", "likelihood"}
_COMPRESSED_NUMERIC = {"exact", "compressed", "rel_diff", "stated_error", "fallback_cells", "cells", "tolerance",
                       "extended", "exact_error", "compressed_error",
                       "threads", "integral_s", "rule_s", "integral_without_rules_s", "likelihood", "fallbacks"}

# Each kind's inputs: the keys a definition's run (and the definition itself) may give (harness.kinds.Input).
_UNITS = Input("list[str]")  # work units of data/workunits (--quick keeps the small ones)
_NEEDS_GPUS = {"needs_gpus": Input("int", 1)}  # the GPUs each job of the definition needs
# A fit (kind `fit` and its rechecked forms): see _kind_fit.
_FIT_RUN = {"work_units": _UNITS, "population": Input("int"), "generations": Input("int"),
            "algorithm": Input("str", "pso"), "box": Input("number", 0.05), "perturb": Input("number", 0.01),
            "polish": Input("int", 300), "seed": Input("int", 1), "devices": Input("str", ""), "ranks": Input("int", 1),
            "uncertainties": Input("bool", True), "variant": Input("str", None), "needs_gpus": Input("int", None),
            "run_bits": Input("bool", False)}
# A microbenchmark's run names its `mwsep` command (built by CMake, kernels/mwsep/bench/) and that command's arguments.
_MICROBENCH_COMMANDS = ("exp-throughput", "hardware-micro")
_MICROBENCH_RUN = {"command": Input("str", choices=_MICROBENCH_COMMANDS), "args": Input("list[str]", [])}


def _fit_rechecked(prefix, marker):
    """A fit whose optimum `mwsep fit` evaluates again by another evaluator: the columns of `fit` plus
    <prefix>_likelihood and <prefix>_difference, its progress and reports, and its log's line naming @p marker."""
    extra = [f"{prefix}_likelihood", f"{prefix}_difference"]
    return Kind(_FIT + extra, key=["work_unit", "algorithm", "devices", "ranks"], value="seconds_per_evaluation",
                numeric=NUMERIC | set(extra), compare=Compare("median", 0.15),
                tables={r"_progress\.csv$": Kind(_FIT_PROGRESS, key=["work_unit", "algorithm", "evaluator", "generation"],
                                                 value="best_likelihood", numeric=NUMERIC, compare=Compare("median", 1e-6)),
                        r"_report_.*\.json$": Kind(suffix=".json", value="likelihood", compare=Compare("json_value", 1e-6)),
                        r"\.log$": text_kind(rf"likelihood at the optimum: {marker}")},
                run_keys=_FIT_RUN, definition_keys=_NEEDS_GPUS)


KINDS = {
    # GPU timings: within 2 % or the interval of the two medians where wider (too noisy to judge above 10 %).
    # A run: `variants` on `work_units`, `options` (flags of `mwsep bench`) and a `sweep` of them; `emulation`
    # (the definition's) names what a run emulates (recorded in the provenance).
    "bench": Kind(_GPU_BENCH, key=_BENCH_KEY, value="kernel_ms", numeric=NUMERIC,
                  compare=Compare("median", 0.02, noise="noise_pct"),
                  run_keys={"variants": Input("list[str]"), "work_units": _UNITS, "repeats": Input("int", 5, quick=3),
                            "options": Input("dict", {}), "sweep": Input("dict[list]", {})},
                  definition_keys=dict(_NEEDS_GPUS, emulation=Input("str", None))),
    # CPU timings on a host shared with other work: within 10 %.
    "bench_cpu": Kind(["integrator", "threads", "work_unit", "repeat", "seconds", "points_per_second_per_core"],
                      key=["integrator", "threads", "work_unit", "slices"], value="seconds", numeric=NUMERIC,
                      host_only=True, compare=Compare("median", 0.10),
                      run_keys={"integrators": Input("str"), "work_units": _UNITS, "repeats": Input("int", 3),
                                "slices": Input("int", 1)}),
    "slice_load": Kind(["integrator", "mode", "slice", "slices", "work_unit", "repeat", "seconds", "cpu_seconds"],
                       key=["integrator", "mode", "slices", "slice", "work_unit"], value="seconds", numeric=NUMERIC,
                       host_only=True, compare=Compare("median", 0.10),
                       run_keys={"integrators": Input("str"), "work_units": _UNITS, "repeats": Input("int", 3),
                                 "slices": Input("int", 1)}),
    # Counts of skipped terms: exact.
    "host": Kind(["work_unit", "area", "stream", "stream_terms", "evaluated_terms", "evaluated_fraction"],
                 key=["work_unit", "area", "stream"], numeric=NUMERIC, host_only=True, compare=Compare("exact"),
                 run_keys={"work_units": _UNITS}),
    "correctness": correctness_kind(["variant", "work_unit", "max_rel_diff", "tolerance", "pass"],
                                    key=["variant", "work_unit", "register_cap", "star_layout"], value="max_rel_diff",
                                    # tests/mwsep/test_gpu_correctness.cpp's rule; max_rel_diff is the larger
                                    # difference (files before the integral's own columns have it alone).
                                    checks=(("integral_rel_diff", "<=", "integral_tolerance"),
                                            ("likelihood_rel_diff", "<=", "tolerance"),
                                            ("max_rel_diff", "<=", ("integral_tolerance", "tolerance"))),
                                    numeric=NUMERIC | {"integral_rel_diff", "integral_tolerance",
                                                       "likelihood_rel_diff"}),
    "sanitizer": text_kind(SANITIZER_CLEAN, run_keys={
        "tools": Input("list[str]", choices=("memcheck", "racecheck", "synccheck", "initcheck")),
        "variants": Input("list[str]")}),
    "listing": text_kind(r"^GPU: .* \(\d+ SMs\)", suffix=".txt", method="listing",
                         run_keys={"streams": Input("int")}),
    # Profiler percentages: within 5 points.
    # A run: one launch (`launch_skip` launches of `kernel` skipped) of each of `variants` on `work_unit`; the
    # definition's `metrics` names each column's Nsight Compute metric.
    "ncu_metrics": Kind(["variant"], key=["variant"], numeric=NUMERIC, compare=Compare("points", 5),
                        run_keys={"work_unit": Input("str"), "kernel": Input("str"), "launch_skip": Input("int"),
                                  "variants": Input("list[str]")},
                        definition_keys={"metrics": Input("dict[str]")}),
    "ncu_sections": Kind(["kernel", "section", "metric", "unit", "value"], key=["kernel", "section", "metric", "unit"],
                         value="value", numeric=NUMERIC, compare=Compare("median", 0.10),
                         run_keys={"work_unit": Input("str"), "kernel": Input("str"), "sections": Input("list[str]"),
                                   "variant": Input("str")}),
    # Instruction counts of the compiled kernels: exact.
    "sass": Kind(["kernel", "instructions", "fp64", "integer_logic", "branches"], key=["kernel"], numeric=NUMERIC,
                 compare=Compare("exact"), run_keys={"object": Input("str")}),
    # Whole processes (files in, likelihood out): within 10 %.
    "e2e": Kind(["work_unit", "variant", "repeat", "wall_ms", "load_s", "device_start_wait_s", "prepare_s",
                 "integral_s", "likelihood_s", "evaluate_s"], key=["work_unit", "variant", "devices"], value="wall_ms",
                numeric=NUMERIC, compare=Compare("median", 0.10),
                run_keys={"variant": Input("str"), "work_units": _UNITS, "repeats": Input("int", 5),
                          "devices_column": Input("bool", False)},
                definition_keys=_NEEDS_GPUS),
    "microbench": Kind(["function", "exps", "seconds", "exps_per_second"], key=["function"], value="exps_per_second",
                       numeric=NUMERIC, compare=Compare("median", 0.05), run_keys=_MICROBENCH_RUN),
    # A microbenchmark's rows with the FP64 pipe's use that Nsight Compute measured for each row's kernel
    # (one warm-up and one profiled launch): the rates within 5 %.
    "microbench_pipe": Kind(["function", "arguments", "exps", "seconds", "exps_per_second", "fp64_pipe_pct",
                             "fp64_inst_pct", "issue_active_pct"], key=["function", "arguments"],
                            value="exps_per_second", numeric=NUMERIC | {"fp64_pipe_pct", "fp64_inst_pct",
                                                                          "issue_active_pct"},
                            compare=Compare("median", 0.05), run_keys=_MICROBENCH_RUN),
    # The same with the number of independent chains per thread and what each kernel costs in registers and
    # resident warps per SM (`mwsep exp-throughput --set chains`); the rates within 5 %, the counts exact.
    "microbench_chains": Kind(["function", "arguments", "chains", "registers", "warps_per_sm", "exps", "seconds",
                               "exps_per_second", "fp64_pipe_pct", "fp64_inst_pct", "issue_active_pct"],
                              key=["function", "arguments"], value="exps_per_second",
                              numeric=NUMERIC | {"chains", "registers", "warps_per_sm", "fp64_pipe_pct", "fp64_inst_pct",
                                                 "issue_active_pct"},
                              compare=Compare("median", 0.05), run_keys=_MICROBENCH_RUN),
    # The hardware microbenchmarks (`mwsep hardware-micro`, kernels/mwsep/bench/): one row per test and case,
    # its value in cycles or GB/s (`unit`), within 10 %.
    "hw_microbench": Kind(["test", "case", "element_bytes", "param", "value", "unit", "ns_per_access", "kernel_ms"],
                          key=["test", "case", "element_bytes", "param"], value="value",
                          numeric=NUMERIC | {"element_bytes", "param", "value", "ns_per_access", "kernel_ms"},
                          compare=Compare("median", 0.10), run_keys=_MICROBENCH_RUN),
    # Device memory per unit and variant: the drop of the device's free memory while the integral's buffers, and
    # then the stars, are allocated (cudaMemGetInfo, allocation rounding included); within 5 %.
    "device_memory": Kind(["work_unit", "variant", "stars", "integral_bytes", "star_bytes", "total_bytes"],
                          key=["work_unit", "variant"], value="total_bytes",
                          numeric=NUMERIC | {"stars", "integral_bytes", "star_bytes", "total_bytes"},
                          compare=Compare("median", 0.05),
                          run_keys={"work_units": _UNITS, "variants": Input("list[str]")}),
    "peer": Kind(["work_unit", "flags", "repeat", "integration_s", "process_s", "likelihood", "device"],
                 key=["work_unit", "flags"], value="integration_s", numeric=NUMERIC, compare=Compare("median", 0.10),
                 tables={r"\.log$": text_kind(r"Integration time")},
                 run_keys={"work_units": _UNITS, "flags": Input("list[str]"), "repeats": Input("int", 5)}),
    # A fit's time per evaluation within 15 % (whole processes with MPI and a host part); its optimum and
    # progress are compared as numbers: the best likelihood per generation within 1e-6 (relative).
    "fit": Kind(_FIT, key=["work_unit", "algorithm", "devices", "ranks"], value="seconds_per_evaluation",
                numeric=NUMERIC, compare=Compare("median", 0.15),
                tables={r"_progress\.csv$": Kind(_FIT_PROGRESS, key=["work_unit", "algorithm", "evaluator", "generation"],
                                                  value="best_likelihood", numeric=NUMERIC,
                                                  compare=Compare("median", 1e-6)),
                        r"_report_.*\.json$": Kind(suffix=".json", value="likelihood",
                                                   compare=Compare("json_value", 1e-6))},
                run_keys=_FIT_RUN, definition_keys=_NEEDS_GPUS),
    # A fit with a single-precision variant: as `fit`, plus its optimum's likelihood in double precision.
    "fit_single": _fit_rechecked("f64", "single precision"),
    "checkpoint": text_kind(r"bit-identical to the uninterrupted run", run_keys={
        "engine": Input("str", choices=("fast", "reference", "cuda")), "kills": Input("int", 20),
        "seed": Input("int", 1)}),
    # The compressed quadrature (a different algorithm) against the exact sum: every integral and the
    # likelihood per unit and parameter vector; two recordings' compressed values agree within 1e-12.
    "compressed_accuracy": Kind(_COMPRESSED_ACCURACY, key=["work_unit", "candidate", "quantity"], value="compressed",
                                numeric=_COMPRESSED_NUMERIC, compare=Compare("median", 1e-12),
                                run_keys={"work_units": _UNITS, "exact": Input("str", "modern-f64"),
                                          "variant": Input("str", "compressed-f64"),
                                          "max_rel_diff": Input("number", 1e-12), "candidates": Input("int", 0),
                                          "seed": Input("int", 1), "box": Input("number", 0.2),
                                          "extended": Input("list[str]", []), "extended_above": Input("number", 1e-13),
                                          "extended_narrowest": Input("bool", True)}),
    # The CPU compressed integrator against the fast exact one on the host's cores: within 10 %.
    "compressed_cpu": Kind(_COMPRESSED_CPU, key=["integrator", "work_unit", "threads"], value="integral_s",
                           numeric=_COMPRESSED_NUMERIC, host_only=True, compare=Compare("median", 0.10),
                           may_be_zero={"rule_s"},  # an integrator without rules builds none
                           run_keys={"work_units": _UNITS, "integrators": Input("list[str]"), "repeats": Input("int", 3)}),
    # A fit with the compressed integrator: as `fit`, plus its optimum's likelihood by the exact sum.
    "fit_compressed": _fit_rechecked("exact", "compressed quadrature"),
    # The Hessian at a unit's own vector with and without the integral cache: its integral kernels' seconds, the
    # launches and component integrals, and whether the uncertainties are the same bits (they must be). The
    # integral seconds within 15 %; the counts are exact.
    "hessian": Kind(_HESSIAN, key=["work_unit", "variant", "integral_cache"], value="hessian_integral_s",
                    numeric=_HESSIAN_NUMERIC, compare=Compare("median", 0.15),
                    tables={r"_report_.*\.json$": Kind(suffix=".json", value="likelihood",
                                                       compare=Compare("json_value", 1e-6))},
                    run_keys={"work_units": _UNITS, "variant": Input("str", "modern-f64"), "box": Input("number", 0.05)}),
}
KINDS.update(mwsep_stripes.KINDS)  # the real stripes' fits and separations (experiments/studies/mwsep_stripes.py)
STARS_COUNT, STARS_SEED = 100000, 1
# Units whose catalogue is committed rather than generated.
STARS_FILES = {"stripe11-large": ROOT / "tests" / "data" / "oracle" / "stars" / "stars-11.txt"}
STARS_FILES.update(mwsep_stripes.STARS_FILES)  # the 2009 stripe units take their SDSS catalogues
# The study's own helper scripts (end-to-end rows, SASS instruction mix, profiler sections), beside its kinds.
TOOLS = ROOT / "experiments" / "studies" / "mwsep_tools"


# ---- mwsep fit: parameter recovery and evaluation throughput ---------------------------------------------
# kind `fit`: per run, the unit's catalogue (drawn from the unit's own parameters: the truth) is fitted from a
# start perturbed by `perturb` x each parameter's range, in a box of +- `box` x the range around the start.
# Rows: <name>.csv (one per fit) and <name>_progress.csv (one per generation). `devices` lists the GPUs of one
# process ("" : every GPU; "cpu": the CPU; "local-rank": one GPU per MPI rank); `ranks` > 1 runs that many MPI
# ranks (mpirun), each with `devices`. `needs_gpus` (per run, else per definition) skips a run on a smaller host.
# `variant` (per run) names the CUDA variant the candidates run with (default: mwsep fit's, modern-f64); `run_bits`
# (per run) evaluates every candidate as `mwsep run` does (`mwsep fit --run-bits`: no work moved to the device).
def search_space(mwsep, workunit):
    """The work unit's search vector as `mwsep fit --print-vector` reads it: (name, value, lower, upper) rows."""
    r = subprocess.run([str(mwsep), "fit", "-a", str(workunit), "--print-vector"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"mwsep fit --print-vector failed on {workunit}: {r.stderr.strip()[-400:]}")
    rows = [line.split() for line in r.stdout.splitlines() if line.strip()]
    return [(n, float(v), float(lo), float(hi)) for n, v, lo, hi in rows]


def _kind_fit(self, d):
    name = d["name"]
    # kind fit_compressed: the compressed integrator, then the optimum again with the exact sum (`mwsep fit`
    # prints both likelihoods; they become the columns exact_likelihood and exact_difference, and the log is kept).
    compressed = d["kind"] == "fit_compressed"
    # kind fit_single: a single-precision variant (`variant`, e.g. modern-f32); `mwsep fit` evaluates its optimum
    # again with modern-f64 and prints both likelihoods: the columns f64_likelihood and f64_difference.
    single = d["kind"] == "fit_single"
    if single and not all(run["variant"] for run in d["runs"]):
        raise ValueError(f"{name}: a fit_single run names its single-precision variant (\"variant\": \"modern-f32\")")
    for run in d["runs"]:
        for wu in self.units(run):
            devices, ranks = run["devices"], run["ranks"]

            def job(tmp, run=run, wu=wu, devices=devices, ranks=ranks):
                space = search_space(self.mwsep, self.workunit(wu))
                truth = [v for _, v, _, _ in space]
                # The start: each parameter moved by `perturb` of its range (upper - lower), alternately up and down.
                start = [v + (1 if i % 2 == 0 else -1) * run["perturb"] * (hi - lo)
                         for i, (_, v, lo, hi) in enumerate(space)]
                for fname, vec in (("truth.txt", truth), ("start.txt", start)):
                    (tmp / fname).write_text(f"{fname[:-4]}\nparameters [{len(vec)}]: " + " ".join(repr(v) for v in vec) + "\n")
                cmd = [self.mwsep, "fit", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)),
                       "--search-parameters", str(tmp / "start.txt"), "--truth", str(tmp / "truth.txt"),
                       "--box", str(run["box"]), "--algorithm", run["algorithm"],
                       "--population", str(run["population"]), "--generations", str(run["generations"]),
                       "--polish", str(run["polish"]), "--seed", str(run["seed"]),
                       "--report", str(tmp / "report.json"), "--progress", str(tmp / "progress.csv"),
                       "--work-unit", wu, "--experiment", name]
                # devices "local-rank": each MPI rank takes the GPU of its node-local rank (one GPU per rank).
                cmd += ["--backend", "cpu"] if devices == "cpu" else (["--devices", devices] if devices else [])
                if not run["uncertainties"]:
                    cmd.append("--no-uncertainties")
                if compressed:
                    cmd += ["--integrator", "compressed"]
                if run["variant"]:
                    cmd += ["--variant", run["variant"]]
                if run["run_bits"]:
                    cmd.append("--run-bits")  # each candidate evaluated as mwsep run evaluates it
                if ranks > 1:
                    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)] + cmd
                r = self._run(cmd, log=tmp / f"{name}_{wu}.log")
                if r.returncode != 0:
                    raise RuntimeError(f"mwsep fit failed on {wu}: {r.stderr.strip()[-400:]}")
                rep = json.loads((tmp / "report.json").read_text())
                pulls = [abs(p["pull"]) for p in rep["parameters"].values() if p.get("pull") is not None]
                extra = []
                if compressed:
                    m = re.search(r"likelihood at the optimum: compressed quadrature (\S+), exact sum (\S+) "
                                  r"\(difference (\S+)\)", r.stdout)
                    if not m:
                        raise RuntimeError(f"mwsep fit --integrator compressed printed no exact re-evaluation on {wu}")
                    extra = [m.group(2), m.group(3)]
                if single:
                    m = re.search(r"likelihood at the optimum: single precision \(\S+\) (\S+), double precision "
                                  r"\(modern-f64\) (\S+) \(difference (\S+)\)", r.stdout)
                    if not m:
                        raise RuntimeError(f"mwsep fit --variant {run['variant']} printed no double-precision re-evaluation on {wu}")
                    extra = [m.group(2), m.group(3)]
                row = [name, wu, rep["algorithm"], devices or "all", ranks, rep["population"], rep["generations"],
                       rep["evaluations"], rep["global_evaluations"], rep["global_seconds"], rep["evaluations_per_second"],
                       rep["seconds"], rep["seconds_per_evaluation"], rep["start_likelihood"], rep["likelihood"],
                       rep["truth_likelihood"], max(pulls) if pulls else "", len(rep["parameters"]), rep["evaluator"]] + extra
                part = tmp / f"{name}.csv"
                with part.open("w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(_FIT + (["exact_likelihood", "exact_difference"] if compressed else
                                       ["f64_likelihood", "f64_difference"] if single else []))
                    w.writerow(row)
                (tmp / f"{name}_report_{wu}_{devices or 'all'}_{ranks}.json").write_text(json.dumps(rep, indent=1))
                out = {part.name: part, f"{name}_progress.csv": tmp / "progress.csv"}
                out[f"{name}_report_{wu}_{devices or 'all'}_{ranks}.json"] = tmp / f"{name}_report_{wu}_{devices or 'all'}_{ranks}.json"
                if compressed or single:
                    out[f"{name}_{wu}.log"] = tmp / f"{name}_{wu}.log"
                return out
            # A build without pagmo2 and NLopt has no fit command: its jobs are recorded as skipped.
            skip = _no_fit(self)
            yield Job(f"{wu}|{devices or 'all'}|{ranks}", job, [f"mwsep fit -a {wu} (see the log)"],
                      needs_gpus=0 if devices == "cpu" else d["needs_gpus"] if run["needs_gpus"] is None
                      else run["needs_gpus"], skip=skip)



# kind `hessian`: per unit and variant, `mwsep fit` from the unit's own vector with no search and no polish (a
# population of 2, 0 generations; the start is the better of the two here, and the Hessian is computed there),
# once with --no-integral-cache and once with the cache. Rows: one per run, from its report (hessian_seconds,
# hessian_integral_seconds, the Hessian's integral_work); the cached row says whether its uncertainties (every
# sigma and the scaled Fisher eigenvalues) are the same bits as the uncached run's: "yes" or the job fails.
def _stream_count(workunit):
    """The number of streams a work unit declares (its number_streams line)."""
    m = re.search(r"^number_streams:\s*(\d+)", pathlib.Path(workunit).read_text(), re.M)
    if not m:
        raise RuntimeError(f"{workunit}: no number_streams line")
    return int(m.group(1))


def _kind_hessian(self, d):
    name = d["name"]
    for run in d["runs"]:
        for wu in self.units(run):
            variant = run["variant"]

            def job(tmp, wu=wu, variant=variant, run=run):
                reports, rows = {}, []
                for cache in (False, True):
                    label = "cached" if cache else "uncached"
                    rep_path = tmp / f"{name}_report_{wu}_{variant}_{label}.json"
                    cmd = [self.mwsep, "fit", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)),
                           "--box", str(run["box"]), "--algorithm", "pso", "--population", "2",
                           "--generations", "0", "--polish", "0", "--seed", "1", "--devices", "0",
                           "--variant", variant, "--report", str(rep_path), "--work-unit", wu, "--experiment", name,
                           "--quiet"] + ([] if cache else ["--no-integral-cache"])
                    r = self._run(cmd, log=tmp / f"{name}_{wu}_{variant}_{label}.log")
                    if r.returncode != 0:
                        raise RuntimeError(f"mwsep fit (Hessian, {label}) failed on {wu}: {r.stderr.strip()[-400:]}")
                    rep = json.loads(rep_path.read_text())
                    reports[label] = rep
                    work = rep.get("hessian_integral_work") or {}
                    if cache and not work:
                        raise RuntimeError(f"{wu} {variant}: the cached run's report has no hessian_integral_work")
                    same = ""
                    if cache:
                        ref = reports["uncached"]
                        sig = lambda x: ([p["sigma"] for p in x["parameters"].values()], x.get("scaled_fisher_eigenvalues"))
                        same = "yes" if sig(rep) == sig(ref) else "no"
                    rows.append([name, wu, variant, "on" if cache else "off", len(rep["parameters"]),
                                 rep["hessian_evaluations"], rep["hessian_seconds"], rep["hessian_integral_seconds"],
                                 work.get("full", rep["hessian_evaluations"]), work.get("partial", 0),
                                 work.get("none", 0),
                                 # without the cache every evaluation integrates the background and every stream
                                 work.get("components", rep["hessian_evaluations"] * (1 + _stream_count(self.workunit(wu)))),
                                 work.get("reused", 0),
                                 rep["likelihood"], same])
                if rows[1][-1] != "yes":
                    raise RuntimeError(f"{wu} {variant}: the uncertainties differ with the integral cache")
                part = tmp / f"{name}.csv"
                with part.open("w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(_HESSIAN)
                    w.writerows(rows)
                out = {part.name: part}
                for label in reports:
                    p = tmp / f"{name}_report_{wu}_{variant}_{label}.json"
                    out[p.name] = p
                return out
            skip = _no_fit(self)
            yield Job(f"{wu}|{variant}", job, [f"mwsep fit -a {wu} --generations 0 --polish 0 (see the log)"],
                      needs_gpus=1, skip=skip)


def _no_fit(self):
    """Why this build cannot fit (None when its mwsep has the fit command, which needs pagmo2 and NLopt at build
    time): the reason its fit jobs are recorded (and listed) as skipped."""
    if not hasattr(self, "_fit_missing"):
        try:
            r = subprocess.run([str(self.mwsep), "fit", "--help"], capture_output=True, text=True)
            self._fit_missing = None if r.returncode == 0 else \
                "this mwsep was built without the fit command (pagmo2 and NLopt were not found)"
        except OSError:
            self._fit_missing = f"this build has no mwsep ({self.mwsep})"
    return self._fit_missing


def _has_fit(self):
    return _no_fit(self) is None




# ---- the compressed line-of-sight quadrature: its error against the exact sum, and its CPU timings --------
# kind `compressed_accuracy`: per unit, `mwsep run --json` with the exact variant (`exact`, default modern-f64)
# and the compressed one (`variant`, default compressed-f64), on the unit's own parameters (candidate "model")
# and, with `candidates` N > 0, on N vectors drawn uniformly within +- `box` x each parameter's range around them
# (seed `seed`, clipped to the bounds: the recovery fits' search box) and on "narrowest", the unit's own vector
# with every stream's sigma at the low edge of that box. Rows: every integral and the likelihood, the measured
# relative difference, the controller's stated relative error, the cells that fell back to the exact sum.
# On the units listed in `extended`, a vector whose compressed and exact integrals differ by more than
# `extended_above` (default 1e-13) anywhere, and the "narrowest" vector (unless `extended_narrowest` is false:
# the reference of a large unit takes minutes), are integrated once more by the
# extended-precision CPU integrator (`mwsep run --cpu extended`, every core of the host: long double and the
# direct formulas, the accuracy reference); its integrals and likelihood (`extended`) and both GPU variants'
# distances from them (`exact_error`, `compressed_error`) join the row. A row passes when the compressed value
# is within `max_rel_diff` (default 1e-12) of the reference where there is one, else of the exact variant;
# a row that does not pass marks the job failed. The candidates need the search vector (`mwsep fit
# --print-vector`, a fit-enabled build); a build without it records those jobs as skipped.
def _candidates(self, wu, run):
    import random
    space = search_space(self.mwsep, self.workunit(wu))
    rng = random.Random(run["seed"])
    box = run["box"]
    out = []
    for c in range(run["candidates"]):
        vec = [min(hi, max(lo, v + rng.uniform(-box, box) * (hi - lo))) for _, v, lo, hi in space]
        out.append((f"c{c + 1:02d}", vec))
    out.append(("narrowest", [max(lo, v - box * (hi - lo)) if n.endswith(".sigma") else v for n, v, lo, hi in space]))
    return out


def _kind_compressed_accuracy(self, d):
    name = d["name"]
    for run in d["runs"]:
        exact, variant = run["exact"], run["variant"]
        limit = run["max_rel_diff"]
        for wu in self.units(run):
            def job(tmp, run=run, wu=wu, exact=exact, variant=variant, limit=limit):
                vectors = [("model", None)] + (_candidates(self, wu, run) if run["candidates"] else [])
                rows, bad = [], 0
                for cand, vec in vectors:
                    extra = []
                    if vec is not None:
                        path = tmp / f"{cand}.txt"
                        path.write_text(f"{cand}\nparameters [{len(vec)}]: " + " ".join(repr(v) for v in vec) + "\n")
                        extra = ["--search-parameters", str(path)]
                    res = {}
                    for v in (exact, variant):
                        r = self._run([self.mwsep, "run", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)),
                                       "--backend", "cuda", "--variant", v, "--json"] + extra)
                        if r.returncode != 0:
                            raise RuntimeError(f"mwsep run --variant {v} failed on {wu} ({cand}): {r.stderr.strip()[-300:]}")
                        res[v] = json.loads(r.stdout)
                    m, c = res[exact], res[variant]
                    ctl = c["controller"]
                    quantities = lambda j: [j["background_integral"]] + list(j["stream_integrals"]) + [j["likelihood"]]
                    names = ["background"] + [f"stream{i + 1}" for i in range(len(m["stream_integrals"]))] + ["likelihood"]
                    qm, qc = quantities(m), quantities(c)
                    diffs = [abs(b - a) / abs(a) for a, b in zip(qm, qc)]
                    qe = None
                    forced = cand == "narrowest" and run["extended_narrowest"]
                    if wu in run["extended"] and (forced or max(diffs) > run["extended_above"]):
                        r = self._run([self.mwsep, "run", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)),
                                       "--cpu", "extended", "--json"] + extra)
                        if r.returncode != 0:
                            raise RuntimeError(f"mwsep run --cpu extended failed on {wu} ({cand}): {r.stderr.strip()[-300:]}")
                        qe = quantities(json.loads(r.stdout))
                    for k, q in enumerate(names):
                        a, b, diff = qm[k], qc[k], diffs[k]
                        truth = ["", "", ""]
                        ok = diff <= limit
                        if qe is not None:
                            e = qe[k]
                            err_exact, err_comp = abs(a - e) / abs(e), abs(b - e) / abs(e)
                            truth = [repr(e), f"{err_exact:.3e}", f"{err_comp:.3e}"]
                            ok = err_comp <= limit
                        bad += not ok
                        comp_k = k if q != "likelihood" else None
                        rows.append([name, wu, cand, q, repr(a), repr(b), f"{diff:.3e}",
                                     f"{ctl['stated_relative_error'][comp_k]:.3e}" if comp_k is not None else "",
                                     int(ctl["fallback_cells"][comp_k]) if comp_k is not None else "",
                                     int(ctl["cells"][comp_k]) if comp_k is not None else "", ctl["tolerance"]]
                                    + truth + [str(ok).lower()])
                    print(f"    {wu} {cand}: largest rel diff {max(diffs):.2e}"
                          + (f", reference taken" if qe is not None else "") + f", {int(ctl['fallbacks'])} fallbacks", flush=True)
                part = tmp / f"{name}.csv"
                with part.open("w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(_COMPRESSED_ACCURACY)
                    w.writerows(rows)
                if bad:
                    e = JobFailed(f"{bad} quantities of {wu} differ from the reference (extended precision where taken, "
                                  f"else {exact}) by more than {limit:g} (rows marked invalid)")
                    e.outputs = {part.name: part}
                    raise e
                return {part.name: part}
            skip = None
            if run["candidates"] and not _has_fit(self):
                skip = "the candidates need the search vector of `mwsep fit --print-vector`: this mwsep has no fit command"
            yield Job(f"{wu}|{variant}|candidates={run['candidates']}", job,
                      [f"mwsep run -a {wu} --backend cuda --variant {exact}|{variant} --json [--search-parameters <candidate>]"],
                      needs_gpus=1, skip=skip)


# kind `compressed_cpu`: one evaluation of a unit with `mwsep run --cpu <integrator> --json` on every core,
# `repeats` times per integrator; the compressed integrator's time includes building its rules (rule_s), and
# integral_without_rules_s is its time once they are built.
def _kind_compressed_cpu(self, d):
    name = d["name"]
    for run in d["runs"]:
        for wu in self.units(run):
            def job(tmp, run=run, wu=wu):
                rows = []
                for integrator in run["integrators"]:
                    for rep in range(run["repeats"]):
                        r = self._run([self.mwsep, "run", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)),
                                       "--cpu", integrator, "--json"])
                        if r.returncode != 0:
                            raise RuntimeError(f"mwsep run --cpu {integrator} failed on {wu}: {r.stderr.strip()[-300:]}")
                        js = json.loads(r.stdout)
                        ctl = js.get("controller", {})
                        total, rule = js["timings"]["integral"], ctl.get("rule_seconds", 0.0)
                        rows.append([name, integrator, wu, js["settings"]["threads"], rep, total, rule, total - rule,
                                     repr(js["likelihood"]), ctl.get("fallbacks", 0)])
                        print(f"    {wu} --cpu {integrator}: integral {total:.3f} s (rules {rule:.3f} s)", flush=True)
                part = tmp / f"{name}.csv"
                with part.open("w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(_COMPRESSED_CPU)
                    w.writerows(rows)
                return {part.name: part}
            yield Job(f"{','.join(run['integrators'])}|{wu}", job,
                      [f"mwsep run -a {wu} --cpu {i} --json" for i in run["integrators"]], needs_gpus=0)


# ---- checkpoint and resume under SIGKILL -----------------------------------------------------------------
# kind `checkpoint`: tests/mwsep/checkpoint_kill_test.py with this build's mwsep and the run's `engine` (fast,
# reference or cuda): 20 kills at random moments, then SIGINT and SIGTERM, each resumed; its log is
# <name>_<engine>.log, verified when the final result is bit-identical to an uninterrupted run.


def _kind_checkpoint(self, d):
    name = d["name"]
    script = ROOT / "tests" / "mwsep" / "checkpoint_kill_test.py"
    for run in d["runs"]:
        engine = run["engine"]

        def job(tmp, engine=engine, run=run):
            log = tmp / f"{name}_{engine}.log"
            r = self._run([sys.executable, str(script), str(self.mwsep), str(ROOT / "data" / "workunits"), engine,
                           "--kills", str(run["kills"]), "--seed", str(run["seed"]), "--log", str(log)])
            print("\n".join(r.stdout.splitlines()[-3:]), flush=True)
            if not log.exists():
                log.write_text(r.stdout + "\n" + r.stderr)
            if r.returncode != 0:
                e = JobFailed(f"checkpoint test ({engine}) exit {r.returncode}: {r.stderr.strip()[-300:]}")
                e.outputs = {log.name: log}
                raise e
            return {log.name: log}
        yield Job(engine, job, [f"tests/mwsep/checkpoint_kill_test.py <build>/mwsep data/workunits {engine}"],
                  needs_gpus=1 if engine == "cuda" else 0)



class Study(study.Study):
    KINDS = KINDS
    PROGRAM = "mwsep"
    GPU_TESTS = ("tests/mwsep/mwsep_gpu_tests", "MWSEP_GPU_RESULTS")
    SM_COUNT_ARGS = ("variants", "--streams", "3")

    def __init__(self, build, quick, devices, options):
        super().__init__(build, quick, devices, options)
        self.mwsep = self.program

    kind_fit = _kind_fit
    kind_fit_compressed = _kind_fit
    kind_fit_single = _kind_fit
    kind_compressed_accuracy = _kind_compressed_accuracy
    kind_compressed_cpu = _kind_compressed_cpu
    kind_checkpoint = _kind_checkpoint
    kind_hessian = _kind_hessian
    kind_fit_stripe = mwsep_stripes.kind_fit_stripe

    # ---- inputs -------------------------------------------------------------------------------------
    @staticmethod
    def workunit(wu):
        path = ROOT / "data" / "workunits" / wu / "astronomy_parameters.txt"
        if not path.exists():
            raise RuntimeError(f"no work unit {wu} ({path})")
        return path

    def stars(self, wu):
        """The unit's synthetic catalogue (made by `mwsep generate` if missing, as `make stars` does); the
        stripe-11 model (the public application's own) takes its real SDSS catalogue."""
        if wu in STARS_FILES:
            return STARS_FILES[wu]
        path = ROOT / "data" / "stars" / f"{wu}.txt"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            r = sh([self.mwsep, "generate", "-a", str(self.workunit(wu)), "-o", str(path),
                    "--count", str(STARS_COUNT), "--seed", str(STARS_SEED)])
            if r.returncode != 0:
                raise RuntimeError(f"generating stars for {wu} failed: {r.stderr.strip()}")
        return path

    def reference(self, wu):
        """The CPU likelihood of a unit (fast integrator, all cores), computed once per build."""
        cache = self.build / "reference" / f"{wu}.json"
        if not cache.exists():
            cache.parent.mkdir(parents=True, exist_ok=True)
            r = sh([self.mwsep, "run", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)), "--cpu", "fast", "--json"])
            if r.returncode != 0:
                raise RuntimeError(f"CPU reference of {wu} failed: {r.stderr.strip()}")
            cache.write_text(r.stdout)
        return json.loads(cache.read_text())["likelihood"]

    def units(self, run):
        wus = run["work_units"]
        return [w for w in wus if w in SMALL] or SMALL[1:] if self.quick else wus

    def _summarised(self, tmp, cmd, raw, summary_tool, name):
        """Runs a tool, keeps its output in @p raw, and turns it into <name>.csv with
        experiments/studies/mwsep_tools/<summary_tool>."""
        r = self._run(cmd)
        raw.write_text(r.stdout)
        s = self._run([sys.executable, str(TOOLS / summary_tool), str(raw)])
        if r.returncode != 0 or s.returncode != 0 or len(s.stdout.splitlines()) < 2:
            raise RuntimeError(f"{cmd[0]} or {summary_tool} failed: {r.stderr.strip()[-300:]} {s.stderr.strip()[-300:]}")
        part = tmp / f"{name}.csv"
        part.write_text(s.stdout)
        return {part.name: part}

    def kind_bench(self, d):
        for run in d["runs"]:
            for wu in self.units(run):
                for sweep in self.sweep(run):
                    opts = dict(run["options"], **sweep)
                    key = f"{','.join(run['variants'])}|{wu}|{json.dumps(opts, sort_keys=True)}"
                    yield self._bench_job(d, key, wu, run["variants"], self.flags(opts), run["repeats"])

    def _bench_job(self, d, key, wu, variants, flags, repeats):
        """`mwsep bench` of @p variants on unit @p wu, every timed likelihood checked against the CPU's (--expect,
        computed once per build when the job runs); shown with the unit's paths relative to the tree."""
        name = d["name"]
        shown = [self.mwsep, "bench", "-a", f"data/workunits/{wu}/astronomy_parameters.txt", "-s",
                 f"data/stars/{wu}.txt", "--work-unit", wu, "--experiment", name, "--variants", ",".join(variants),
                 "--min-samples", str(repeats)] + flags

        def run(tmp):
            args = ["bench", "-a", self.workunit(wu), "-s", self.stars(wu)] + shown[6:] + \
                ["--expect", repr(self.reference(wu))]
            return self.run_csv(tmp, name, args, invalid="a timed likelihood disagreed with the CPU (rows marked invalid)")
        return Job(key, run, [" ".join(shown)], needs_gpus=d["needs_gpus"], argv=shown)

    def kind_bench_cpu(self, d, extra=()):
        name = d["name"]
        for run in d["runs"]:
            for wu in self.units(run):
                slices = run["slices"]
                args = ["bench-cpu", "-a", f"data/workunits/{wu}/astronomy_parameters.txt", "--work-unit", wu,
                        "--experiment", name, "--integrators", run["integrators"],
                        "--min-samples", str(run["repeats"]), "--slices", str(slices), *extra]
                yield self.csv_job(d, f"{run['integrators']}|{wu}|slices={slices}", args, needs_gpus=0,
                                   invalid="the CPU integrators failed")

    def kind_slice_load(self, d):
        """One single-core slice alone and among all the slices running together (`bench-cpu --slice-load`)."""
        return self.kind_bench_cpu(d, extra=("--slice-load",))

    def kind_host(self, d):
        name = d["name"]
        for run in d["runs"]:
            for wu in self.units(run):
                args = ["skipping", "-a", f"data/workunits/{wu}/astronomy_parameters.txt", "--work-unit", wu]

                def job(tmp, args=args, wu=wu):
                    part = tmp / f"{name}.csv"
                    r = self._run([self.mwsep] + args)
                    if r.returncode != 0 or len(r.stdout.splitlines()) < 2:
                        raise RuntimeError(f"mwsep skipping failed for {wu}: {r.stderr.strip()[-300:]}")
                    part.write_text(r.stdout)
                    return {f"{name}.csv": part}
                yield Job(wu, job, ["mwsep " + " ".join(args)], needs_gpus=0)

    def _tiny_stars(self):
        path = self.build / "reference" / "tiny-2000.txt"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            r = sh([self.mwsep, "generate", "-a", str(self.workunit("tiny")), "-o", str(path), "--count", "2000", "--seed", "3"])
            if r.returncode != 0:
                raise RuntimeError(r.stderr)
        return path

    def kind_sanitizer(self, d):
        for run in d["runs"]:
            for tool in run["tools"]:
                for v in run["variants"]:
                    def job(tmp, tool=tool, v=v):
                        log = tmp / f"{tool}_{v}.log"
                        r = self._run(["compute-sanitizer", "--tool", tool, "--error-exitcode", "9", self.mwsep, "run",
                                       "-a", str(self.workunit("tiny")), "-s", str(self._tiny_stars()),
                                       "--backend", "cuda", "--variant", v], log=log)
                        text = log.read_text()
                        clean = re.search(r"ERROR SUMMARY: 0 errors", text) or re.search(r"RACECHECK SUMMARY: 0 hazards", text)
                        print(f"    {tool} {v}: exit {r.returncode}", flush=True)
                        if r.returncode != 0 or not clean:
                            e = JobFailed(f"{tool} found problems in {v} (exit {r.returncode})")
                            e.outputs = {log.name: log}
                            raise e
                        return {log.name: log}
                    yield Job(f"{tool}|{v}", job, [f"compute-sanitizer --tool {tool} mwsep run (tiny) --variant {v}"],
                              needs_gpus=1)

    def kind_listing(self, d):
        for run in d["runs"]:
            s = run["streams"]

            def job(tmp, s=s):
                out = tmp / f"{d['name']}.txt"
                r = self._run([self.mwsep, "variants", "--streams", str(s)])
                if r.returncode != 0 or "(no compiler report)" in r.stdout or "GPU:" not in r.stdout:
                    raise RuntimeError(f"mwsep variants failed or lacks a report: {r.stderr.strip()[-300:]}")
                out.write_text(r.stdout)
                return {out.name: out}
            yield Job(f"streams={s}", job, [f"mwsep variants --streams {s}"])

    def kind_ncu_metrics(self, d):
        metrics = d["metrics"]
        for run in d["runs"]:
            wu = run["work_unit"]
            for v in run["variants"]:
                def job(tmp, v=v, wu=wu, run=run):
                    cmd = ["ncu", "--clock-control", "none", "--kernel-name", f"regex:{run['kernel']}",
                           "--launch-skip", str(run["launch_skip"]), "--launch-count", "1", "--csv",
                           "--metrics", ",".join(metrics.values()), self.mwsep, "run", "-a", str(self.workunit(wu)),
                           "-s", str(self.stars(wu)), "--backend", "cuda", "--variant", v]
                    r = self._run(cmd)
                    val = self._ncu_values(r.stdout, metrics.values(), f"{v}: {r.stderr.strip()[-300:]}")
                    part = tmp / f"{d['name']}.csv"
                    part.write_text("variant," + ",".join(metrics) + "\n" + v + "," +
                                    ",".join(val[m] for m in metrics.values()) + "\n")
                    return {part.name: part}
                yield Job(f"{v}|{wu}", job, [f"ncu --clock-control none --metrics ... mwsep run {wu} --variant {v}"])

    def kind_ncu_sections(self, d):
        run = d["runs"][0]
        wu = run["work_unit"]

        def job(tmp):
            raw = tmp / "ncu_raw.csv"
            cmd = ["ncu", "--clock-control", "none", "--kernel-name", f"regex:{run['kernel']}", "--launch-count", "1",
                   "--csv", "--page", "details", "--print-units", "base"]
            for s in run["sections"]:
                cmd += ["--section", s]
            cmd += [self.mwsep, "run", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)), "--backend", "cuda",
                    "--variant", run["variant"]]
            return self._summarised(tmp, cmd, raw, "ncu_summary.py", d["name"])
        yield Job(f"{run['variant']}|{wu}", job, [f"ncu --clock-control none --section ... mwsep run {wu} --variant {run['variant']}"])

    def kind_sass(self, d):
        run = d["runs"][0]

        def job(tmp):
            objects = list(self.build.rglob(run["object"]))
            if len(objects) != 1:
                raise RuntimeError(f"expected one object {run['object']} in the build, found {len(objects)}")
            return self._summarised(tmp, ["cuobjdump", "-sass", str(objects[0])], tmp / "kernel.sass", "sass_mix.py",
                                    d["name"])
        yield Job(run["object"], job, [f"cuobjdump -sass {run['object']} | experiments/studies/mwsep_tools/sass_mix.py"])

    def kind_e2e(self, d):
        for run in d["runs"]:
            devices = run["devices_column"]
            for wu in self.units(run):
                def job(tmp, wu=wu, run=run, devices=devices):
                    part = tmp / f"{d['name']}.csv"
                    header = self._run([sys.executable, str(TOOLS / "e2e_row.py"), "--header"] + (["--devices"] if devices else []))
                    lines = [header.stdout.strip()]
                    # One untimed run first: the first process on a host pays for loading the driver and
                    # reading the files from disk, which no later run does.
                    warm = self._run([self.mwsep, "run", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)),
                                      "--backend", "cuda", "--variant", run["variant"], "--json"])
                    if warm.returncode != 0:
                        raise RuntimeError(f"mwsep run failed: {warm.stderr.strip()[-300:]}")
                    for rep in range(run["repeats"]):
                        js = tmp / f"run_{rep}.json"
                        # CLOCK_MONOTONIC around the process, the clock of the run's own timestamps
                        # (its JSON's "clock"): the start before main() and the exit after the output.
                        launch_ns = time.monotonic_ns()
                        t0 = time.perf_counter_ns()
                        r = self._run([self.mwsep, "run", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)),
                                       "--backend", "cuda", "--variant", run["variant"], "--json"])
                        wall_ms = (time.perf_counter_ns() - t0) // 1_000_000
                        exit_ns = time.monotonic_ns()
                        if r.returncode != 0:
                            raise RuntimeError(f"mwsep run failed: {r.stderr.strip()[-300:]}")
                        js.write_text(r.stdout)
                        row = self._run([sys.executable, str(TOOLS / "e2e_row.py"), str(js), wu, str(rep), str(wall_ms),
                                         str(launch_ns), str(exit_ns)] + (["--devices"] if devices else []))
                        if row.returncode != 0:
                            raise RuntimeError(row.stderr.strip()[-300:])
                        lines.append(row.stdout.strip())
                    part.write_text("\n".join(lines) + "\n")
                    return {part.name: part}
                yield Job(f"{run['variant']}|{wu}", job, [f"mwsep run -a {wu} --backend cuda --variant {run['variant']} --json (timed by the runner)"],
                          needs_gpus=d["needs_gpus"])

    def _microbench(self, d):
        """A microbenchmark definition's command line: the `mwsep` command its run names (`command`: exp-throughput
        or hardware-micro, built by CMake with the project's flags; the runner has checked it is one of them) with
        its `args`."""
        run = d["runs"][0]
        return [self.mwsep, run["command"], *run["args"]]

    @staticmethod
    def _ncu_values(stdout, metrics, what):
        """The values of `metrics` (their Nsight Compute names) in the CSV `ncu --csv --metrics` printed, by
        metric name, thousands separators removed; refused where ncu measured no launch or left one out."""
        table = list(csv.reader([l for l in stdout.splitlines() if l.startswith('"')]))
        if len(table) < 2:
            raise RuntimeError(f"ncu measured no launch of {what}")
        head = table[0]
        val = {t[head.index("Metric Name")]: t[head.index("Metric Value")].replace(",", "") for t in table[1:]}
        missing = [m for m in metrics if m not in val]
        if missing:
            raise RuntimeError(f"ncu did not report {missing} for {what}")
        return val

    def kind_microbench(self, d):
        run = d["runs"][0]
        command = self._microbench(d)

        def job(tmp):
            r = self._run(command)
            if r.returncode != 0 or len(r.stdout.splitlines()) < 2:
                raise RuntimeError(f"mwsep {run['command']} failed: {r.stderr.strip()[-300:]}")
            print(r.stdout, end="", flush=True)
            part = tmp / f"{d['name']}.csv"
            part.write_text(r.stdout)
            return {part.name: part}
        yield Job(f"mwsep {run['command']}", job, [" ".join(["mwsep", *map(str, command[1:])])], needs_gpus=1,
                  argv=command)

    # The same job: run the definition's command, keep its CSV.
    kind_hw_microbench = kind_microbench

    def kind_microbench_pipe(self, d):
        """Run the definition's command with its `args` (every row timed), then each row once more under Nsight
        Compute (`--only FUNCTION:ARGUMENTS --once`: one checked launch, skipped, and the timed launch, profiled)
        for the FP64 pipe's use and the issue slots' use; one CSV of both."""
        run = d["runs"][0]
        metrics = {"fp64_pipe_pct": "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
                   "fp64_inst_pct": "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
                   "issue_active_pct": "smsp__issue_active.avg.pct_of_peak_sustained_active"}

        command = self._microbench(d)

        def job(tmp):
            r = self._run(command)
            rows = list(csv.DictReader(r.stdout.splitlines()))
            if r.returncode != 0 or not rows:
                raise RuntimeError(f"mwsep {run['command']} failed: {r.stderr.strip()[-300:]}")
            print(r.stdout, end="", flush=True)
            for row in rows:
                cmd = ["ncu", "--clock-control", "none", "--launch-skip", "1", "--launch-count", "1", "--csv",
                       "--metrics", ",".join(metrics.values()), *command,
                       "--only", f"{row['function']}:{row['arguments']}", "--once"]
                n = self._run(cmd)
                val = self._ncu_values(n.stdout, metrics.values(), f"{row['function']}: {n.stderr.strip()[-300:]}")
                for column, metric in metrics.items():
                    row[column] = val[metric]
            part = tmp / f"{d['name']}.csv"
            with part.open("w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=KINDS[d["kind"]].columns)
                w.writeheader()
                w.writerows(rows)
            return {part.name: part}
        yield Job(f"mwsep {run['command']}", job, [" ".join(["mwsep", *map(str, command[1:])]),
                                                     "ncu per row (--only FUNCTION:ARGUMENTS --once, the timed launch profiled)"],
                  needs_gpus=1, argv=command)

    # The same job, the chains set's columns.
    kind_microbench_chains = kind_microbench_pipe

    def kind_device_memory(self, d):
        """Per unit and variant, one `mwsep run --json` on device 0: the bytes its device_memory object reports."""
        for run in d["runs"]:
            for wu in self.units(run):
                for variant in run["variants"]:
                    def job(tmp, wu=wu, variant=variant):
                        r = self._run([self.mwsep, "run", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)),
                                       "--backend", "cuda", "--variant", variant, "--device", "0", "--json"])
                        if r.returncode != 0:
                            raise RuntimeError(f"mwsep run failed on {wu} ({variant}): {r.stderr.strip()[-300:]}")
                        out = json.loads(r.stdout)
                        mem = out.get("device_memory")
                        if not mem or mem["integral_bytes"] <= 0 or mem["star_bytes"] <= 0:
                            raise RuntimeError(f"mwsep run --json on {wu} ({variant}) reported no device memory: {mem}")
                        part = tmp / f"{d['name']}.csv"
                        with part.open("w", newline="") as f:
                            w = csv.writer(f)
                            w.writerow(KINDS["device_memory"].columns)
                            w.writerow([wu, variant, out["number_stars"], mem["integral_bytes"], mem["star_bytes"],
                                        mem["integral_bytes"] + mem["star_bytes"]])
                        return {part.name: part}
                    yield Job(f"{variant}|{wu}", job, [f"mwsep run -a {wu} --backend cuda --variant {variant} --device 0 --json"],
                              needs_gpus=1)

    def kind_peer(self, d):
        peer = self.options.get("peer")
        for run in d["runs"]:
            for wu in self.units(run):
                for flags in run["flags"]:
                    key = f"{wu}|{flags}"
                    if not peer:
                        yield Job(key, None, [], skip="no peer binary given (experiments/run.py --peer PATH)")
                        continue

                    def job(tmp, wu=wu, flags=flags, run=run):
                        converted = tmp / "peer_astronomy_parameters.txt"
                        c = self._run([sys.executable, str(ROOT / "experiments" / "peer" / "convert_workunit.py"),
                                       str(self.workunit(wu)), "-o", str(converted)])
                        if c.returncode != 0:
                            raise RuntimeError(f"converting {wu} failed: {c.stderr.strip()[-300:]}")
                        part = tmp / f"{d['name']}.csv"
                        raw = tmp / "raw"
                        meta = tmp / "peer.meta.json"
                        r = self._run([sys.executable, str(ROOT / "experiments" / "peer" / "run_peer.py"), "--peer", peer,
                                       "--lib", self.options.get("peer_lib") or str(pathlib.Path(peer).parent / "lib"),
                                       "--work-unit", wu, "--astronomy", str(converted), "--stars", str(self.stars(wu)),
                                       "--repeats", str(run["repeats"]), "--flags", flags, "--csv", str(part),
                                       "--raw-dir", str(raw), "--meta", str(meta)])
                        print(r.stdout[-600:], r.stderr[-600:], flush=True)
                        if r.returncode != 0:
                            raise RuntimeError(f"run_peer.py failed: {r.stderr.strip()[-400:]}")
                        log = tmp / f"{d['name']}_{wu}_{flags}.log"
                        log.write_text("\n".join(f"==> {p.name}\n{p.read_text()}" for p in sorted(raw.rglob("*")) if p.is_file()))
                        # The peer's own provenance (binary hash, version line) travels inside the raw log.
                        log.write_text(log.read_text() + "\n==> run_peer.py meta\n" + meta.read_text())
                        return {part.name: part, log.name: log}
                    yield Job(key, job, [f"experiments/peer/run_peer.py --peer <peer binary> --work-unit {wu} --flags {flags}"])


