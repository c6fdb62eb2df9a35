"""MRI reconstruction (Q, F^H d) and direct Coulomb summation: the kinds of job of this study.

Each kind turns one run of a definition (experiments/definitions/kirk_hwu/*.json) into jobs that run the
`kirk_hwu` program or the study's GPU tests and write their rows into a scratch folder:
  cpu          the documents' single-thread CPU loops in FP64 and FP32 (`kirk_hwu cpu`): <name>.csv
  cpu_bench    the documents' and the tuned single-thread FP32 loops on one share of an input, each checked
               against FP64, then timed by the CPU engine (`kirk_hwu cpu-bench`): <name>.csv
  solver       the reconstruction's linear solver on one CPU thread, its Q and F^H d from the GPU, checked against
               the GPU's solve of the same system, then timed by the CPU engine (`kirk_hwu solver`): <name>.csv
  bench        GPU variants, each checked against the FP64 reference, then timed (`kirk_hwu bench`): <name>.csv
  rates        the FMA, sin+cos and rsqrt rate microbenchmark (`kirk_hwu rates`): <name>.csv
  split        the MRI image in subsets of voxels, each with its own device copy and launches, against the whole
               image at once (`kirk_hwu split`): <name>.csv
  sass         per sample-voxel (atom-point) pair of every float kernel's innermost loop: floating-point
               operations and global, constant and shared accesses in the compiled code (tools/sass_counts.py on
               the build's binary; no GPU needed): <name>.csv
  resources    every variant's kernel: registers, local memory, occupancy (`kirk_hwu variants --csv`): <name>.csv
  correctness  every GPU variant against the FP64 reference on whole small inputs (the GPU tests):
               gpu_correctness.csv and its log
  reconstruct  the whole iterative reconstruction and the gridding baseline (`kirk_hwu reconstruct`): <name>.csv,
               <name>_history.csv and, per run with images, <name>_images_<label>.json
  nufft        F^H d by the FP64 and the fastest direct sums and by the non-uniform FFT at each accuracy
               (`kirk_hwu nufft`), optionally the reconstruction with each, and in the same job the peer NUFFT
               (cuFINUFFT, experiments/peer/finufft/run_cufinufft.py) on the inputs it exported: <name>.csv
"""
import csv
import json
import pathlib
import re
import statistics
import struct
import sys

from experiments.harness import study
from experiments.harness.kinds import CACHE_KEY, TIMING, Compare, Input, Kind
from experiments.harness.results import BadResultFile, IncompleteFile, ResultFolder
from experiments.harness.runner import Job, JobFailed
from experiments.harness.study import CACHE_INPUT, correctness_kind

NUMERIC = {"seconds", "pairs", "pairs_per_second", "max_rel_err", "rel_l2_err", "max_abs_err", "kernel_ms",
           "tolerance", "noise_pct", "samples", "operations", "ms", "ops_per_second", "sm_count", "registers",
           "local_bytes", "occupancy_pct", "points", "terms", "solver_ms", "spectrum_ms", "reference_solver_ms",
           "rel_l2_diff", "final_residual", "grid", "lambda", "iterations"}
# Every kind this study writes (experiments/harness/kinds.py). GPU timings: within 2 % or the interval of the two
# medians where wider (too noisy to judge above 10 %); CPU loops within 10 %; rates within 5 %; the kernels' resources exact.
# kind `reconstruct`: the whole reconstruction at one size (`kirk_hwu reconstruct`), one job per run: rows per
# method (<name>.csv), one row per conjugate-gradient iteration (<name>_history.csv) and, for runs with
# "images", the central xy slice of the phantom, the gridding image and the iterative image
# (<name>_images_<label>.json). A run with "tuned" uses the best configuration of the tuning sweep recorded in the
# same results folder (mri_tuning.csv beside it: the highest median rate of the valid rows per computation), so a
# GPU's reconstruction is tuned on that GPU; its definition runs `after` mri_tuning. A run with "operator": "nufft"
# reconstructs with the NUFFT pair at "nufft_tolerance" (and "nufft_oversampling") instead of Q and F^H d.
RECONSTRUCT_COLUMNS = ["experiment", "device", "size", "grid", "samples", "method", "q_variant", "fhd_variant",
                       "q_threads_per_block", "q_chunk", "fhd_threads_per_block", "fhd_chunk", "lambda", "iterations",
                       "final_residual", "q_ms", "q_fft_ms", "fhd_ms", "mu_ms", "solver_ms", "recon_ms", "q_pairs",
                       "fhd_pairs", "rel_l2_err", "max_rel_err"]
HISTORY_COLUMNS = ["experiment", "device", "size", "q_variant", "iteration", "residual", "quadratic"]
RECONSTRUCT_NUMERIC = NUMERIC | {"grid", "q_threads_per_block", "q_chunk", "fhd_threads_per_block", "fhd_chunk",
                                 "lambda", "iterations", "final_residual", "q_ms", "q_fft_ms", "fhd_ms", "mu_ms",
                                 "solver_ms", "recon_ms", "q_pairs", "fhd_pairs", "residual", "quadratic",
                                 "check_points", "q_check_rel_l2", "fhd_check_rel_l2"}
# The tuning sweep a tuned reconstruction takes its launch configuration from, in the folder being recorded.
TUNING_FILE = "mri_tuning.csv"


def best_configurations(rows):
    """({problem: (median pairs/s, threads per block, chunk)} of the highest median over the valid rows of a tuning
    sweep (mri_tuning.csv), {(problem, threads per block, chunk): median pairs/s}): the rule by which a tuned
    reconstruction takes its configuration, which the report's tuning table shows (paper/kirk_hwu/data/tuning.py)."""
    runs = {}
    for row in rows:
        if row["valid"] == "true":
            key = (row["problem"], int(row["threads_per_block"]), int(row["chunk"]))
            runs.setdefault(key, []).append(float(row["pairs_per_second"]))
    medians = {key: statistics.median(rates) for key, rates in runs.items()}
    best = {}
    for (problem, tpb, chunk), m in medians.items():
        if problem not in best or m > best[problem][0]:
            best[problem] = (m, tpb, chunk)
    return best, medians


def best_configuration(rows, where):
    """(Q threads, Q chunk, F^H d threads, F^H d chunk) of a tuning sweep's @p rows (read from @p where):
    best_configurations() of each computation. A sweep without a valid row of each is refused, naming @p where."""
    best, _ = best_configurations(rows)
    missing = [p for p in ("mri-q", "mri-fhd") if p not in best]
    if missing:
        raise RuntimeError(f"{where}: no valid row of {', '.join(missing)}: no launch configuration to take")
    return best["mri-q"][1], best["mri-q"][2], best["mri-fhd"][1], best["mri-fhd"][2]


# The peer NUFFT's runner (cuFINUFFT through its C interface; docs/peer.md, the NUFFT section).
PEER_RUNNER = pathlib.Path(__file__).resolve().parents[1] / "peer" / "finufft" / "run_cufinufft.py"

# kind `nufft`: one row per timed sample of one implementation (direct, ours, cufinufft), variant and operation
# (adjoint = F^H d, forward, normal = forward then adjoint, reconstruct = F^H d + solver); rel_l2_err is the error
# against the FP64 direct sum (adjoint, forward, normal) or the image's against the phantom (reconstruct).
NUFFT_COLUMNS = ["experiment", "implementation", "variant", "device", "size", "grid", "kspace_samples", "operation",
                 "tolerance", "oversampling", "width", "fft_grid", "sample", "ms", "rel_l2_err", "checked", "valid",
                 *TIMING]
NUFFT_NUMERIC = NUMERIC | {"grid", "kspace_samples", "oversampling", "width", "fft_grid", "sample", "sm_clock_mhz"}

KINDS = {
    "cpu": Kind(["experiment", "problem", "precision", "size", "repeat", "seconds", "pairs", "pairs_per_second",
                 "max_rel_err", "rel_l2_err"], key=["problem", "precision", "size"], value="seconds", numeric=NUMERIC,
                host_only=True, compare=Compare("median", 0.10),
                run_keys={"problems": Input("list[str]"), "precisions": Input("list[str]"), "size": Input("str"),
                          "repeats": Input("int", 2)}),
    "bench": Kind(["experiment", "problem", "variant", "step", "size", "threads_per_block", "chunk", "sample", "kernel_ms",
                   "pairs", "pairs_per_second", "valid", "max_abs_err", "max_rel_err", "rel_l2_err", "tolerance", *TIMING],
                  key=["problem", "variant", "step", "size", "threads_per_block", "chunk", *CACHE_KEY], value="kernel_ms",
                  numeric=NUMERIC, compare=Compare("median", 0.02, noise="noise_pct"),
                  run_keys={"variants": Input("list[str]"), "size": Input("str"), "min_samples": Input("int", 3),
                            "max_samples": Input("int", 10), "time_limit": Input("number", 1.0),
                            "sweep": Input("dict[list]", {}), "cache": CACHE_INPUT}),
    # The CPU benches (the engine's timing columns; no clock monitor on the host): within 10 %.
    "cpu_bench": Kind(["experiment", "problem", "loop", "precision", "size", "points", "terms", "pairs", "repeat", "ms",
                       "pairs_per_second", "valid", "max_rel_err", "rel_l2_err", "tolerance", *TIMING],
                      key=["problem", "loop", "precision", "size", "points"], value="ms", numeric=NUMERIC, host_only=True,
                      compare=Compare("median", 0.10),
                      run_keys={"problems": Input("dict"), "loops": Input("list[str]"), "size": Input("str"),
                                "min_samples": Input("int", 3), "time_limit": Input("number", 10)}),
    "solver": Kind(["experiment", "size", "grid", "kspace_samples", "source", "q_variant", "fhd_variant", "lambda", "iterations",
                    "repeat", "solver_ms", "spectrum_ms", "reference", "reference_solver_ms", "rel_l2_diff",
                    "final_residual", "valid", "tolerance", *TIMING],
                   key=["size", "source", "q_variant", "fhd_variant", "iterations"], value="solver_ms", numeric=NUMERIC,
                   host_only=True, compare=Compare("median", 0.10),
                   run_keys={"size": Input("str"), "source": Input("str", "gpu", choices=("gpu", "cpu")),
                             "q_variant": Input("str", ""), "fhd_variant": Input("str", ""),
                             "iterations": Input("int", 30), "lambda": Input("number", 0.01),
                             "min_samples": Input("int", 2), "time_limit": Input("number", 300)}),
    # Whole passes over the image in subsets (host clock around copies and launches): within 10 %.
    # (kspace_samples: the k-space samples; "samples", among the timing columns, is the engine's count.)
    "split": Kind(["experiment", "variant", "edge", "voxels", "kspace_samples", "subsets", "voxels_per_subset", "repeat", "ms",
                   "kernel_ms", "pairs", "pairs_per_second", "valid", "max_rel_err", "rel_l2_err", "tolerance", *TIMING],
                  key=["variant", "edge", "kspace_samples", "subsets"], value="ms",
                  numeric=NUMERIC | {"edge", "voxels", "subsets", "voxels_per_subset"}, compare=Compare("median", 0.10),
                  run_keys={"variant": Input("str"), "edge": Input("int", 1024), "samples": Input("int", 2048),
                            "subsets": Input("list[int]"), "min_samples": Input("int", 3)}),
    # Counts of the compiled code: the same build gives the same counts.
    "sass": Kind(["variant", "kernel", "loop_instructions", "pairs_per_iteration", "flops", "global_loads",
                  "global_stores", "constant_loads", "shared_loads", "mufu", "other", "slow_path", "global_words",
                  "constant_words", "shared_words"], key=["variant"], value="flops",
                 numeric=NUMERIC | {"loop_instructions", "pairs_per_iteration", "flops", "global_loads", "global_stores",
                                    "constant_loads", "shared_loads", "mufu", "other", "slow_path", "global_words",
                                    "constant_words", "shared_words"}, host_only=True, compare=Compare("exact"),
                 run_keys={}),
    "rates": Kind(["experiment", "operation", "sample", "operations", "ms", "ops_per_second", "sm_count", "sm_clock_mhz",
                   "throttled"], key=["operation", "sm_count"], value="ops_per_second", numeric=NUMERIC,
                  compare=Compare("median", 0.05), run_keys={"repeats": Input("int", 5)}),
    "resources": Kind(["variant", "problem", "step", "tolerance", "registers", "local_bytes", "threads_per_block",
                       "occupancy_pct"], key=["variant", "problem"], numeric=NUMERIC, compare=Compare("exact"),
                      run_keys={}),
    "correctness": correctness_kind(["variant", "setting", "max_abs_err", "max_rel_err", "rel_l2_err", "tolerance", "pass"],
                                    key=["variant", "setting"], value="max_rel_err", numeric=NUMERIC,
                                    # tests/kirk_hwu/test_gpu_variants.cpp's rule
                                    checks=(("max_rel_err", "<=", "tolerance"), ("rel_l2_err", "<=", "tolerance"))),
    # The reconstruction: whole runs on one GPU within 10 %; each iteration's relative residual within 5 %
    # (single-precision Q and F^H d steps may round differently on another GPU); the images are not compared
    # (their errors against the phantom are in the rows).
    "reconstruct": Kind(RECONSTRUCT_COLUMNS, key=["device", "size", "method", "q_variant", "fhd_variant",
                                                  "q_threads_per_block", "q_chunk", "fhd_threads_per_block", "fhd_chunk"],
                        value="recon_ms", numeric=RECONSTRUCT_NUMERIC, compare=Compare("median", 0.10),
                        tables={r"_history\.csv$": Kind(HISTORY_COLUMNS, key=["device", "size", "q_variant", "iteration"],
                                                        value="residual", numeric=RECONSTRUCT_NUMERIC,
                                                        compare=Compare("median", 0.05)),
                                r"_images_.*\.json$": Kind(suffix=".json", marker=r'"phantom"',
                                                           compare=Compare("json_arrays", 0.01,
                                                                           values=("phantom", "gridding", "iterative")))},
                        # A GPU run names its Q and F^H d variants; `tuned` takes the launch configuration of the
                        # tuning sweep of the folder being recorded (TUNING_FILE); `images` keeps the central
                        # slice of each image.
                        run_keys={"label": Input("str"), "device": Input("str", "gpu", choices=("gpu", "cpu")),
                                  "size": Input("str", "full"), "lambda": Input("number", 0.01),
                                  "iterations": Input("int", 30), "method": Input("str", "both"),
                                  "q_variant": Input("str", None), "fhd_variant": Input("str", None),
                                  "tuned": Input("bool", False), "images": Input("bool", False),
                                  "operator": Input("str|none", None, choices=(None, "toeplitz", "direct", "nufft")),
                                  "nufft_tolerance": Input("number", 1e-6), "nufft_oversampling": Input("number", 2)}),
    # The NUFFT against the direct sums and the peer: times within 10 % (a fresh process per run; the peer's
    # library and ours alike), per implementation, variant, operation and accuracy.
    "nufft": Kind(NUFFT_COLUMNS, key=["implementation", "variant", "size", "operation", "tolerance", "oversampling", "width",
                                      *CACHE_KEY], value="ms", numeric=NUFFT_NUMERIC, compare=Compare("median", 0.10),
                  run_keys={"label": Input("str"), "size": Input("str", "full"), "oversampling": Input("list[number]"),
                            "tolerances": Input("list[number]|none", None), "widths": Input("list[int]|none", None),
                            "reconstruct": Input("bool", False), "lambda": Input("number", 0.01),
                            "iterations": Input("int", 30), "peer": Input("bool", False),
                            "peer_upsampfac": Input("list[number]", [0, 2]), "min_samples": Input("int", 5),
                            "max_samples": Input("int", 20), "time_limit": Input("number", 2.0)}),
}


class Study(study.Study):
    KINDS = KINDS
    PROGRAM = "kirk_hwu"
    GPU_TESTS = ("tests/kirk_hwu/kirk_hwu_gpu_tests", "KIRK_HWU_GPU_RESULTS")

    def _job(self, d, key, args, needs_gpus, invalid):
        """A `kirk_hwu` command that writes rows (csv_job); its arguments name the experiment."""
        return self.csv_job(d, key, args, needs_gpus=needs_gpus, invalid=invalid)

    def kind_cpu(self, d):
        for run in d["runs"]:
            for problem in run["problems"]:
                for precision in run["precisions"]:
                    args = ["cpu", "--experiment", d["name"], "--problem", problem, "--precision", precision,
                            "--size", run["size"], "--min-samples", str(1 if self.quick else run["repeats"])]
                    yield self._job(d, f"{problem}|{precision}|{run['size']}", args, 0, "the CPU loop failed")

    def kind_bench(self, d):
        for run in d["runs"]:
            for sweep in self.sweep(run):
                args = ["bench", "--experiment", d["name"], "--variants", ",".join(run["variants"]),
                        "--size", run["size"], "--min-samples", str(run["min_samples"]),
                        "--max-samples", str(run["max_samples"]), "--time-limit", str(run["time_limit"]),
                        *self.flags(sweep)]
                for state, flags in study.cache_states(run):
                    key = f"{','.join(run['variants'])}|{run['size']}|{sweep}" + study.cache_suffix(state)
                    yield self._job(d, key, args + flags, 1,
                                    "a variant disagreed with the FP64 reference (rows marked invalid)")

    def kind_cpu_bench(self, d):
        for run in d["runs"]:
            for problem, points in run["problems"].items():
                args = ["cpu-bench", "--experiment", d["name"], "--problems", problem, "--loops", ",".join(run["loops"]),
                        "--size", run["size"], "--points", str(points),
                        "--min-samples", str(1 if self.quick else run["min_samples"]), "--time-limit", str(run["time_limit"])]
                yield self._job(d, f"{problem}|{run['size']}|{points}", args, 0,
                                "a CPU loop disagreed with the FP64 reference (rows marked invalid)")

    def kind_solver(self, d):
        for run in d["runs"]:
            args = ["solver", "--experiment", d["name"], "--size", run["size"], "--source", run["source"],
                    "--iterations", str(run["iterations"]), "--lambda", str(run["lambda"]),
                    "--min-samples", str(1 if self.quick else run["min_samples"]), "--time-limit", str(run["time_limit"])]
            if run["source"] == "gpu":
                args += ["--q-variant", run["q_variant"], "--fhd-variant", run["fhd_variant"]]
            yield self._job(d, f"{run['size']}|{run['source']}", args, 1 if run["source"] == "gpu" else 0,
                            "the CPU solve disagreed with the other solve of the same system (rows marked invalid)")

    def kind_split(self, d):
        for run in d["runs"]:
            args = ["split", "--experiment", d["name"], "--variant", run["variant"], "--edge", str(run["edge"]),
                    "--samples", str(run["samples"]), "--subsets", ",".join(str(s) for s in run["subsets"]),
                    "--min-samples", str(1 if self.quick else run["min_samples"])]
            yield self._job(d, f"{run['variant']}|{run['edge']}", args, 1,
                            "a configuration disagreed with the FP64 reference (rows marked invalid)")

    def kind_sass(self, d):
        def job(tmp):
            from tools import sass_counts
            part = tmp / f"{d['name']}.csv"
            rows = sass_counts.kernel_counts(self.program)
            if not rows:
                raise RuntimeError(f"no MRI or Coulomb kernel loop found in {self.program}")
            with part.open("w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=sass_counts.COLUMNS, lineterminator="\n")
                w.writeheader()
                for r in rows:
                    w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
            return {part.name: part}
        yield Job("kirk_hwu", job, ["python3 -m tools.sass_counts build/kirk_hwu (cuobjdump -sass, innermost loop per kernel)"],
                  needs_gpus=0)

    def kind_rates(self, d):
        run = d["runs"][0]
        args = ["rates", "--experiment", d["name"], "--min-samples", str(run["repeats"])]
        yield self._job(d, "rates", args, 1, "the rate microbenchmark failed")

    def kind_resources(self, d):
        args = ["variants", "--experiment", d["name"]]
        yield self._job(d, "variants", args, 1, "listing the kernels' resources failed")

    def tuned_configuration(self):
        """(Q threads, Q chunk, F^H d threads, F^H d chunk): the best of the tuning sweep recorded in the folder
        being recorded (best_configuration()), read through the results layer (a sweep not recorded whole is not
        read). Called when the tuned job runs, not when it is made."""
        folder = self.results_folder
        rel = f"kirk_hwu/{TUNING_FILE}"
        if folder is None or not (folder / TUNING_FILE).exists():
            raise RuntimeError(f"the tuned reconstruction takes its launch configuration from the tuning sweep of the "
                               f"folder being recorded, and {folder or 'this folder'} has no {TUNING_FILE}: record "
                               "mri_tuning first (experiments/run.py --study kirk_hwu --only mri_tuning,mri_reconstruct "
                               "--out <folder> runs it first)")
        try:
            rows = ResultFolder(folder.parent).rows(rel)
        except (BadResultFile, IncompleteFile) as e:
            raise RuntimeError(f"{folder / TUNING_FILE}: not a tuning sweep to take the launch configuration from: {e}")
        return best_configuration(rows, str(folder / TUNING_FILE))

    def kind_reconstruct(self, d):
        name = d["name"]
        for run in d["runs"]:
            label, device = run["label"], run["device"]
            args = ["reconstruct", "--experiment", name, "--backend", "cuda" if device == "gpu" else "cpu", "--size", run["size"],
                    "--lambda", str(run["lambda"]), "--iterations", str(run["iterations"]),
                    "--tolerance", "0", "--method", run["method"], "--label", label]
            if run["operator"]:
                # Another way to apply AᴴA: the NUFFT pair (a different algorithm, its tolerance stated) or, on the
                # CPU, the direct sums.
                args += ["--operator", run["operator"]]
                if run["operator"] == "nufft":
                    args += ["--nufft-tolerance", str(run["nufft_tolerance"]),
                             "--nufft-oversampling", str(run["nufft_oversampling"])]
            if device == "gpu" and run["operator"] != "nufft":
                if not run["q_variant"] or not run["fhd_variant"]:
                    raise ValueError(f"run {label}: a GPU reconstruction names q_variant and fhd_variant")
                args += ["--q-variant", run["q_variant"], "--fhd-variant", run["fhd_variant"]]
            described = args + (["--q-threads-per-block", "T", "--q-chunk", "C", "--fhd-threads-per-block", "T",
                                 "--fhd-chunk", "C", f"(each T and C the best of this folder's kirk_hwu/{TUNING_FILE})"]
                                if run["tuned"] else [])

            def job(tmp, args=args, label=label, run=run):
                if run["tuned"]:  # read when the job runs: the sweep is recorded in this folder first (`after`)
                    q_tpb, q_chunk, f_tpb, f_chunk = self.tuned_configuration()
                    args = args + ["--q-threads-per-block", str(q_tpb), "--q-chunk", str(q_chunk),
                                   "--fhd-threads-per-block", str(f_tpb), "--fhd-chunk", str(f_chunk)]
                part, history = tmp / f"{name}.csv", tmp / f"{name}_history.csv"
                cmd = [self.program] + args + ["--csv", str(part), "--history", str(history), "--out", str(tmp)]
                r = self._run(cmd, log=tmp / f"{name}_{label}.log")
                print(r.stdout, end="", flush=True)
                if r.returncode != 0 or not part.exists():
                    raise RuntimeError(f"kirk_hwu reconstruct ({label}) failed: {r.stderr.strip()[-400:]}")
                out = {part.name: part}
                if history.exists() and len(history.read_text().splitlines()) > 1:  # a gridding-only run has no iterations
                    out[history.name] = history
                if run["images"]:
                    images = {}
                    for image in ("phantom", "gridding", "iterative"):
                        path = tmp / f"{label}_{image}.npy"
                        if path.exists():
                            images[image] = xy_slice(path)
                    js = tmp / f"{name}_images_{label}.json"
                    js.write_text(json.dumps({"label": label, "plane": "xy at z = -1/8 of the field of view, real part", **images}))
                    out[js.name] = js
                return out
            yield Job(f"{label}", job, [f"kirk_hwu {' '.join(described)}"], needs_gpus=1 if device == "gpu" else 0)


    def kind_nufft(self, d):
        name = d["name"]
        for i, run in enumerate(d["runs"]):
            args = ["nufft", "--experiment", name, "--size", run["size"],
                    "--oversampling", ",".join(str(x) for x in run["oversampling"]),
                    "--min-samples", str(run["min_samples"]), "--max-samples", str(run["max_samples"]),
                    "--time-limit", str(run["time_limit"])]
            if run["widths"] is not None:
                args += ["--widths", ",".join(str(x) for x in run["widths"])]
            else:
                args += ["--tolerances", ",".join(str(x) for x in run["tolerances"])]
            if run["reconstruct"]:
                args += ["--reconstruct", "--lambda", str(run["lambda"]), "--iterations", str(run["iterations"])]
            peer = self.options.get("peer_nufft") if run["peer"] else None

            def job(tmp, args=args, run=run, peer=peer):
                part, inputs = tmp / f"{name}.csv", tmp / "peer_inputs"
                cmd = [self.program] + args + ["--csv", str(part)]
                if run["peer"]:
                    inputs.mkdir(exist_ok=True)
                    cmd += ["--export", str(inputs)]
                r = self._run(cmd, log=tmp / f"{name}_{run['label']}.log")
                print(r.stdout, end="", flush=True)
                if not part.exists() or len(part.read_text().splitlines()) < 2:
                    raise RuntimeError(f"kirk_hwu nufft made no rows: {r.stderr.strip()[-400:]}")
                if r.returncode != 0:
                    e = JobFailed(f"kirk_hwu nufft: a result outside its tolerance or a failed run: {r.stderr.strip()[-300:]}")
                    e.outputs = {part.name: part}
                    raise e
                if run["peer"]:
                    if not peer:
                        print("kirk_hwu nufft: no peer NUFFT given (experiments/run.py --peer-nufft PATH): its rows not recorded",
                              flush=True)
                    else:
                        # The peer on the same trajectory, grid and GPU, in the same job; its rows join ours.
                        p = self._run([sys.executable, str(PEER_RUNNER), "--lib", peer, "--inputs", str(inputs),
                                       "--tolerances", ",".join(str(x) for x in run["tolerances"]),
                                       "--upsampfac", ",".join(str(x) for x in run["peer_upsampfac"])]
                                      + (["--reconstruct"] if run["reconstruct"] else [])
                                      + ["--repeats", str(run["min_samples"]), "--experiment", name, "--csv", str(part)],
                                      log=tmp / f"{name}_peer.log")
                        print(p.stdout, end="", flush=True)
                        if p.returncode != 0:
                            e = JobFailed(f"the peer NUFFT failed: {p.stderr.strip()[-400:]}")
                            e.outputs = {part.name: part}
                            raise e
                return {part.name: part}
            yield Job(f"{run['label']}", job, [f"kirk_hwu {' '.join(args)}"]
                      + ([f"experiments/peer/finufft/run_cufinufft.py --lib <libcufinufft.so> --inputs <exported>"] if run["peer"] else []),
                      needs_gpus=1, argv=[self.program, *args])


def xy_slice(path):
    """The first plane (xy) of a (3, N, N) float32 .npy file as rows of numbers rounded to 4 decimals."""
    data = pathlib.Path(path).read_bytes()
    if data[:6] != b"\x93NUMPY":
        raise RuntimeError(f"{path}: not a .npy file")
    header_length = data[8] | data[9] << 8
    header = data[10:10 + header_length].decode()
    shape = tuple(int(x) for x in re.search(r"'shape': \(([^)]*)\)", header).group(1).split(",") if x.strip())
    n = shape[1]
    values = struct.unpack_from(f"<{n * n}f", data, 10 + header_length)
    return [[round(values[j * n + i], 4) for i in range(n)] for j in range(n)]
