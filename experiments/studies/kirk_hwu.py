"""MRI reconstruction (Q, F^H d) and direct Coulomb summation: the kinds of job of this study.

Each kind turns one run of a definition (experiments/definitions/kirk_hwu/*.json) into jobs that run the
`kirk_hwu` program or the study's GPU tests and write their rows into a scratch folder:
  cpu          the documents' single-thread CPU loops in FP64 and FP32 (`kirk_hwu cpu`): <name>.csv
  bench        GPU variants, each checked against the FP64 reference, then timed (`kirk_hwu bench`): <name>.csv
  rates        the FMA, sin+cos and rsqrt rate microbenchmark (`kirk_hwu rates`): <name>.csv
  resources    every variant's kernel: registers, local memory, occupancy (`kirk_hwu variants --csv`): <name>.csv
  correctness  every GPU variant against the FP64 reference on whole small inputs (the GPU tests):
               gpu_correctness.csv and its log
"""
import os
import re
import subprocess

from harness.provenance import ROOT
from harness.runner import Job, JobFailed

# The columns each kind's CSV must have (tools/check_results.py checks every committed file against them).
COLUMNS = {
    "cpu": ["experiment", "problem", "precision", "size", "repeat", "seconds", "pairs", "pairs_per_second",
            "max_rel_err", "rel_l2_err"],
    "bench": ["experiment", "problem", "variant", "step", "size", "threads_per_block", "chunk", "sample", "kernel_ms",
              "pairs", "pairs_per_second", "valid", "max_abs_err", "max_rel_err", "rel_l2_err", "tolerance",
              "sm_clock_mhz", "throttled", "noise_pct", "samples", "stop_reason"],
    "rates": ["experiment", "operation", "sample", "operations", "ms", "ops_per_second", "sm_count", "sm_clock_mhz",
              "throttled"],
    "resources": ["variant", "problem", "step", "tolerance", "registers", "local_bytes", "threads_per_block",
                  "occupancy_pct"],
    "correctness": ["variant", "setting", "max_abs_err", "max_rel_err", "rel_l2_err", "tolerance", "pass"],
}
# Columns that must hold numbers wherever they appear.
NUMERIC = {"seconds", "pairs", "pairs_per_second", "max_rel_err", "rel_l2_err", "max_abs_err", "kernel_ms",
           "tolerance", "noise_pct", "samples", "operations", "ms", "ops_per_second", "sm_count", "registers",
           "local_bytes", "occupancy_pct"}
# Kinds measured on the host alone: their provenance names no GPU.
HOST_KINDS = {"cpu"}
# What a text result must contain to be whole.
TEXT_MARKERS = {"correctness": r"\[  PASSED  \] \d+ tests?\."}


class Study:
    def __init__(self, build, quick, devices, options):
        self.build = build if build.is_absolute() else ROOT / build
        self.program = str(self.build / "kirk_hwu")
        self.quick = quick
        self.devices = devices
        self.options = options

    def sm_count(self):
        """The SM count of the first GPU, as `kirk_hwu variants` reports it (None without a GPU)."""
        r = self._run([self.program, "variants"])
        m = re.search(r"^GPU: .* \((\d+) SMs\)", r.stdout, re.M)
        return int(m.group(1)) if m else None

    def criterion_description(self):
        return {"min_samples": 3, "max_samples": 10, "noise_target_pct": 0.5, "time_limit_s": 1.0,
                "clock": "SM clock and throttle reasons polled through NVML while each sample runs",
                "note": "per variant: one untimed run checked against the FP64 reference, then the samples"}

    def jobs(self, d):
        return getattr(self, "kind_" + d["kind"])(d)

    @staticmethod
    def _run(cmd, env=None, log=None):
        r = subprocess.run(cmd, text=True, capture_output=True, env=dict(os.environ, **(env or {})))
        if log is not None:
            log.write_text(f"$ {' '.join(map(str, cmd))}\n{r.stdout}\n{r.stderr}")
        return r

    def _rows_job(self, name, key, args, needs_gpus, invalid_message):
        def run(tmp):
            part = tmp / f"{name}.csv"
            r = self._run([self.program] + args + ["--csv", str(part)])
            print(r.stdout, end="", flush=True)
            if not part.exists() or len(part.read_text().splitlines()) < 2:
                raise RuntimeError(f"kirk_hwu {args[0]} made no rows: {r.stderr.strip()[-400:]}")
            if r.returncode != 0:
                e = JobFailed(invalid_message + f": {r.stderr.strip()[-300:]}")
                e.outputs = {part.name: part}
                raise e
            return {part.name: part}
        return Job(key, run, ["kirk_hwu " + " ".join(args)], needs_gpus=needs_gpus)

    def kind_cpu(self, d):
        for run in d["runs"]:
            for problem in run["problems"]:
                for precision in run["precisions"]:
                    args = ["cpu", "--experiment", d["name"], "--problem", problem, "--precision", precision,
                            "--size", run["size"], "--repeats", str(1 if self.quick else run.get("repeats", 2))]
                    yield self._rows_job(d["name"], f"{problem}|{precision}|{run['size']}", args, 0,
                                         "the CPU loop failed")

    def kind_bench(self, d):
        for run in d["runs"]:
            sweeps = [{}]
            for key, values in run.get("sweep", {}).items():
                sweeps = [dict(s, **{key: v}) for s in sweeps for v in values]
            for sweep in sweeps:
                args = ["bench", "--experiment", d["name"], "--variants", ",".join(run["variants"]),
                        "--size", run["size"], "--min-samples", str(run.get("min_samples", 3)),
                        "--max-samples", str(run.get("max_samples", 10)), "--time-limit", str(run.get("time_limit", 1.0))]
                for k, v in sorted(sweep.items()):
                    args += ["--" + k.replace("_", "-"), str(v)]
                key = f"{','.join(run['variants'])}|{run['size']}|{sweep}"
                yield self._rows_job(d["name"], key, args, 1, "a variant disagreed with the FP64 reference (rows marked invalid)")

    def kind_rates(self, d):
        run = d["runs"][0]
        args = ["rates", "--experiment", d["name"], "--repeats", str(run.get("repeats", 5))]
        yield self._rows_job(d["name"], "rates", args, 1, "the rate microbenchmark failed")

    def kind_resources(self, d):
        args = ["variants", "--experiment", d["name"]]
        yield self._rows_job(d["name"], "variants", args, 1, "listing the kernels' resources failed")


# The GPU tests with their comparisons (experiments/harness/gpu_tests.py).
from harness import gpu_tests  # noqa: E402

Study.kind_correctness = gpu_tests.correctness_kind("tests/kirk_hwu/kirk_hwu_gpu_tests", "KIRK_HWU_GPU_RESULTS")

# compute-sanitizer over the study's GPU tests (experiments/harness/sanitize.py).
from harness import sanitize  # noqa: E402

Study.kind_sanitizer_tests = sanitize.kind_sanitizer_tests
TEXT_MARKERS["sanitizer_tests"] = sanitize.CLEAN
COLUMNS["sanitizer_tests"] = []  # logs only
