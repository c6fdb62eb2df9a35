"""The MRI and Coulomb study's facts: every result file its chapters and figures use, read once, and what more
than one of them needs, as numbers: the GPU (from the provenance of the first GPU experiment the folder holds),
the sizes of the documented inputs, and the rate of every MRI step (medium input) with the CPU loops'.

    facts = build(ResultFolder("experiments/results/nvidia-h200"), published, compare)
    facts.gpu.name                      "H200" (facts.gpu.full_name: as the provenance names it)
    facts.mri_rates["mri-q"]["F7"]      median pairs per second of a step
    facts.files.rows("mri_tuning")      the rows of a result a single chapter reads
"""
import dataclasses
import statistics
from collections.abc import Mapping
from typing import Any

from paper.report import facts as F
from paper.report.facts import MissingData, ResultFiles, Unavailable, frozen, part

STUDY = "kirk_hwu"

# Sample-voxel (atom-point) pairs of each input size (src/kirk_hwu/inputs.cpp; the bench rows carry them
# too, and the setup chapter checks that they agree).
MRI_VOXELS = {"tiny": 8 ** 3, "small": 32 ** 3, "medium": 64 ** 3, "full": 128 ** 3}
MRI_SAMPLES = {"tiny": 300, "small": 3072, "medium": 20000, "full": 100000}
# The MRI ladder's GPU steps, and the computations by their variants' prefix.
MRI_LADDER = ["F3", "F4", "F5", "F6", "F7", "F8"]
MRI_PROBLEMS = {"mri-q": "q", "mri-fhd": "fhd"}
# Floating-point operations per sample-voxel pair, counted from the source (src/kirk_hwu/pair_math.hpp), not
# from the compiled loop: the phase 2π(kx·x + ky·y + kz·z) is 3 multiplications, 2 additions and the
# multiplication by 2π (6); sin and cos count one each (2); Q adds w·cos and w·sin (2 multiplications, 2
# additions: 4), F^H d four products and four additions (8). S2 states 13 for its F^H d loop.
FLOPS_PER_PAIR = {"mri-q": 12, "mri-fhd": 16}

# Every result file the chapters read, the provenance they read, and the images only the figures draw.
FILES = ["mri_ladder", "mri_memory_spaces", "mri_tuning", "mri_fp64", "mri_reconstruct", "coulomb_ladder",
         "cpu_baselines", "rates", "resources", "mri_cold_warm",
         # the mechanisms and baselines the documents name (paper/kirk_hwu/data/mechanisms.py); each may be absent
         "cpu_tuned", "mri_solver_cpu", "mri_split", "mri_sfu_share", "sass_counts"]
# Results of the steps beyond the documents, recorded later: a folder without them prints their tables as not
# measured (each chapter module says so and records the fallback).
LATER = ["mri_reconstruct_fastest", "mri_nufft"]
# The images of the reconstruction on the fastest kernels and with the NUFFT pair (mri_reconstruct_fastest), for the
# figure beside the direct one.
LATER_IMAGES = ["gpu-best", "gpu-nufft"]
UNCHECKED = ["gpu_correctness"]     # read with every row, the failed comparisons counted
GPU_EXPERIMENTS = ["mri_ladder", "mri_reconstruct", "coulomb_ladder", "gpu_correctness"]
METAS = GPU_EXPERIMENTS + ["mri_cold_warm"]
IMAGES = ["gpu-fp64", "cpu-gridding", "gpu-f8"]


def rates(rows, key=("variant", "size")):
    """Median pairs per second of each (variant, size) over its samples."""
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in key), []).append(float(r["pairs_per_second"]))
    return {k: statistics.median(v) for k, v in out.items()}


def need(table, key, source, path=None):
    if key not in table:
        raise MissingData(f"{source}: no rows for {key}", [path] if path else [])
    return table[key]


@dataclasses.dataclass(frozen=True)
class Gpu(F.Facts):
    """The GPU of the study's recording, from the provenance of its first GPU experiment in the folder."""
    full_name: str          # as the provenance names it ("NVIDIA H200")
    name: str               # without the vendor ("H200")
    sm_count: int
    driver: str
    cuda: str
    host_cpu: str


@dataclasses.dataclass(frozen=True)
class ReconRun(F.Facts):
    """One configuration of the GPU reconstruction at the full size (mri_reconstruct.csv, iterative rows): the
    medians of its recorded runs, in seconds, and its image's error against the phantom."""
    q_variant: str
    fhd_variant: str
    runs: int
    q_s: float
    fhd_s: float
    solver_s: float
    recon_s: float                      # F^H d + solver, as the documents count it
    q_pairs: float
    fhd_pairs: float
    image_err: float                    # relative L2 against the phantom
    fhd_check_err: float | None         # the F^H d variant's check against FP64 before timing (None: not recorded)


@dataclasses.dataclass(frozen=True)
class NufftCell(F.Facts):
    """One configuration of mri_nufft.csv: an implementation (direct, ours, cufinufft), its variant, an operation
    (adjoint = F^H d, forward, normal, reconstruct) and its accuracy settings, with the median time and error."""
    implementation: str
    variant: str
    operation: str
    tolerance: float | None             # the requested tolerance (None: a width sweep's row, or a direct sum's)
    oversampling: float | None          # σ of the grid (None: the peer's own choice, or not a NUFFT)
    width: int | None                   # the kernel's width in cells (ours)
    fft_grid: int | None                # the oversampled grid's edge (ours)
    ms: float                           # median over the recorded samples
    err: float                          # relative L2 against the FP64 direct sum (reconstruct: the image's against the phantom)
    valid: bool


@dataclasses.dataclass(frozen=True)
class Nufft(F.Facts):
    """The NUFFT against the direct sums and the peer at the published size (mri_nufft.csv)."""
    grid: int
    samples: int
    cells: tuple[NufftCell, ...]


@dataclasses.dataclass(frozen=True)
class Facts(F.Facts):
    published: Mapping[str, Any]        # paper/kirk_hwu/published.json
    files: ResultFiles
    gpu: Gpu | Unavailable
    # {problem: {step: pairs/s}}: the ladder's GPU steps on the medium input, the CPU loops (cpu-f64, cpu-f32) and
    # the scatter and the first gather on the small input (F0@small, F3@small)
    mri_rates: Mapping[str, Mapping[str, float]] | Unavailable
    # The GPU reconstruction on the documents' kernels and on the study's fastest, in one run
    # (mri_reconstruct_fastest.csv), at the full size per Q variant (each run pairs a Q and an F^H d variant)
    recon_fastest: Mapping[str, ReconRun] | Unavailable
    # The NUFFT, the direct sums and the peer NUFFT in one run (mri_nufft.csv)
    nufft: Nufft | Unavailable
    # The measured special-function rate of a sin+cos pair of one argument (rates.csv), pairs per second
    sincos_pair_rate: float | Unavailable


def gpu_facts(files):
    meta, missing = None, []
    for name in GPU_EXPERIMENTS:
        try:
            meta = files.meta(name)
            break
        except MissingData as e:
            missing.append(e)
    if meta is None:
        raise MissingData("; ".join(str(e) for e in missing), [s for e in missing for s in e.sources])
    return Gpu(full_name=meta["gpu_name"], name=meta["gpu_name"].replace("NVIDIA ", ""), sm_count=int(meta["sm_count"]),
               driver=meta["driver_version"], cuda=str(meta["cuda_version"]), host_cpu=meta["host_cpu"])


def mri_rates_facts(files):
    rows = files.rows("mri_ladder")
    by_variant = rates(rows)
    step_of = {r["variant"]: r["step"] for r in rows}
    cpu = rates(files.rows("cpu_baselines"), key=("problem", "precision"))
    ladder, baselines = files.path("mri_ladder"), files.path("cpu_baselines")
    out = {}
    for problem, prefix in MRI_PROBLEMS.items():
        steps = {}
        for (variant, size), rate in by_variant.items():
            if variant.startswith(prefix + "-") and size == "medium":
                steps[step_of[variant]] = rate
        for s in MRI_LADDER:
            need(steps, s, f"mri_ladder ({problem}, medium)", ladder)
        steps["cpu-f64"] = need(cpu, (problem, "f64"), "cpu_baselines", baselines)
        steps["cpu-f32"] = need(cpu, (problem, "f32"), "cpu_baselines", baselines)
        steps["F0@small"] = need(by_variant, (f"{prefix}-scatter-atomic-libm-f32", "small"), "mri_ladder", ladder)
        steps["F3@small"] = need(by_variant, (f"{prefix}-global-memacc-libm-u1-f32", "small"), "mri_ladder", ladder)
        out[problem] = frozen(steps)
    return frozen(out)


def recon_facts(files, name):
    rows = files.rows(name)
    runs = {}
    for r in rows:
        if r["method"] == "iterative" and r["size"] == "full" and r["device"] == "gpu":
            runs.setdefault(r["q_variant"], []).append(r)
    if not runs:
        raise MissingData(f"{name}: no GPU iterative rows at the full size", [files.path(name)])

    def med(rs, column, scale=1.0):
        return statistics.median(float(r[column]) for r in rs) * scale

    out = {}
    for q, rs in runs.items():
        checks = [float(r["fhd_check_rel_l2"]) for r in rs if r.get("fhd_check_rel_l2", "") != ""]
        out[q] = ReconRun(q_variant=q, fhd_variant=rs[0]["fhd_variant"], runs=len(rs), q_s=med(rs, "q_ms", 1e-3),
                          fhd_s=med(rs, "fhd_ms", 1e-3), solver_s=med(rs, "solver_ms", 1e-3),
                          recon_s=med(rs, "recon_ms", 1e-3), q_pairs=float(rs[0]["q_pairs"]),
                          fhd_pairs=float(rs[0]["fhd_pairs"]), image_err=med(rs, "rel_l2_err"),
                          fhd_check_err=max(checks) if checks else None)
    return frozen(out)


def nufft_facts(files):
    rows = files.rows("mri_nufft")
    sizes = {(r["grid"], r["kspace_samples"]) for r in rows if r["size"] == "full"}
    if len(sizes) != 1:
        raise MissingData(f"mri_nufft.csv: expected one full-size problem, found {sorted(sizes)}", [files.path("mri_nufft")])
    (grid, samples), = sizes
    groups = {}
    for r in rows:
        if r["size"] == "full":
            key = tuple(r[k] for k in ("implementation", "variant", "operation", "tolerance", "oversampling", "width", "fft_grid"))
            groups.setdefault(key, []).append(r)

    def opt(text, kind):
        return kind(float(text)) if text != "" else None
    cells = tuple(NufftCell(implementation=k[0], variant=k[1], operation=k[2], tolerance=opt(k[3], float),
                            oversampling=opt(k[4], float), width=opt(k[5], int), fft_grid=opt(k[6], int),
                            ms=statistics.median(float(r["ms"]) for r in rs),
                            err=statistics.median(float(r["rel_l2_err"]) for r in rs),
                            valid=all(r["valid"] == "true" for r in rs))
                  for k, rs in groups.items())
    return Nufft(grid=int(grid), samples=int(samples), cells=cells)


def sincos_rate_facts(files):
    rows = [r for r in files.rows("rates") if r["operation"] == "sincos_pair"]
    if not rows:
        raise MissingData("rates.csv: no sincos_pair rows", [files.path("rates")])
    return statistics.median(float(r["ops_per_second"]) for r in rows)


def build(folder, published, compare=()):
    """The study's facts from the GPU folder @p folder (a ResultFolder) and its published numbers (the folders of
    the GPUs compared with it are not used by this study)."""
    files = ResultFiles(folder.path / STUDY)
    for name in FILES + LATER:
        part(files.load, name)
    for name in UNCHECKED:
        part(files.load, name, check_valid=False)
    # The executed counts of the compute-to-memory ratios, recorded by the ryoo program (its ncu kind).
    if (folder.path / "ryoo" / "ncu_mri_cp_mix.csv").exists():
        part(files.load, "ncu_mri_cp_mix", folder.path / "ryoo", check_valid=False)
    for name in METAS:
        part(files.load_meta, name)
    for label in IMAGES:
        part(files.load_file, files.path(f"mri_reconstruct_images_{label}", suffix=".json"), for_chapters=False)
    for label in LATER_IMAGES:
        part(files.load_file, files.path(f"mri_reconstruct_fastest_images_{label}", suffix=".json"), for_chapters=False)
    files.close()
    return Facts(published=frozen(published), files=files, gpu=part(gpu_facts, files),
                 mri_rates=part(mri_rates_facts, files),
                 recon_fastest=part(recon_facts, files, "mri_reconstruct_fastest"), nufft=part(nufft_facts, files),
                 sincos_pair_rate=part(sincos_rate_facts, files))
