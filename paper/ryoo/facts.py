"""The ryoo study's facts: every result file its chapters and figures use, read once, and the values more than
one of them needs, as numbers: the ladder's medians at its size, the fastest register-tiled variant, the
traffic of V0 against 16 x 16 tiling (Nsight Compute), and each application's best speed-ups.

    facts = build(ResultFolder("experiments/results/nvidia-h200"), published, compare)
    facts.ladder.gflops["tiled-16"]     median GFLOP/s of a variant at the ladder's size
    facts.suite["rc5"].kernel_x         the fastest GPU variant's kernel speed-up over one CPU thread
    facts.files.rows("sass_loops")      the rows of a result a single chapter reads
"""
import dataclasses
import statistics
from collections.abc import Mapping
from typing import Any

from paper.report import facts as F
from paper.report.facts import MissingData, ResultFiles, Unavailable, frozen, part

STUDY = "ryoo"

# The paper's ladder, the tile sizes of its Figure 4 and the steps beyond 2008, by the variants' names.
LADDER = ["naive", "tiled-16", "unrolled-16", "prefetch-16"]
TILES = [4, 8, 12, 16]
MODERN = ["register-tiled-scalar", "register-tiled-vector", "register-tiled-vector-double",
          "register-tiled-vector-double-warp"]

# The applications of the suite, each with its result file, in the order of the paper's tables: those this
# study built for the suite first, then matrix multiplication and the kirk_hwu study's computations, whose
# files are optional (a recording without them still has the first four).
SUITE = [("elimination", "app_elimination"), ("tpacf", "app_tpacf"), ("rc5", "app_rc5"), ("pns", "app_pns"),
         ("matmul", "app_matmul"), ("mri-q", "app_mri_q"), ("mri-fhd", "app_mri_fhd"), ("cp", "app_cp"),
         ("h264", "app_h264"), ("rpes", "app_rpes"), ("fdtd", "app_fdtd"), ("lbm", "app_lbm"),
         ("fem", "app_fem")]
REQUIRED = {"elimination", "tpacf", "rc5", "pns"}

# MRI-Q and MRI-FHD recorded once more with the documents' staged constant-memory kernel beside the study's fastest
# (app_mri_*_fastest): each the documents' variant, the fastest variant and the file; recorded later than the rest,
# so a folder without them prints their table as not measured.
MRI_FASTEST = {"mri-q": ("q-constaos-regs-libm-u1-f32", "q-shared-regs-sfu-u4-f32", "app_mri_q_fastest"),
               "mri-fhd": ("fhd-constaos-regs-libm-u1-f32", "fhd-shared-regs-sfu-u4-f32", "app_mri_fhd_fastest")}

# Every result file the chapters read (an optional one may be absent), and the provenance they read alone.
FILES = (["ladder", "variants", "ncu_ladder", "sass_loops", "sizes", "saxpy", "cpu_blas", "app_resources",
          "app_source_lines", "ncu_apps", "ncu_limiters", "app_tpacf_subhistograms", "app_pns_capacity"] + [f for _, f in SUITE])
METAS = ["ladder", "saxpy", "app_resources"]
OTHER_STUDIES = [("kirk_hwu", "cpu_tuned"), ("kirk_hwu", "rates"), ("munch", "matmul_cpu"), ("munch", "roofline")]


def groups(rows, value, key):
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in key), []).append(float(r[value]))
    return out


def median_by(rows, value, *key):
    """{key tuple (or the single key's value): median of value} over the rows."""
    out = {k: statistics.median(v) for k, v in groups(rows, value, key).items()}
    return {k[0]: v for k, v in out.items()} if len(key) == 1 else out


def by_variant(rows):
    """{variant: row} for a file with one row per variant; a repeated variant is an error."""
    out = {}
    for r in rows:
        if r["variant"] in out:
            raise MissingData(f"variant {r['variant']} appears twice in a one-row-per-variant result")
        out[r["variant"]] = r
    return out


def app_medians(rows, value, key=("variant", "part")):
    """{key: median of `value`} over one application's app_bench rows. By default the parameter is left out of
    the key (the main recording of an application has one setting per variant, so the CPU row and the GPU rows
    meet under one key); the sweeps key by ("variant", "parameter", "part")."""
    return {k: statistics.median(v) for k, v in groups(rows, value, key).items()}


@dataclasses.dataclass(frozen=True)
class Ladder(F.Facts):
    """The ladder at its one matrix size (ladder.csv and its provenance)."""
    gpu_name: str                   # the GPU as its provenance names it ("NVIDIA H200")
    gpu: str                        # without the vendor ("H200")
    size: int                       # n of the n x n matrices
    sm_count: int
    gflops: Mapping[str, float]     # median GFLOP/s per variant
    clock: Mapping[str, float]      # median SM clock (MHz) recorded while each variant was timed
    steps: Mapping[str, str]        # variant -> its step (V0, V1, ..., library), in the order of ladder.csv
    best: str                       # the fastest register-tiled variant (MODERN)


@dataclasses.dataclass(frozen=True)
class Traffic(F.Facts):
    """The memory traffic of one launch of V0 and of 16 x 16 tiling (Nsight Compute, ncu_ladder.csv)."""
    dram: Mapping[str, float]       # DRAM bytes read and written, per variant
    l2: Mapping[str, float]         # bytes the L2 served, per variant
    dram_ratio: float               # V0's over tiled-16's
    l2_ratio: float


@dataclasses.dataclass(frozen=True)
class Speedup(F.Facts):
    """One application's fastest GPU variant (by kernel rate) and its speed-ups over one CPU thread."""
    best: str
    kernel_x: float                 # kernel rate over the CPU's
    app_x: float                    # application rate over the CPU's
    exec_share: float               # the kernel's share of the GPU application's time
    transfer_share: float           # the transfers' share of it
    in_kernel: float                # the share of the CPU application's time spent in the code that became the kernel


@dataclasses.dataclass(frozen=True)
class MriFastest(F.Facts):
    """One MRI application on the documents' kernel and on the study's fastest, in one run (medians, ms)."""
    documents: str                  # the documents' variant
    fastest: str                    # the study's fastest variant
    kernel_ms: Mapping[str, float]  # per variant: the kernel
    application_ms: Mapping[str, float]  # per variant: the application with allocation and transfers
    kernel_x: Mapping[str, float]   # per variant: kernel rate over one CPU thread's
    app_x: Mapping[str, float]      # per variant: application rate over the CPU application's


@dataclasses.dataclass(frozen=True)
class Facts(F.Facts):
    published: Mapping[str, Any]    # paper/ryoo/published.json
    files: ResultFiles
    ladder: Ladder | Unavailable
    traffic: Traffic | None | Unavailable       # None: the profiler's counts not recorded on this GPU
    suite: Mapping[str, Speedup] | Unavailable  # per application recorded (an optional one may be absent)
    mri_fastest: Mapping[str, MriFastest] | Unavailable  # MRI-Q, MRI-FHD on the documents' and the fastest kernels


def ladder_facts(files):
    rows = files.rows("ladder")
    meta = files.meta("ladder")
    sizes = {r["n"] for r in rows}
    if len(sizes) != 1:
        raise MissingData(f"ladder.csv: expected one matrix size, found {sorted(sizes)}", [files.path("ladder")])
    gf = median_by(rows, "gflops", "variant")
    for v in MODERN:
        if v not in gf:
            raise MissingData(f"ladder.csv: no rows for {v}", [files.path("ladder")])
    steps = {}
    for r in rows:
        steps.setdefault(r["variant"], r["step"])
    return Ladder(gpu_name=meta["gpu_name"], gpu=meta["gpu_name"].replace("NVIDIA ", ""), size=int(sizes.pop()),
                  sm_count=int(meta["sm_count"]), gflops=frozen(gf), clock=frozen(median_by(rows, "sm_clock_mhz", "variant")),
                  steps=frozen(steps), best=max(MODERN, key=gf.get))


def traffic_facts(files):
    ncu = files.optional("ncu_ladder")
    if ncu is None:
        return None
    ncu = by_variant(ncu)
    dram = {v: float(ncu[v]["dram_read_bytes"]) + float(ncu[v]["dram_write_bytes"]) for v in ("naive", "tiled-16")}
    l2 = {v: float(ncu[v]["l2_bytes"]) for v in ("naive", "tiled-16")}
    return Traffic(dram=frozen(dram), l2=frozen(l2), dram_ratio=dram["naive"] / dram["tiled-16"],
                   l2_ratio=l2["naive"] / l2["tiled-16"])


def best_speedups(rows):
    """The Speedup of one application's app_bench rows; KeyError when the CPU or every GPU variant's kernel is
    missing."""
    rate, ms = app_medians(rows, "rate"), app_medians(rows, "ms")
    gpu = sorted({v for (v, part_) in rate if v != "cpu" and part_ == "kernel"})
    if not gpu or ("cpu", "kernel") not in rate:
        raise KeyError("needs the CPU and at least one GPU variant's kernel")
    best = max(gpu, key=lambda v: rate[(v, "kernel")])
    return Speedup(best=best, kernel_x=rate[(best, "kernel")] / rate[("cpu", "kernel")],
                   app_x=rate[(best, "application")] / rate[("cpu", "application")],
                   exec_share=ms[(best, "kernel")] / ms[(best, "application")],
                   transfer_share=ms[(best, "transfer")] / ms[(best, "application")],
                   in_kernel=ms[("cpu", "kernel")] / ms[("cpu", "application")])


def suite_facts(files):
    out = {}
    for app, name in SUITE:
        rows = files.rows(name) if app in REQUIRED else files.optional(name)
        if rows is None:
            continue
        try:
            out[app] = best_speedups(rows)
        except KeyError as e:
            raise MissingData(f"{name}.csv: {e}", [files.path(name)])
    return frozen(out)


def mri_fastest_facts(files):
    out = {}
    for app, (documents, fastest, name) in MRI_FASTEST.items():
        rows = files.rows(name)
        rate, ms = app_medians(rows, "rate"), app_medians(rows, "ms")
        for key in [("cpu", "kernel"), ("cpu", "application")] + [(v, p) for v in (documents, fastest)
                                                                   for p in ("kernel", "application")]:
            if key not in rate:
                raise MissingData(f"{name}.csv: no rows for {key}", [files.path(name)])
        variants = (documents, fastest)
        out[app] = MriFastest(documents=documents, fastest=fastest,
                              kernel_ms=frozen({v: ms[(v, "kernel")] for v in variants}),
                              application_ms=frozen({v: ms[(v, "application")] for v in variants}),
                              kernel_x=frozen({v: rate[(v, "kernel")] / rate[("cpu", "kernel")] for v in variants}),
                              app_x=frozen({v: rate[(v, "application")] / rate[("cpu", "application")] for v in variants}))
    return frozen(out)


def build(folder, published, compare=()):
    """The study's facts from the GPU folder @p folder (a ResultFolder), its published numbers and the folders of
    the GPUs compared with it (unused by this study)."""
    files = ResultFiles(folder.path / STUDY)
    for name in FILES + [name for _, _, name in MRI_FASTEST.values()]:
        part(files.load, name)
    for name in METAS:
        part(files.load_meta, name)
    # The baselines and peaks other studies record on the same GPU (each optional): the tuned CPU loops and the
    # FMA rate (kirk_hwu), the single-thread ikj product and the roofline (munch); and this study's
    # elimination pair.
    for study, name in OTHER_STUDIES:
        if (folder.path / study / f"{name}.csv").exists():
            part(files.load, name, folder.path / study)
    for name in ("cse_pair", "app_lbm_capacity"):
        if (folder.path / STUDY / f"{name}.csv").exists():
            part(files.load, name)
    files.close()
    return Facts(published=frozen(published), files=files, ladder=part(ladder_facts, files),
                 traffic=part(traffic_facts, files), suite=part(suite_facts, files),
                 mri_fastest=part(mri_fastest_facts, files))
