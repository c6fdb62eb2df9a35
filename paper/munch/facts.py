"""The Münch (2009) study's facts: every result file its chapters and figures use, read once, and the values
more than one of them needs, as numbers: the measured roof, the launch costs, the copy plateaus, the IEEE
counts, the convolution's and the rolling ball's medians, and the speed-ups the verdicts set beside the thesis.

    facts = build(ResultFolder("experiments/results/nvidia-h200"), published, compare)
    facts.roof.fp32_peak                       measured FP32 FMA peak, GFLOP/s
    facts.convolution.gpu_ms[(v, n, w)]        median kernel ms of a variant at signal n and filter w
    facts.rolling_ball.speedups[(n, w)]        sequential CPU over the fastest GPU kernel
    facts.files.rows("matmul_gpu")             the rows of a result a single chapter reads
"""
import dataclasses
import statistics
from collections.abc import Mapping
from typing import Any

from paper.report import facts as F
from paper.report.facts import MissingData, ResultFiles, Unavailable, available, frozen, part

STUDY = "munch"

# The direct convolution kernels beyond the thesis's, and the rolling ball's GPU variants.
CONV_DIRECT = ["tiled-constant-r16", "tiled-shared-r16", "tiled-constant-r1"]
RB_GPU = ["thesis-constant384", "tiled-constant-r16", "tiled-shared-r16"]
# The thesis's profiled convolution cell (its Table 4.1: 10^5 samples, 999 taps, three launches).
T41_CELL = ("thesis-constant384", 100000, 999)
LAUNCH_MODES = ["synchronised", "asynchronous", "graph"]

# Every result file the chapters read (an optional one may be absent), the provenance they read, and the
# results of other studies only the roofline figure draws.
FILES = ["roofline", "launch_overhead", "launch_first", "launch_pattern", "copy_bandwidth", "convolution_gpu",
         "convolution_cpu", "convolution_streaming", "convolution_overhead", "rolling_ball_gpu", "rolling_ball_cpu",
         "rolling_ball_overhead", "matmul_cpu", "matmul_gpu", "convolution_cold_warm", "copy_cold_warm"]
UNCHECKED = ["ieee"]                # every row, the mismatches counted
# Results recorded later than the rest: a folder without them prints their table as not measured.
LATER = ["convolution_pipeline"]
# The modes of the pipelined convolution (munch pipeline), in the order its table lists them.
PIPELINE_MODES = ["per-call", "unchunked-pinned", "pipelined", "pipelined-graph", "pipelined-pageable",
                  "floor-serial", "floor-overlapped"]
METAS = ["roofline", "convolution_cpu", "convolution_gpu", "convolution_cold_warm", "copy_cold_warm"]
FIGURE_ONLY = [("mwsep", "ncu_fp64"), ("ryoo", "ncu_ladder")]


def groups(rows, value, key):
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in key), []).append(float(r[value]))
    return out


def medians(rows, value, key):
    return {k: statistics.median(v) for k, v in groups(rows, value, key).items()}


def by_size(rows, value, name_key):
    """Medians keyed (name, signal, filter) with integer sizes."""
    return {(k[0], int(k[1]), int(k[2])): v for k, v in medians(rows, value, (name_key, "signal", "filter")).items()}


def best(table, names, n, w):
    """(name, median) of the fastest of @p names measured at (n, w), or None."""
    found = [(table[(v, n, w)], v) for v in names if (v, n, w) in table]
    return None if not found else (min(found)[1], min(found)[0])


@dataclasses.dataclass(frozen=True)
class Roof(F.Facts):
    """The GPU and its measured roof (roofline.csv and its provenance)."""
    gpu_name: str           # as the provenance names it ("NVIDIA H200")
    gpu: str                # without the vendor
    sm_count: int
    fp32_peak: float        # GFLOP/s
    fp64_peak: float        # GFLOP/s
    stream_bw: float        # GB/s


@dataclasses.dataclass(frozen=True)
class Launches(F.Facts):
    """The cost of an empty launch (launch_overhead.csv, µs) and of the first calls (launch_first.csv)."""
    us: Mapping[tuple[str, str, str], float]        # median µs per (mode, grid, block)
    sync_us: float          # the 16x16 grid of 16x16 blocks, per mode
    async_us: float
    graph_us: float
    context_ms_lazy: float
    context_ms_eager: float
    first_lazy_us: float
    first_eager_us: float
    second_us: float


@dataclasses.dataclass(frozen=True)
class Copies(F.Facts):
    """The copy plateaus (copy_bandwidth.csv): per (memory, direction) the highest median GB/s, the smallest size
    reaching nine tenths of it, and how often a larger copy of at most 1.5 MB finished sooner than a smaller."""
    plateau: Mapping[tuple[str, str], tuple[float, int, int]]
    pinned_htod: float
    pinned_dtoh: float
    pinned_reach: int       # bytes: the larger of the two pinned directions' nine-tenths sizes
    dtod: float
    inversions: int         # among the pinned sizes


@dataclasses.dataclass(frozen=True)
class Ieee(F.Facts):
    """Mismatches of the float operations against the CPU (ieee.csv), per (operation, reference)."""
    default: Mapping[tuple[str, str], int]
    fast: Mapping[tuple[str, str], int]
    count: int


@dataclasses.dataclass(frozen=True)
class Convolution(F.Facts):
    """The convolution's medians keyed (variant, signal, filter) and its CPU's (implementation, signal, filter)."""
    gpu_ms: Mapping[tuple[str, int, int], float]
    gflops: Mapping[tuple[str, int, int], float]
    gbps: Mapping[tuple[str, int, int], float]
    cpu_ms: Mapping[tuple[str, int, int], float]
    cpu_threads: int
    host_cpu: str
    t41_peak_pct: float     # the thesis's kernel at its profiled cell, share of the measured FP32 peak (%)
    t41_tiled: tuple[str, float]        # the fastest direct kernel at that cell, and how many times faster it is


@dataclasses.dataclass(frozen=True)
class RollingBall(F.Facts):
    """The rolling ball's speed-ups, the CPU and the GPU doing the same work."""
    speedups: Mapping[tuple[int, int], float]       # sequential CPU over the fastest GPU kernel, per (signal, filter)
    omp_speedup: float      # OpenMP over sequential at the largest cell with both
    omp_cell: tuple[int, int]
    threads: int


@dataclasses.dataclass(frozen=True)
class Pipeline(F.Facts):
    """The convolution with its transfers, every mode in one run (convolution_pipeline.csv): median ms per
    (mode, chunks) at one signal and filter; chunks 0 for the modes without chunks."""
    signal: int
    filter: int
    bytes: float                                    # the signal's and the output's bytes
    ms: Mapping[tuple[str, int], float]


@dataclasses.dataclass(frozen=True)
class Facts(F.Facts):
    published: Mapping[str, Any]        # paper/munch/published.json
    files: ResultFiles
    roof: Roof | Unavailable
    launches: Launches | Unavailable
    copies: Copies | Unavailable
    ieee: Ieee | Unavailable
    convolution: Convolution | Unavailable
    rolling_ball: RollingBall | Unavailable
    t41_published_peak_pct: float       # the thesis's profiled launch, share of the FX 3700's derived peak (%)
    roofline_studies: tuple[str, ...]   # the other studies whose folders hold roofline_points.csv (read for the figure)
    pipeline: Pipeline | Unavailable    # the convolution with its transfers, pipelined, and its copy floor


def roof_facts(files):
    meta = files.meta("roofline")
    roof = medians(files.rows("roofline"), "value", ("quantity",))
    for q in ("fp32_fma_peak", "fp64_fma_peak", "stream_copy_bandwidth"):
        if (q,) not in roof:
            raise MissingData(f"roofline.csv: no {q}", [files.path("roofline")])
    return Roof(gpu_name=meta["gpu_name"], gpu=meta["gpu_name"].replace("NVIDIA ", ""), sm_count=int(meta["sm_count"]),
                fp32_peak=roof[("fp32_fma_peak",)], fp64_peak=roof[("fp64_fma_peak",)],
                stream_bw=roof[("stream_copy_bandwidth",)])


def launch_facts(files):
    launch = medians(files.rows("launch_overhead"), "us_per_launch", ("mode", "grid", "block"))
    key = ("16x16", "16x16")
    if any((m,) + key not in launch for m in LAUNCH_MODES):
        raise MissingData("launch_overhead.csv: no 16x16 grid of 16x16 blocks", [files.path("launch_overhead")])
    fm = medians(files.rows("launch_first"), "us_per_launch", ("mode", "module_loading"))
    for m in ("context_creation", "first_launch", "second_launch"):
        for loading in ("LAZY", "EAGER"):
            if (m, loading) not in fm:
                raise MissingData(f"launch_first.csv: no {m} with {loading} loading", [files.path("launch_first")])
    return Launches(us=frozen(launch), sync_us=launch[("synchronised",) + key], async_us=launch[("asynchronous",) + key],
                    graph_us=launch[("graph",) + key], context_ms_lazy=fm[("context_creation", "LAZY")] / 1e3,
                    context_ms_eager=fm[("context_creation", "EAGER")] / 1e3, first_lazy_us=fm[("first_launch", "LAZY")],
                    first_eager_us=fm[("first_launch", "EAGER")], second_us=fm[("second_launch", "LAZY")])


COPY_KINDS = [("pageable", "htod"), ("pageable", "dtoh"), ("pinned", "htod"), ("pinned", "dtoh"), ("mapped", "htod"),
              ("mapped", "dtoh"), ("device", "dtod")]


def copy_facts(files):
    copy_rows = files.rows("copy_bandwidth")
    rate = medians(copy_rows, "gb_per_s", ("memory", "direction", "bytes"))
    times = medians(copy_rows, "ms", ("memory", "direction", "bytes"))
    plateau = {}
    for mem, d in COPY_KINDS:
        sizes = sorted(int(k[2]) for k in rate if k[:2] == (mem, d))
        if not sizes:
            raise MissingData(f"copy_bandwidth.csv: no {mem} {d} rows", [files.path("copy_bandwidth")])
        top = max(rate[(mem, d, str(s))] for s in sizes)
        reach = next(s for s in sizes if rate[(mem, d, str(s))] >= 0.9 * top)
        small = [s for s in sizes if s <= 1_500_000]
        # The thesis saw copies of 4 kB - 1.5 MB finish sooner than smaller ones: count such inversions.
        inversions = sum(1 for a, b in zip(small, small[1:]) if times[(mem, d, str(b))] < times[(mem, d, str(a))])
        plateau[(mem, d)] = (top, reach, inversions)
    ph, pd = plateau[("pinned", "htod")], plateau[("pinned", "dtoh")]
    return Copies(plateau=frozen(plateau), pinned_htod=ph[0], pinned_dtoh=pd[0], pinned_reach=max(ph[1], pd[1]),
                  dtod=plateau[("device", "dtod")][0], inversions=sum(p[2] for k, p in plateau.items() if k[0] == "pinned"))


def ieee_facts(files):
    ieee = files.rows("ieee", check_valid=False)

    def counts(build):
        return frozen({(r["operation"], r["cpu_reference"]): int(r["mismatches"]) for r in ieee if r["build"] == build})
    return Ieee(default=counts("default"), fast=counts("fast_math"), count=int(ieee[0]["count"]))


def convolution_facts(files, roof):
    gpu_rows, cpu_rows = files.rows("convolution_gpu"), files.rows("convolution_cpu")
    g = by_size(gpu_rows, "kernel_ms", "variant")
    gflops = by_size(gpu_rows, "gflops", "variant")
    if T41_CELL not in g:
        raise MissingData("convolution_gpu.csv: no thesis-constant384 at 10^5 x 999 (the thesis's profiled cell)",
                          [files.path("convolution_gpu")])
    tiled = best(g, CONV_DIRECT, 100000, 999)
    return Convolution(gpu_ms=frozen(g), gflops=frozen(gflops), gbps=frozen(by_size(gpu_rows, "gbps", "variant")),
                       cpu_ms=frozen(by_size(cpu_rows, "ms", "implementation")),
                       cpu_threads=max(int(r["threads"]) for r in cpu_rows),
                       host_cpu=files.meta("convolution_cpu").get("host_cpu", ""),
                       t41_peak_pct=100 * gflops[T41_CELL] / available(roof).fp32_peak,
                       t41_tiled=(tiled[0], g[T41_CELL] / tiled[1]))


def rolling_ball_facts(files):
    g = by_size(files.rows("rolling_ball_gpu"), "kernel_ms", "variant")
    cpu_rows = files.rows("rolling_ball_cpu")
    c = by_size(cpu_rows, "ms", "implementation")
    sources = [files.path("rolling_ball_gpu"), files.path("rolling_ball_cpu")]
    speedups = {(n, w): c[("sequential", n, w)] / best(g, RB_GPU, n, w)[1] for (impl, n, w) in c
                if impl == "sequential" and best(g, RB_GPU, n, w) is not None}
    if not speedups:
        raise MissingData("rolling_ball_cpu.csv and rolling_ball_gpu.csv share no cell with a sequential time", sources)
    omp = {(n, w): c[("sequential", n, w)] / c[("openmp", n, w)] for (impl, n, w) in c
           if impl == "sequential" and ("openmp", n, w) in c}
    if not omp:
        raise MissingData("rolling_ball_cpu.csv: no cell with both a sequential and an OpenMP time", sources)
    big = max(omp, key=lambda k: k[0] * k[1])
    return RollingBall(speedups=frozen(speedups), omp_speedup=omp[big], omp_cell=big,
                       threads=max(int(r["threads"]) for r in cpu_rows))


def t41_published_peak_pct(published):
    """The thesis's profiled launch (Table 4.1): 2 x 264 x 384 x 384 operations in its launch time, as a share of
    the FX 3700's derived peak."""
    launch_ms = published["claims"]["table_4_1_launch_ms"]["value"]
    return 100 * 2 * 264 * 384 * 384 / (launch_ms * 1e-3) / 1e9 / published["hardware"]["gpu_peak_gflops_derived"]


def pipeline_facts(files):
    rows = files.rows("convolution_pipeline")
    cells = {(int(r["signal"]), int(r["filter"])) for r in rows}
    if len(cells) != 1:
        raise MissingData(f"convolution_pipeline.csv: expected one signal and filter, found {sorted(cells)}",
                          [files.path("convolution_pipeline")])
    (n, w), = cells
    ms = {(k[0], int(k[1])): v for k, v in medians(rows, "ms", ("mode", "chunks")).items()}
    for mode in ("per-call", "floor-overlapped"):
        if not any(m == mode for m, _ in ms):
            raise MissingData(f"convolution_pipeline.csv: no {mode} rows", [files.path("convolution_pipeline")])
    return Pipeline(signal=n, filter=w, bytes=float(rows[0]["bytes"]), ms=frozen(ms))


def build(folder, published, compare=()):
    """The study's facts from the GPU folder @p folder (a ResultFolder) and its published numbers (the folders of
    the GPUs compared with it are not used by this study)."""
    files = ResultFiles(folder.path / STUDY)
    for name in FILES + LATER:
        part(files.load, name)
    for name in UNCHECKED:
        part(files.load, name, check_valid=False)
    for name in METAS:
        part(files.load_meta, name)
    # Other studies' results the roofline figure adds where they are present.
    for study, name in FIGURE_ONLY:
        part(files.load, name, folder=folder.path / study, check_valid=False, for_chapters=False)
    points = tuple(p.name for p in sorted(folder.path.iterdir()) if p.is_dir() and p.name not in ("munch", "mwsep", "ryoo")
                   and (p / "roofline_points.csv").exists())
    for other in points:
        part(files.load, "roofline_points", folder=folder.path / other, check_valid=False, for_chapters=False)
    files.close()
    roof = part(roof_facts, files)
    return Facts(published=frozen(published), files=files, roof=roof, launches=part(launch_facts, files),
                 copies=part(copy_facts, files), ieee=part(ieee_facts, files),
                 convolution=part(convolution_facts, files, roof), rolling_ball=part(rolling_ball_facts, files),
                 t41_published_peak_pct=t41_published_peak_pct(published), roofline_studies=points,
                 pipeline=part(pipeline_facts, files))
