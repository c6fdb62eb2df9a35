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

from harness import study
from harness.kinds import TIMING, Compare, Kind
from harness.runner import Job, JobFailed
from harness.study import correctness_kind

NUMERIC = {"seconds", "pairs", "pairs_per_second", "max_rel_err", "rel_l2_err", "max_abs_err", "kernel_ms",
           "tolerance", "noise_pct", "samples", "operations", "ms", "ops_per_second", "sm_count", "registers",
           "local_bytes", "occupancy_pct"}
# Every kind this study writes (experiments/harness/kinds.py). GPU timings: within 2 % or 3 x the larger
# relative spread; CPU loops within 10 %; rates within 5 %; the kernels' resources exact.
KINDS = {
    "cpu": Kind(["experiment", "problem", "precision", "size", "repeat", "seconds", "pairs", "pairs_per_second",
                 "max_rel_err", "rel_l2_err"], key=["problem", "precision", "size"], value="seconds", numeric=NUMERIC,
                host_only=True, compare=Compare("median", 0.10)),
    "bench": Kind(["experiment", "problem", "variant", "step", "size", "threads_per_block", "chunk", "sample", "kernel_ms",
                   "pairs", "pairs_per_second", "valid", "max_abs_err", "max_rel_err", "rel_l2_err", "tolerance", *TIMING],
                  key=["problem", "variant", "step", "size", "threads_per_block", "chunk"], value="kernel_ms",
                  numeric=NUMERIC, compare=Compare("median", 0.02, noise="noise_pct")),
    "rates": Kind(["experiment", "operation", "sample", "operations", "ms", "ops_per_second", "sm_count", "sm_clock_mhz",
                   "throttled"], key=["operation", "sm_count"], value="ops_per_second", numeric=NUMERIC,
                  compare=Compare("median", 0.05)),
    "resources": Kind(["variant", "problem", "step", "tolerance", "registers", "local_bytes", "threads_per_block",
                       "occupancy_pct"], key=["variant", "problem"], numeric=NUMERIC, compare=Compare("exact")),
    "correctness": correctness_kind(["variant", "setting", "max_abs_err", "max_rel_err", "rel_l2_err", "tolerance", "pass"],
                                    key=["variant", "setting"], value="max_rel_err", numeric=NUMERIC),
}


class Study(study.Study):
    KINDS = KINDS
    PROGRAM = "kirk_hwu"
    GPU_TESTS = ("tests/kirk_hwu/kirk_hwu_gpu_tests", "KIRK_HWU_GPU_RESULTS")

    def criterion_description(self):
        return {"min_samples": 3, "max_samples": 10, "noise_target_pct": 0.5, "time_limit_s": 1.0,
                "clock": "SM clock and throttle reasons polled through NVML while each sample runs",
                "note": "per variant: one untimed run checked against the FP64 reference, then the samples"}

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

