"""A study's GPU test program, run whole with its comparisons kept: the kind `correctness`, shared by the
studies whose GoogleTest program writes gpu_correctness.csv (one row per comparison, ending in `true` when it
passed) into the folder that an environment variable names.

The job keeps gpu_correctness.csv and the program's output as gpu_correctness.log; it is verified when the
program exits 0, every comparison passed and no test was skipped. The base Study (experiments/harness/study.py)
runs it for a study that names its program and variable in GPU_TESTS.
"""
import os
import subprocess

from .provenance import ROOT
from .runner import Job, JobFailed


def correctness_kind(binary, results_env):
    """The kind for the program at build-relative path @p binary, which writes its comparisons into the
    folder named by the environment variable @p results_env."""
    def kind_correctness(study, d):
        del d  # one job: the whole program
        path = study.build / binary

        def job(tmp):
            log = tmp / "gpu_correctness.log"
            r = subprocess.run([str(path)], text=True, capture_output=True, env=dict(os.environ, **{results_env: str(tmp)}))
            log.write_text(f"$ {path}\n{r.stdout}\n{r.stderr}")
            lines = r.stdout.splitlines()
            summary = [l for l in lines if l.startswith(("[  PASSED", "[  FAILED")) or "SKIPPED" in l]
            print("\n".join(summary[-4:]), flush=True)
            csv_path = tmp / "gpu_correctness.csv"
            if not csv_path.exists():
                raise RuntimeError("the GPU tests wrote no comparisons (no GPU?)")
            outputs = {"gpu_correctness.csv": csv_path, "gpu_correctness.log": log}
            failed = [l for l in csv_path.read_text().splitlines()[1:] if not l.endswith(",true")]
            skipped = any(l.startswith("[  SKIPPED") for l in lines)
            if r.returncode != 0 or failed or skipped:
                e = JobFailed(f"GPU tests exit {r.returncode}, {len(failed)} comparisons failed"
                              + (", tests skipped" if skipped else ""))
                e.outputs = outputs
                raise e
            return outputs
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        yield Job("gpu tests", job, [f"{results_env}=<out> {shown}"])
    return kind_correctness
