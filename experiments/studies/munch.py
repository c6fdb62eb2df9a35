"""The Münch (2009) study: 1-D convolution, the rolling-ball filter and the limits of CUDA.

Each kind turns one run of a definition into jobs (experiments/harness/runner.py); a job runs `munch` or
the study's GPU tests and writes rows or text into a scratch folder:
  bench        GPU variants on one input each (`munch bench`): every output checked against the CPU
               reference before it is timed; rows of a wrong output are marked invalid and fail the job
  bench_cpu    the CPU baselines, sequential and OpenMP (`munch bench-cpu`), checked
  launch       empty-kernel launch cost against block and grid size: synchronised, asynchronous, graph
  launch_first context creation and the first launch in fresh processes, lazy and eager module loading
  pattern      a number of synchronised launches per evaluation (the likelihood thesis's 22,400), replayed
  copy         copy bandwidth against size: pageable, pinned, mapped host memory and device to device
  pipeline     the convolution with its transfers (`munch pipeline`): the thesis's per-call procedure, persistent
               pinned buffers, the chunked pipeline over streams and as a CUDA graph, and the copy floor of the
               same bytes, in one run; every output checked (bit for bit against the direct variant) first
  roofline     measured float and double peaks and streaming bandwidth
  ieee         float division, square root, multiply-add and denormals: four builds against the CPU
  matmul       the thesis's chapter 3 on the GPU (`munch matmul`): the SDK-style tiled kernel and cuBLAS
               SGEMM in FP32, the kernel alone and with allocation and copies, each product checked first
  matmul_cpu   the same products on the CPU: the ikj loop, sequential and OpenMP, checked
  correctness  every GPU variant against the CPU on the test sizes (the study's GPU tests): a log

A bench or bench_cpu run names its input sizes as `signals` x `filters`, keeping the cells of the
thesis's tables (a signal at least as long as the filter) whose work (signal x filter) is at most
`max_work`: the largest cells of its tables are hours of CPU time, and the budget of the whole run is
minutes.
"""
import subprocess

from experiments.harness import study
from experiments.harness.kinds import CACHE_KEY, GTEST_PASSED, TIMING, Compare, Input, Kind, text_kind
from experiments.harness.provenance import ROOT
from experiments.harness.runner import Job, JobFailed
from experiments.harness.study import CACHE_INPUT

NUMERIC = {"signal", "filter", "kernel_ms", "total_ms", "max_abs_err", "tolerance", "gflops", "gbps", "noise_pct", "samples", "ms",
           "threads", "blocks", "threads_per_block", "launches", "us_per_launch", "ms_per_evaluation", "bytes", "gb_per_s", "value",
           "count", "mismatches", "max_ulp", "sm_clock_mhz", "n", "gflops", "max_err_ratio", "chunks"}
_MATMUL = ["experiment", "implementation", "threads", "n", "timing", "repeat", "ms", "gflops", "valid", "max_err_ratio",
           "max_abs_err", "checked", *TIMING]
_LAUNCH = ["experiment", "mode", "grid", "block", "blocks", "threads_per_block", "launches", "module_loading", "repeat",
           "us_per_launch", "noise_pct", "samples", "stop_reason"]
_LAUNCH_KEY = ["mode", "grid", "block", "launches", "module_loading"]
# Every kind this study writes (experiments/harness/kinds.py). GPU kernel timings: within 2 % or the interval of
# the two medians where wider; CPU timings and the limits (launches, copies, peaks) within 10 % or that interval
# (too noisy to judge above 10 %); the IEEE comparison counts exact. Each kind's inputs: the keys a definition's run may
# give (harness.kinds.Input).
_CELLS = {"computation": Input("str"), "signals": Input("list[int]"), "filters": Input("list[int]"),
          "max_work": Input("number", None), "time_limit": Input("number", 1.0)}
_MATMUL_RUN = {"implementations": Input("list[str]"), "sizes": Input("list[int]"), "repeats": Input("int", 3),
               "max_samples": Input("int", 20), "time_limit": Input("number", 1.0), "timings": Input("list[str]", None)}
KINDS = {
    "bench": Kind(["experiment", "computation", "variant", "signal", "filter", "repeat", "kernel_ms", "total_ms", "valid",
                   "max_abs_err", "tolerance", "checked", "gflops", "gbps", *TIMING],
                  key=["computation", "variant", "signal", "filter", *CACHE_KEY], value="kernel_ms", numeric=NUMERIC,
                  compare=Compare("median", 0.02, noise="noise_pct"),
                  run_keys=dict(_CELLS, variants=Input("list[str]"), repeats=Input("int", 3),
                                max_samples=Input("int", 20), with_overhead=Input("bool", False), cache=CACHE_INPUT)),
    "bench_cpu": Kind(["experiment", "computation", "implementation", "threads", "signal", "filter", "repeat", "ms", "valid",
                       "checked", "noise_pct", "samples", "stop_reason"],
                      key=["computation", "implementation", "threads", "signal", "filter"], value="ms", numeric=NUMERIC,
                      host_only=True, compare=Compare("median", 0.10, noise="noise_pct"),
                      run_keys=dict(_CELLS, implementations=Input("list[str]"), repeats=Input("int", 3),
                                    max_samples=Input("int", None))),
    "launch": Kind(_LAUNCH, key=_LAUNCH_KEY, value="us_per_launch", numeric=NUMERIC,
                   compare=Compare("median", 0.10, noise="noise_pct"),
                   run_keys={"launches": Input("int", 1000), "repeats": Input("int", 5)}),
    "launch_first": Kind(_LAUNCH, key=_LAUNCH_KEY, value="us_per_launch", numeric=NUMERIC,
                         compare=Compare("median", 0.10, noise="noise_pct"),
                         run_keys={"module_loading": Input("list[str]"), "processes": Input("int", 5)}),
    "pattern": Kind(["experiment", "mode", "launches", "repeat", "ms_per_evaluation", "us_per_launch", "noise_pct", "samples",
                     "stop_reason"], key=["mode", "launches"], value="ms_per_evaluation", numeric=NUMERIC,
                    compare=Compare("median", 0.10, noise="noise_pct"),
                    run_keys={"launches_per_evaluation": Input("int"), "repeats": Input("int", 3)}),
    "copy": Kind(["experiment", "memory", "direction", "bytes", "repeat", "ms", "gb_per_s", "noise_pct", "samples",
                  "stop_reason"], key=["memory", "direction", "bytes", *CACHE_KEY], value="gb_per_s", numeric=NUMERIC,
                 compare=Compare("median", 0.10, noise="noise_pct"),
                 run_keys={"min_bytes": Input("int"), "max_bytes": Input("int"), "repeats": Input("int", 5),
                           "cache": CACHE_INPUT}),
    "roofline": Kind(["experiment", "quantity", "unit", "repeat", "value", "ms", *TIMING], key=["quantity", "unit", *CACHE_KEY],
                     value="value", numeric=NUMERIC, compare=Compare("median", 0.10, noise="noise_pct"),
                     run_keys={"repeats": Input("int", 5), "cache": CACHE_INPUT}),
    "ieee": Kind(["experiment", "build", "flags", "operation", "cpu_reference", "count", "mismatches", "max_ulp"],
                 key=["build", "operation", "cpu_reference"], numeric=NUMERIC, compare=Compare("exact"),
                 run_keys={"count": Input("int", 1 << 20)}),
    # The matrix products: a GPU row's threads is 0 and its timing `kernel` or `with-transfers`; a CPU row's
    # timing is `compute`. GPU within 2 %, CPU within 10 %, or the medians' interval.
    "matmul": Kind(_MATMUL, key=["implementation", "threads", "n", "timing", *CACHE_KEY], value="ms", numeric=NUMERIC,
                   compare=Compare("median", 0.02, noise="noise_pct"), run_keys=dict(_MATMUL_RUN, cache=CACHE_INPUT)),
    "matmul_cpu": Kind(_MATMUL, key=["implementation", "threads", "n", "timing"], value="ms", numeric=NUMERIC,
                       host_only=True, compare=Compare("median", 0.10, noise="noise_pct"), run_keys=_MATMUL_RUN),
    # The pipelined convolution: per mode and chunk count, host-clock times within 10 % or 3 x the spread (the
    # copies over PCIe vary more between hosts than kernels do).
    "pipeline": Kind(["experiment", "mode", "signal", "filter", "chunks", "repeat", "ms", "bytes", "gb_per_s", "valid",
                      "checked", *TIMING], key=["mode", "signal", "filter", "chunks", *CACHE_KEY], value="ms",
                     numeric=NUMERIC, compare=Compare("median", 0.10, noise="noise_pct"),
                     run_keys={"signal": Input("int"), "filter": Input("int"), "chunks": Input("list[int]"),
                               "modes": Input("list[str]|none", None), "min_samples": Input("int", 5),
                               "max_samples": Input("int", 30), "time_limit": Input("number", 2.0)}),
    # The study's GPU tests compare on the host and keep their log only.
    "correctness": text_kind(GTEST_PASSED, run_keys={}),
}


def rolling_ball_checkable(n, w, budget=2e10):
    """Whether `munch bench` can check a rolling ball of this size (munch::check::rolling_ball_checkable):
    the full reference costs 2 n w window terms, a sampled output w^2, and 16 samples at least."""
    return 2 * n * w <= budget or 16 * w * w <= budget


def cells(run):
    """The (signal, filter) cells of a run: the thesis's rule (signal >= filter), the run's work cap, and
    for the rolling ball on the GPU only the cells a CPU reference can check."""
    cap = run["max_work"] if run["max_work"] is not None else float("inf")
    keep = [(n, w) for w in run["filters"] for n in run["signals"] if n >= w and n * w <= cap]
    if run["computation"] == "rolling-ball" and "variants" in run:
        keep = [(n, w) for n, w in keep if rolling_ball_checkable(n, w)]
    return keep


def merged_cells(runs, names_key):
    """One entry per cell with the names (variants or implementations) of every run that keeps it, in order,
    and the first such run's options: one process per cell computes the cell's reference once."""
    merged = {}
    for run in runs:
        for cell in cells(run):
            entry = merged.setdefault(cell, {"run": run, "names": []})
            entry["names"] += [v for v in run[names_key] if v not in entry["names"]]
    return [(n, w, e["run"], e["names"]) for (n, w), e in merged.items()]


class Study(study.Study):
    KINDS = KINDS
    PROGRAM = "munch"

    def __init__(self, build, quick, devices, options):
        super().__init__(build, quick, devices, options)
        self.munch = self.program

    def _job(self, d, key, args, needs_gpus=1):
        """A `munch` command that writes rows (csv_job); the experiment's name follows the shown arguments."""
        return self.csv_job(d, key, args, after=("--experiment", d["name"]), needs_gpus=needs_gpus,
                            invalid=f"munch {args[0]} failed its check (rows marked invalid)")

    def kind_bench(self, d):
        for n, w, run, variants in merged_cells(d["runs"], "variants"):
            args = ["bench", "--computation", run["computation"], "--variants", ",".join(variants),
                    "--signal", str(n), "--filter", str(w), "--min-samples", str(run["repeats"]),
                    "--max-samples", str(run["max_samples"]), "--time-limit", str(run["time_limit"])]
            if run["with_overhead"]:
                args.append("--with-overhead")
            for state, flags in study.cache_states(run):
                key = f"{run['computation']}|{','.join(variants)}|{n}|{w}|{run['with_overhead']}" + study.cache_suffix(state)
                yield self._job(d, key, args + flags)

    def kind_bench_cpu(self, d):
        for n, w, run, implementations in merged_cells(d["runs"], "implementations"):
            args = ["bench-cpu", "--computation", run["computation"], "--variants", ",".join(implementations),
                    "--signal", str(n), "--filter", str(w), "--min-samples", str(run["repeats"]),
                    "--time-limit", str(run["time_limit"])]
            if run["max_samples"] is not None:
                args += ["--max-samples", str(run["max_samples"])]
            key = f"{run['computation']}|{','.join(implementations)}|{n}|{w}"
            yield self._job(d, key, args, needs_gpus=0)

    def _matmul_jobs(self, d, gpus):
        for run in d["runs"]:
            for impl in run["implementations"]:
                args = ["matmul", "--variants", impl, "--sizes", *[str(n) for n in run["sizes"]],
                        "--min-samples", str(run["repeats"]), "--max-samples", str(run["max_samples"]),
                        "--time-limit", str(run["time_limit"])]
                if run["timings"] is not None:
                    args += ["--timings", ",".join(run["timings"])]
                for state, flags in (study.cache_states(run) if gpus else [("warm", [])]):
                    key = f"{impl}|{','.join(str(n) for n in run['sizes'])}" + (study.cache_suffix(state) if gpus else "")
                    yield self._job(d, key, args + flags, needs_gpus=1 if gpus else 0)

    def kind_matmul(self, d):
        yield from self._matmul_jobs(d, gpus=True)

    def kind_matmul_cpu(self, d):
        yield from self._matmul_jobs(d, gpus=False)

    def kind_launch(self, d):
        run = d["runs"][0]
        args = ["launch", "--launches", str(run["launches"]), "--min-samples", str(run["repeats"])]
        yield self._job(d, "launch", args)

    def kind_launch_first(self, d):
        run = d["runs"][0]
        for loading in run["module_loading"]:
            def job(tmp, loading=loading):
                outputs = {}
                for _ in range(run["processes"]):  # each process appends its row to the part
                    outputs = self.run_csv(tmp, d["name"], ["launch", "--first-only"], ("--experiment", d["name"]),
                                           env={"CUDA_MODULE_LOADING": loading})
                return outputs
            yield Job(f"CUDA_MODULE_LOADING={loading}", job,
                      [f"CUDA_MODULE_LOADING={loading} munch launch --first-only (x{run['processes']} processes)"],
                      needs_gpus=1, argv=[self.munch, "launch", "--first-only"])

    def kind_pattern(self, d):
        run = d["runs"][0]
        args = ["pattern", "--launches-per-evaluation", str(run["launches_per_evaluation"]), "--min-samples", str(run["repeats"])]
        yield self._job(d, "pattern", args)

    def kind_copy(self, d):
        run = d["runs"][0]
        args = ["copy", "--min-bytes", str(run["min_bytes"]), "--max-bytes", str(run["max_bytes"]), "--min-samples", str(run["repeats"])]
        for state, flags in study.cache_states(run):
            yield self._job(d, "copy" + study.cache_suffix(state), args + flags)

    def kind_roofline(self, d):
        run = d["runs"][0]
        args = ["roofline", "--min-samples", str(run["repeats"])]
        for state, flags in study.cache_states(run):
            yield self._job(d, "roofline" + study.cache_suffix(state), args + flags)

    def kind_pipeline(self, d):
        for run in d["runs"]:
            args = ["pipeline", "--signal", str(run["signal"]), "--filter", str(run["filter"]),
                    "--chunks", ",".join(str(c) for c in run["chunks"]), "--min-samples", str(run["min_samples"]),
                    "--max-samples", str(run["max_samples"]), "--time-limit", str(run["time_limit"])]
            if run["modes"] is not None:
                args += ["--modes", ",".join(run["modes"])]
            key = f"{run['signal']}|{run['filter']}|{','.join(str(c) for c in run['chunks'])}"
            yield self._job(d, key, args)

    def kind_ieee(self, d):
        run = d["runs"][0]
        args = ["ieee", "--count", str(run["count"])]
        yield self._job(d, "ieee", args)

    def kind_correctness(self, d):
        binary = self.build / "tests" / "munch" / "munch_gpu_tests"

        def job(tmp):
            log = tmp / "gpu_correctness.log"
            r = subprocess.run([str(binary)], text=True, capture_output=True)
            log.write_text(f"$ {binary.relative_to(ROOT) if binary.is_relative_to(ROOT) else binary}\n{r.stdout}\n{r.stderr}")
            print("\n".join(l for l in r.stdout.splitlines() if l.startswith("[  PASSED") or l.startswith("[  FAILED")), flush=True)
            if r.returncode != 0 or "[  SKIPPED ]" in r.stdout:
                e = JobFailed(f"the GPU tests failed or skipped (exit {r.returncode})")
                e.outputs = {log.name: log}
                raise e
            return {log.name: log}
        yield Job("gpu tests", job, ["build/tests/munch/munch_gpu_tests"])

