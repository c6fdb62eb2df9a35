"""The MilkyWay@Home separation study's facts: every result file its chapters and figures use, read once, and
the values more than one of them needs, as numbers: the GPUs (this one first, then those compared with it), the
work units' grids, the thesis's Tables 4.2-4.4 as read beside their reproduction and the gains they give, the
launch configuration and the compiler's listing, the FP64 pipe's use, the precision, the scaling emulation, the
CPU against the GPU, the optimisations together, the statistics of the repeats and the effects the claims figure
draws. The naming grammar is that of variants.py; the work units, the memory spaces and their orders come from
the published numbers.

    facts = build(ResultFolder("experiments/results/nvidia-h200"), published, compare)
    facts.gpu.bandwidth_gb_s                     this GPU's memory bandwidth (GB/s), a number
    facts.tables.reproduced["4.2"]["shared"]["3s-large"]     ms, as thesis Table 4.2 lays it out
    facts.files.rows("hessian_cost")             the rows of a result a single chapter reads
"""
import dataclasses
import json
import pathlib
import re
import statistics
from collections.abc import Mapping
from typing import Any

from paper.report import facts as F
from paper.report.facts import (ROOT, MissingData, ResultFiles, Unavailable, available, frozen, meta_path_of,
                                multi_gpu_folder, multi_gpu_folders, part)

from . import variants
from .variants import FINAL, FIRST, MODERN_F64, medians_by_axes

STUDY = "mwsep"
SPEC = ROOT / "paper" / "hardware.json"
WORK_UNITS = ROOT / "data" / "workunits"
RECORDS = ROOT / "experiments" / "records"
SCALING_DEFINITION = ROOT / "experiments" / "definitions" / "mwsep" / "scaling.json"

# Every result file the chapters read from the study's folder (an optional one may be absent), those read with
# every row (a failed comparison counted, not refused), the provenance they read, and the text listing.
FILES = ["memory_spaces", "division_sqrt", "loop_unrolling", "precision", "launch_config", "optimized_vs_unoptimized",
         "cpu_vs_gpu", "cpu_vs_gpu_cpu", "modern", "device_memory", "scaling", "bench_cpu", "cpu_slice_load", "peer",
         "compressed_timing", "ncu_lean", "exp_lean", "exp_chains", "end_to_end", "fit_cost_progress", "hessian_cost", "ncu_tail",
         "ncu_reduce", "fit_recovery", "fit_recovery_progress", "fit_scaling", "fit_scaling_progress",
         "fit_scaling_compressed", "fit_scaling_compressed_progress",
         "fit_recovery_f32", "compressed_accuracy", "compressed_sweep", "compressed_cpu", "fit_recovery_compressed",
         "cold_warm", "hardware_micro", "memory_latency", "shared_capacity", "fit_stripes", "fit_stripes_progress",
         "fit_search_methods", "fit_search_methods_progress", "stripe_costs_cpu", "end_to_end_compressed",
         "fit_compressed_evaluators", "fit_recovery_batched"]
# stripe_costs_gpu: its invalid rows (a likelihood that disagreed with the CPU's) are left out by the costs, not
# refused with the file.
UNCHECKED = ["ncu_fp64", "gpu_correctness", "exp_throughput", "skipping", "sass_mix", "ncu_modern", "end_to_end",
             "end_to_end_compressed", "stripe_costs_gpu"]
# The real-stripe fits (kind fit_stripe): one JSON report per fit, and for a fit that separated its stars the
# separation's summary (JSON) and per-star file (CSV, read for the figure alone).
STRIPE_FITS = ["fit_stripes", "fit_search_methods"]
# The global search of the 3-stream small unit with cmaes-batch and with pagmo's cmaes on one and two GPUs, read
# from the folders of hosts with several GPUs (the chapter 'Fitting a stripe').
BATCHED_SCALING = ["fit_scaling_batched", "fit_scaling_cmaes"]
METAS = ["memory_spaces", "cpu_vs_gpu_cpu", "cold_warm", "fit_recovery", "fit_recovery_batched"]
LISTING = "variants_3streams.txt"
TIMED = ["memory_spaces", "division_sqrt", "loop_unrolling", "precision", "launch_config", "optimized_vs_unoptimized",
         "cpu_vs_gpu", "modern"]
# Thesis Tables 4.2-4.4: each varies the memory space with the other axes fixed, from one experiment.
TABLE_EXPERIMENTS = {"4.2": "memory_spaces", "4.3": "loop_unrolling", "4.4": "division_sqrt"}
TABLE_AXES = {"4.2": {}, "4.3": {"loop": "loop"}, "4.4": {"divsqrt": "ieee"}}
LARGE = "3s-large"


def groups(data, value="kernel_ms", key=("variant", "work_unit")):
    out = {}
    for r in data:
        out.setdefault(tuple(r[k] for k in key), []).append(float(r[value]))
    return out


def medians(data, value="kernel_ms", key=("variant", "work_unit")):
    return {k: statistics.median(v) for k, v in groups(data, value, key).items()}


def unit_label(unit):
    """'3s-large' -> '3-S large'."""
    return unit.replace("s-", "-S ")


# --- the GPUs ------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Gpu(F.Facts):
    """One GPU folder's GPU, from the provenance of its memory_spaces result and paper/hardware.json."""
    name: str                   # as the provenance names it
    short: str                  # without the vendor
    sms: int
    clock_mhz: float
    cc: str                     # compute capability
    memory_gb: float
    arch: Mapping[str, Any]     # paper/hardware.json's figures of the compute capability
    per_gpu: Mapping[str, Any]  # its figures of the GPU model (those no device tells)
    l2_mb: float | None         # L2 size in MiB: reported by the device (source "d") or the vendor's (source "v")
    l2_source: str
    bandwidth_gb_s: float | None    # memory bandwidth in GB/s, likewise
    bandwidth_source: str
    fp64_gflops: float          # computed: SMs x clock x 2 x FP64 FMA units per SM
    fp32_gflops: float
    driver: str
    cuda: str
    host_cpu: str
    folder: pathlib.Path        # <gpu folder>/mwsep


def gpu_facts(files, folder):
    meta = files.meta("memory_spaces", folder)
    spec = json.loads(SPEC.read_text())
    name = meta.get("gpu_name")
    per_gpu = spec["per_gpu"].get(name, {})
    meta_file = folder / "memory_spaces.meta.json"
    # Two generations of provenance files: the device query's fields, or nvidia-smi's strings.
    cc = meta.get("compute_capability") or per_gpu.get("compute_capability")
    if not name or not meta.get("sm_count"):
        raise MissingData(f"{F.rel(folder)}/memory_spaces.meta.json: no gpu_name or sm_count", [meta_file])
    if cc not in spec["per_compute_capability"]:
        raise MissingData(f"{F.rel(SPEC)}: no compute capability or figures for {name}: add the GPU there", [meta_file])
    arch = spec["per_compute_capability"][cc]
    if "sm_clock_max_khz" in meta:
        clock = meta["sm_clock_max_khz"] / 1e3
    elif "sm_clock_max" in meta:
        clock = float(str(meta["sm_clock_max"]).split()[0])
    else:
        raise MissingData(f"{F.rel(folder)}/memory_spaces.meta.json: no maximum SM clock", [meta_file])
    if "memory_bytes" in meta:
        memory_gb = meta["memory_bytes"] / 2**30
    else:
        memory_gb = float(str(meta.get("gpu_memory", "0")).split()[0]) / 1024  # nvidia-smi gives MiB
    sms = int(meta["sm_count"])
    # L2 size and memory bandwidth: from the device (provenance written since the runner queries it, source d);
    # a folder recorded before that takes them from paper/hardware.json by GPU name (source v).
    if meta.get("l2_cache_bytes") is not None:
        l2, l2_source = meta["l2_cache_bytes"] / 2**20, "d"
    else:
        l2, l2_source = (per_gpu["l2_mb"], "v") if "l2_mb" in per_gpu else (None, "")
    if meta.get("memory_bandwidth_gb_s") is not None:
        bandwidth, bw_source = meta["memory_bandwidth_gb_s"], "d"
    else:
        bandwidth, bw_source = ((per_gpu["memory_bandwidth_gb_s"], "v") if "memory_bandwidth_gb_s" in per_gpu
                                else (None, ""))
    return Gpu(name=name, short=name.replace("NVIDIA ", ""), sms=sms, clock_mhz=clock, cc=cc, memory_gb=memory_gb,
               arch=frozen(arch), per_gpu=frozen(per_gpu), l2_mb=l2, l2_source=l2_source, bandwidth_gb_s=bandwidth,
               bandwidth_source=bw_source, fp64_gflops=sms * clock * 1e-3 * 2 * arch["fp64_fma_per_sm"],
               fp32_gflops=sms * clock * 1e-3 * 2 * arch["fp32_fma_per_sm"], driver=meta.get("driver_version", ""),
               cuda=meta.get("cuda_version", ""), host_cpu=meta.get("host_cpu", ""), folder=folder)


def gpus_facts(files, compare):
    return tuple(gpu_facts(files, f) for f in [files.results] + list(compare))


def twin_facts(gpus):
    """(the card with the faster memory, the other): this GPU and the first compared GPU with the same SMs, clock
    and compute capability under another name, measured on a host of one GPU; MissingData when there is none."""
    gpus = available(gpus)
    main = gpus[0]
    twins = [g for g in gpus[1:] if g.sms == main.sms and g.clock_mhz == main.clock_mhz and g.cc == main.cc
             and g.name != main.name and "x2" not in g.folder.parent.name]
    if not twins:
        raise MissingData("no second GPU with the same SMs and clock among the compared folders")
    return main, twins[0]


def rows_or_empty(files, name):
    """The rows of @p name, or none when it is absent or unreadable (its readers say so)."""
    try:
        return files.rows(name)
    except MissingData:
        return []


# --- the work units -------------------------------------------------------------------------------------------

def grid(unit):
    """(r steps, mu steps, nu steps, convolve, streams, wedge, cuts) of a work unit's parameter file."""
    path = WORK_UNITS / unit / "astronomy_parameters.txt"
    if not path.exists():
        raise MissingData(f"data/workunits/{unit}/astronomy_parameters.txt: the report needs this work unit", [path])
    text = path.read_text()

    def steps(axis):
        return int(re.search(rf"^{axis}\[min,max,steps\]:.*,\s*(\d+)\s*$", text, re.M).group(1))
    return frozen({"r": steps("r"), "mu": steps("mu"), "nu": steps("nu"),
                   "convolve": int(re.search(r"^convolve:\s*(\d+)", text, re.M).group(1)),
                   "streams": int(re.search(r"^number_streams:\s*(\d+)", text, re.M).group(1)),
                   "wedge": int(re.search(r"^wedge:\s*(\d+)", text, re.M).group(1)),
                   "cuts": int(re.search(r"^number_cuts:\s*(\d+)", text, re.M).group(1))})


# --- thesis Tables 4.2-4.4 --------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Tables(F.Facts):
    """Thesis Tables 4.2-4.4 as read (the swapped columns of 4.3 and 4.4 read as the text implies) beside their
    reproduction on this GPU, {table: {memory: {unit: ms}}}, and the gain of each optimisation (time without it over
    time with it, minus one) as {table: (published {(memory, unit): gain}, reproduced {...})}."""
    published: Mapping[str, Mapping[str, Mapping[str, float]]]
    reproduced: Mapping[str, Mapping[str, Mapping[str, float]]]
    gains: Mapping[str, tuple[Mapping[tuple[str, str], float], Mapping[tuple[str, str], float]]]
    by_axes: Mapping[str, Mapping[tuple, float]]        # {experiment: medians_by_axes of its rows}
    variants: Mapping[str, Mapping[str, str]]           # {table: {memory: the variant of that row}}
    ranking: tuple[str, ...]            # the memory spaces on the 3-stream large unit, fastest first, here
    ranking_published: tuple[str, ...]  # and on the GTX 285


def as_read(published, t, memory, units):
    """{memory: {unit: ms}} of thesis Table t, the swapped columns of Tables 4.3/4.4 read as the text implies."""
    pub = published["tables"][t]
    printed = pub.get("printed_columns", list(units))
    order = pub.get("columns_as_read", printed)
    return {m: {u: pub["rows"][m][printed[i]] for i, u in enumerate(order)} for m in memory}


def tables_facts(files, published, memory, units):
    by_axes = {e: medians_by_axes(files.rows(e)) for e in TABLE_EXPERIMENTS.values()}
    reproduced, names = {}, {}
    for t, experiment in TABLE_EXPERIMENTS.items():
        fixed = variants.axes({"variant": variants.variant(**TABLE_AXES[t])})
        axes = tuple(fixed[a] for a in variants.AXES[1:])
        reproduced[t] = {m: {u: by_axes[experiment][(m,) + axes + (u,)] for u in units} for m in memory}
        names[t] = frozen({m: variants.variant(memory=m, **TABLE_AXES[t]) for m in memory})
    pub = {t: as_read(published, t, memory, units) for t in reproduced}
    gains = {}
    for t in ("4.3", "4.4"):
        p = {(m, u): pub[t][m][u] / pub["4.2"][m][u] - 1 for m in memory for u in units}
        r = {(m, u): reproduced[t][m][u] / reproduced["4.2"][m][u] - 1 for m in memory for u in units}
        gains[t] = (frozen(p), frozen(r))

    def nested(d):
        return frozen({t: frozen({m: frozen(v) for m, v in per.items()}) for t, per in d.items()})
    return Tables(published=nested(pub), reproduced=nested(reproduced), gains=frozen(gains),
                  by_axes=frozen({e: frozen(v) for e, v in by_axes.items()}), variants=frozen(names),
                  ranking=tuple(sorted(memory, key=lambda m: reproduced["4.2"][m][LARGE])),
                  ranking_published=tuple(sorted(memory, key=lambda m: pub["4.2"][m][LARGE])))


# --- launch configuration, registers -------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Launch(F.Facts):
    """Threads per block, the register cap and the star layout of the final kernel on the 3-stream large unit
    (launch_config.csv, ms medians), with the compiler's listing of every variant (variants_3streams.txt)."""
    medians: Mapping[tuple[str, str, str, str, str], float]     # (variant, tpb, blocks, cap, layout) -> ms
    tpb: Mapping[int, float]            # the final kernel's time by threads per block
    tpb_best: int
    tpb_before: int                     # the thesis's shape before its change (one thread per nu step), and after
    tpb_after: int
    tpb_before_change: float | None     # after over before, minus one; None when either was not recorded
    chunked_slowdown: float             # the 2010 launch geometry (chunks of 128 blocks) over one launch per r step
    aos_vs_soa: float                   # stars as structures over stars as arrays, minus one
    register_cap: int                   # the registers of the capped builds
    cap: Mapping[str, tuple[float, float]]      # variant -> (ms without the cap, ms with it)
    listing: Mapping[tuple[str, bool], Mapping[str, float]]    # (variant, capped) -> regs, spill, shared, occupancy
    listing_gpu: str                    # the GPU the listing names on its first line ("" when it names none)


# The variants the register-cap table sets side by side: the first version, the final one in three other memory
# spaces, the final one without its two optimisations, and the final one.
CAPPED = [FIRST, variants.variant(memory="global"), variants.variant(memory="constant"), variants.variant(memory="texture"),
          variants.variant(divsqrt="ieee", loop="loop"), FINAL]


def read_listing(text, path):
    """Registers and occupancy per (variant, capped) from the program's variant listing."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 10 and f[1].startswith("sm_"):
            out[(f[0], f[2] != "no")] = frozen({"regs": int(f[3]), "spill": int(f[4]), "shared": int(f[6]),
                                                "occupancy": float(f[9].rstrip("%"))})
    if not out:
        raise MissingData(f"{path}: no variant rows", [path])
    first = " ".join(next((l.split() for l in text.splitlines() if l.strip()), []))
    gpu = first.split(":", 1)[1].split("(")[0].strip() if first.startswith("GPU:") else ""
    return out, gpu


def launch_facts(files, published):
    launch = files.rows("launch_config")
    lm = medians(launch, key=("variant", "threads_per_block", "blocks_per_launch", "register_cap", "star_layout"))
    tpb = {int(k[1]): v for k, v in lm.items() if k[0] == FINAL and k[2] == "0" and k[3] == "none" and k[4] == "soa"}
    shapes = published["claims"]["threads_per_block_before"]
    before, after = shapes["value"], shapes["after"]
    listing, gpu = files.file(files.path("variants_3streams", suffix=".txt"))
    cap_ms = {v: (lm[(v, "64", "0", "none", "soa")], lm[(v, "64", "0", "48", "soa")]) for v in CAPPED}
    return Launch(medians=frozen(lm), tpb=frozen(tpb), tpb_best=min(tpb, key=tpb.get), tpb_before=before,
                  tpb_after=after, tpb_before_change=tpb[after] / tpb[before] - 1 if before in tpb and after in tpb else None,
                  chunked_slowdown=lm[(FINAL, "64", "128", "none", "soa")] / tpb[64],
                  aos_vs_soa=lm[(FINAL, "64", "0", "none", "aos")] / tpb[64] - 1,
                  register_cap=max(int(r["register_cap"]) for r in launch if r["register_cap"] != "none"),
                  cap=frozen(cap_ms), listing=frozen(listing), listing_gpu=gpu)


# --- precision -------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Precision(F.Facts):
    """Thesis Table 4.5 published and reproduced, per large unit: (published double / single time, reproduced,
    published digits of agreement, reproduced digits), and the worst CPU-GPU difference in double precision."""
    units: Mapping[str, tuple[float, float, float, float]]
    f64_max_rel: float


def digits(a, b):
    import math
    d = abs(a - b) / abs(b)
    return -math.log10(d) if d > 0 else 17.0


def precision_facts(files, published):
    prec = files.rows("precision")
    pm = medians_by_axes(prec)
    like = medians_by_axes(prec, value="likelihood")
    fa = variants.final_axes()
    final = (fa["memory"], fa["divsqrt"], fa["loop"])  # the final variant, at each precision
    out = {}
    for u in ("3s-large", "2s-large"):
        ls, ld, ts, td, ratio = published["tables"]["4.5"][u]
        s, d = float(ls.replace(" ", "")), float(ld.replace(" ", ""))
        f64, f32 = pm[final + ("f64", u)], pm[final + ("f32", u)]
        l64, l32 = like[final + ("f64", u)], like[final + ("f32", u)]
        out[u] = (ratio, f64 / f32, digits(s, d), digits(l32, l64))
    corr = files.rows("gpu_correctness", check_valid=False)
    return Precision(units=frozen(out), f64_max_rel=max(float(r["max_rel_diff"]) for r in corr if r["variant"].endswith("f64")))


# --- the scaling emulation -------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Scaling(F.Facts):
    """The emulation of fewer SMs with green contexts (scaling.csv): ms medians by (variant, unit, SMs), the SM
    counts, the (variant, unit) pairs recorded at every count, and what they give."""
    medians: Mapping[tuple[str, str, str], float]
    sms: tuple[int, ...]
    defined_variants: int               # the variants the definition asks for
    pairs: tuple[tuple[str, str], ...]  # every variant and unit of the definition
    recorded: tuple[tuple[str, str], ...]   # those recorded at every SM count
    first_step: tuple[float, float]     # speed-up from the first to the second SM count, least and most
    full: tuple[float, float]           # from the first count to the whole chip
    linear_share: tuple[float, float]   # the whole chip's share of linear scaling, least and most
    monotone: bool                      # every kernel faster at every step in SMs
    effective: bool                     # the restriction took effect (times change with the SM count)


def scaling_facts(files):
    sc = medians(files.rows("scaling"), key=("variant", "work_unit", "sm_count"))
    sms = sorted({int(k[2]) for k in sc})
    path = files.path("scaling")
    if len(sms) < 2:
        raise MissingData("scaling.csv: fewer than two SM counts recorded", [path])
    defined = json.loads(SCALING_DEFINITION.read_text())["runs"][0]
    # Every variant and unit of the definition gets a row; those this recording lacks say so.
    pairs = [(v, u) for u in defined["work_units"] for v in defined["variants"]]
    recorded = [(v, u) for v, u in pairs if all((v, u, str(s)) in sc for s in sms)]
    if not recorded:
        raise MissingData("scaling.csv: no variant recorded at every SM count", [path])
    s16, s32 = sms[0], sms[1]
    r = [sc[(v, u, str(s16))] / sc[(v, u, str(s32))] for v, u in recorded]
    full = [sc[(v, u, str(s16))] / sc[(v, u, str(sms[-1]))] for v, u in recorded]
    return Scaling(medians=frozen(sc), sms=tuple(sms), defined_variants=len(defined["variants"]), pairs=tuple(pairs),
                   recorded=tuple(recorded), first_step=(min(r), max(r)), full=(min(full), max(full)),
                   linear_share=(min(full) * s16 / sms[-1], max(full) * s16 / sms[-1]),
                   monotone=all(sc[(v, u, str(a))] > sc[(v, u, str(b))] for v, u in recorded for a, b in zip(sms, sms[1:])),
                   effective=min(full) >= 0.5 * sms[-1] / s16)


# --- the CPU against the GPU -----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class CpuSpeed(F.Facts):
    """Seconds per unit (cpu_vs_gpu_cpu.csv, cpu_vs_gpu.csv): the reference and fast integrators on one core (the
    summed CPU time of concurrent single-thread slices), the fast one on every core (wall time), and the GPU's
    first, final and modern kernels; medians."""
    units: Mapping[str, Mapping[str, float]]    # unit -> ref, fast1, fastn, first, final, modern
    cores: int
    slices: int


def cpu_facts(files, units):
    cpu = files.rows("cpu_vs_gpu_cpu")
    gpu_t = medians(files.rows("cpu_vs_gpu"))
    cores = max(int(r["threads"]) for r in cpu)

    def runs(integrator, threads, u):
        vals = [float(r["cpu_seconds"] if threads == 1 else r["seconds"]) for r in cpu
                if r["integrator"] == integrator and int(r["threads"]) == threads and r["work_unit"] == u]
        if not vals:
            raise MissingData(f"cpu_vs_gpu_cpu.csv: no {integrator} x{threads} rows for {u}", [files.path("cpu_vs_gpu_cpu")])
        return vals
    speed = {}
    for u in units:
        ref, f1, fn = (statistics.median(runs(i, t, u)) for i, t in [("reference", 1), ("fast", 1), ("fast", cores)])
        g0, g1, gm = (gpu_t[(v, u)] / 1e3 for v in (FIRST, FINAL, MODERN_F64))
        speed[u] = frozen({"ref": ref, "fast1": f1, "fastn": fn, "first": g0, "final": g1, "modern": gm})
    return CpuSpeed(units=frozen(speed), cores=cores, slices=max(int(r["slices"]) for r in cpu if r["threads"] == "1"))


# --- the optimisations together --------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Optimised(F.Facts):
    """Every double-precision variant against the first version (optimized_vs_unoptimized.csv)."""
    medians: Mapping[tuple[str, str], float]
    speedup: Mapping[str, float]        # the first version's time over each variant's, 3-stream large unit
    best_f64: str                       # the fastest thesis variant
    gain: Mapping[str, float]           # first over final, per large unit
    likelihood_ms: float                # the likelihood kernel's median time, 3-stream large unit
    likelihood_share: float             # its share of the final kernel's time


def optimised_facts(files):
    rows = files.rows("optimized_vs_unoptimized")
    opt = medians(rows)
    sp = {v: opt[(FIRST, LARGE)] / opt[(v, LARGE)] for (v, u) in opt if u == LARGE}
    thesis_sp = {v: x for v, x in sp.items() if not v.startswith("modern")}
    lk = [float(r["likelihood_ms"]) for r in rows if r["work_unit"] == LARGE]
    kt = [float(r["kernel_ms"]) for r in rows if r["work_unit"] == LARGE and r["variant"] == FINAL]
    return Optimised(medians=frozen(opt), speedup=frozen(sp), best_f64=max(thesis_sp, key=thesis_sp.get),
                     gain=frozen({u: opt[(FIRST, u)] / opt[(FINAL, u)] for u in ("3s-large", "2s-large")}),
                     likelihood_ms=statistics.median(lk), likelihood_share=statistics.median(lk) / statistics.median(kt))


# --- the statistics of the repeats ------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Repeats(F.Facts):
    """The repeats of every timed configuration of the GPU experiments (TIMED)."""
    counts: tuple[int, ...]             # repeats per configuration
    spreads: tuple[float, ...]          # (max - min) / median, sorted
    mean_median: float                  # the largest |mean - median| / median


def repeats_facts(files):
    spreads, diffs, counts = [], [], []
    for name in TIMED:
        for vals in groups(files.rows(name), "kernel_ms", ("variant", "work_unit", "threads_per_block", "blocks_per_launch",
                                                           "register_cap", "star_layout")).values():
            med = statistics.median(vals)
            counts.append(len(vals))
            spreads.append((max(vals) - min(vals)) / med)
            diffs.append(abs(statistics.mean(vals) - med) / med)
    return Repeats(counts=tuple(counts), spreads=tuple(sorted(spreads)), mean_median=max(diffs))


# --- the effects the claims figure draws ------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Effect(F.Facts):
    """A testable effect of the thesis: a ratio of two times or rates, published and reproduced."""
    label: str
    published: float
    reproduced: float


def effects_facts(published, tables, launch, precision, cpu):
    """The effects in the order the claims table takes them (its figure numbers them so)."""
    c, pt, rp = published["claims"], tables.published, tables.reproduced
    p44, r44 = tables.gains["4.4"]
    p43, r43 = tables.gains["4.3"]
    out = [Effect("constant / shared", 1 + (pt["4.2"]["constant"][LARGE] / pt["4.2"]["shared"][LARGE] - 1),
                  1 + (rp["4.2"]["constant"][LARGE] / rp["4.2"]["shared"][LARGE] - 1))]
    for u, k in [("3s-large", "3s"), ("2s-large", "2s")]:
        out.append(Effect(f"constant / global {k}", 1 + (pt["4.2"]["constant"][u] / pt["4.2"]["global"][u] - 1),
                          1 + (rp["4.2"]["constant"][u] / rp["4.2"]["global"][u] - 1)))
        out.append(Effect(f"texture / global {k}", 1 + c[f"texture_slower_than_global_{k}_pct"]["value"] / 100,
                          1 + (rp["4.2"]["texture"][u] / rp["4.2"]["global"][u] - 1)))
    out.append(Effect("div/sqrt, shared 3-S large", 1 + p44[("shared", LARGE)], 1 + r44[("shared", LARGE)]))
    out.append(Effect("unrolling, constant 3-S large", 1 + p43[("constant", LARGE)], 1 + r43[("constant", LARGE)]))
    glob = variants.variant(memory="global")
    if not cap_is_noop(launch.listing, glob):
        pg = c["global_variant_cap_saving"]["value"] * 1e3 / pt["4.2"]["global"][LARGE]
        g0, g1 = launch.cap[glob]
        out.append(Effect("register cap, global", 1 / (1 - pg), g0 / g1))
    (ratio3, rr3, _, _), (ratio2, rr2, _, _) = precision.units["3s-large"], precision.units["2s-large"]
    out += [Effect("double / single 3-S", ratio3, rr3), Effect("double / single 2-S", ratio2, rr2)]
    s = cpu.units[LARGE]
    out.append(Effect("first / final version",
                      c["cuda_original_time_3s_large"]["value"] / c["cuda_optimised_time_3s_large"]["value"],
                      s["first"] / s["final"]))
    return tuple(out)


def cap_is_noop(listing, variant):
    """True when the register cap leaves the variant's register count and theoretical occupancy unchanged in
    the compiler's listing: the cap then cannot have the effect the thesis describes (more resident blocks)."""
    a, b = listing[(variant, False)], listing[(variant, True)]
    return a["regs"] == b["regs"] and a["occupancy"] == b["occupancy"]


# --- the records of re-runs ------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Records(F.Facts):
    """The recorded comparisons of results folders and the kit's recorded runs (experiments/records/)."""
    compares: tuple[tuple[str, Mapping[str, Any]], ...]     # (record folder name, compare.json)
    kits: tuple[tuple[pathlib.Path, Mapping[str, Any]], ...]    # (reproduce_check.json's path, its content)


def records_facts():
    return Records(compares=tuple((p.parent.name, json.loads(p.read_text())) for p in sorted(RECORDS.glob("*/compare.json"))),
                   kits=tuple((p, json.loads(p.read_text()))
                              for p in sorted(RECORDS.glob("reproduce-check-*/reproduce_check.json"))))


# --- the study's facts ------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Facts(F.Facts):
    published: Mapping[str, Any]        # paper/mwsep/published.json
    files: ResultFiles
    units: tuple[str, ...]              # the work units, in the column order of thesis Table 4.2
    memory: tuple[str, ...]             # the memory spaces, in the row order of thesis Table 4.2
    memory_figure_order: tuple[str, ...]    # the same spaces in the order of thesis Figure 4.3
    final: str                          # the thesis's final variant (variants.FINAL)
    first: str                          # its first CUDA version (variants.FIRST)
    modern: str                         # the modern kernel in double precision (variants.MODERN_F64)
    gpu: Gpu | Unavailable              # this GPU
    gpus: tuple[Gpu, ...] | Unavailable     # this GPU first, then those compared with it
    twin: tuple[Gpu, Gpu] | Unavailable     # this GPU and a compared one of the same chip on another card
    reports: Mapping[tuple[str, str], tuple[pathlib.Path, ...]]   # (fit, work unit) -> its JSON reports, sorted
    grids: Mapping[str, Mapping[str, int]] | Unavailable    # per work unit: r, mu, nu, convolve, streams, wedge, cuts
    points: Mapping[str, int] | Unavailable     # quadrature points per model component, per work unit
    memory_ms: Mapping[tuple[str, str], float] | Unavailable    # memory_spaces.csv: ms medians by (variant, unit)
    tables: Tables | Unavailable
    launch: Launch | Unavailable
    fp64_pipe: Mapping[str, float] | Unavailable    # ncu_fp64.csv: the FP64 pipe's busy share (%) per variant
    precision: Precision | Unavailable
    scaling: Scaling | Unavailable
    cpu: CpuSpeed | Unavailable
    optimised: Optimised | Unavailable
    exp_table_vs_library: float | Unavailable   # modern-f64's table exponential's rate over the library's
    repeats: Repeats | Unavailable
    effects: tuple[Effect, ...] | Unavailable
    multi_folder: pathlib.Path | None | Unavailable     # the study's folder of the multi-GPU results, if any
    scaling_folders: tuple | Unavailable                # every multi-GPU host's folder, fewest GPUs first (fit_scaling)
    records: Records


def stripe_fit_tag(row):
    """The tag of a fit_stripe row's files (<name>_report_<tag>.json, <name>_separation_<tag>.csv), as
    experiments/studies/mwsep_stripes.py names them: unit, start and algorithm, and a labelled run's label (its
    algorithm column reads "<algorithm> (<label>)")."""
    algorithm, _, label = row["algorithm"].partition(" (")
    return f"{row['work_unit']}_{row['start']}_{algorithm}" + (f"_{label.rstrip(')')}" if label else "")


def grids_facts(units):
    return frozen({u: grid(u) for u in units})


def points_facts(grids):
    return frozen({u: g["r"] * g["mu"] * g["nu"] * g["convolve"] for u, g in available(grids).items()})


def dependent(build, *parts):
    """build(*parts) when every part is available, else the first one's Unavailable."""
    for p in parts:
        if isinstance(p, Unavailable):
            return p
    return part(build, *parts)


def build(folder, published, compare=()):
    """The study's facts from the GPU folder @p folder (a ResultFolder), its published numbers and the study's
    folders of the GPUs compared with it (<gpu folder>/mwsep each)."""

    def meta_path(path):
        """A text listing without a provenance file of its own takes that of memory_spaces."""
        meta = meta_path_of(path)
        if path.suffix == ".txt" and not meta.exists():
            meta = path.with_name("memory_spaces.meta.json")
        return meta

    results = folder.path / STUDY
    files = ResultFiles(results, meta_path)
    for name in FILES:
        part(files.load, name)
    for name in UNCHECKED:
        part(files.load, name, check_valid=False)
    for name in METAS:
        part(files.load_meta, name)
    part(files.load_file, files.path("variants_3streams", suffix=".txt"), parse=lambda text: read_listing(
        text, files.path("variants_3streams", suffix=".txt")))
    # The GPUs compared with this one: their provenance, memory spaces and modern kernel; the FP64 roof of the
    # munch study here; and the copy kernels of the ryoo study on this GPU and on its twin, a compared GPU of the
    # same chip on another card (the two-card comparison).
    for other in compare:
        part(files.load_meta, "memory_spaces", other)
        part(files.load, "memory_spaces", other)
        part(files.load, "modern", other)
    if (results.parent / "munch" / "roofline.csv").exists():
        part(files.load, "roofline", results.parent / "munch")
    gpus = part(gpus_facts, files, compare)
    twin = part(twin_facts, gpus)
    if isinstance(twin, tuple):
        for gpu in twin:
            if (gpu.folder.parent / "ryoo" / "saxpy.csv").exists():
                part(files.load, "saxpy", gpu.folder.parent / "ryoo")
    # The exact recovery fits of another GPU, where this one has none (the compressed chapter's comparison).
    if not files.path("fit_recovery").exists():
        for other in compare:
            if (other / "fit_recovery.csv").exists():
                part(files.load, "fit_recovery", other)
                break
    # The fits' reports: the recovery fits' (first of each unit, every search and precision), the compressed fits'
    # (every one), and the lean variant's fit (read, but not listed among the chapters' files).
    reports = {}
    for name in ("fit_recovery", "fit_recovery_f32", "fit_recovery_compressed", "fit_recovery_batched"):
        for r in rows_or_empty(files, name):
            found = [p for p in sorted(results.glob(f"{name}_report_{r['work_unit']}_*.json"))
                     if not p.name.endswith(".meta.json")]
            reports[(name, r["work_unit"])] = tuple(found)
    for (name, _), found in reports.items():
        for path in found if name == "fit_recovery_compressed" else found[:1]:
            part(files.load_file, path)
    # The real-stripe fits: the report of each row, keyed (name, tag); the separation's summary keyed
    # (name + "_separation", tag), its per-star rows loaded for the figure.
    for name in STRIPE_FITS:
        for r in rows_or_empty(files, name):
            tag = stripe_fit_tag(r)
            report = results / f"{name}_report_{tag}.json"
            reports[(name, tag)] = (report,) if report.exists() else ()
            part(files.load_file, report)
            summary = results / f"{name}_separation_summary_{tag}.json"
            if summary.exists():
                reports[(f"{name}_separation", tag)] = (summary,)
                part(files.load_file, summary)
                part(files.load, f"{name}_separation_{tag}", for_chapters=False)
    reports[("fit_cost", "")] = tuple(sorted(results.glob("fit_cost_report_*.json")))
    for path in reports[("fit_cost", "")][:1]:
        part(files.load_file, path, for_chapters=False)
    # The multi-GPU results: this folder when its host had several GPUs, else a folder of such a host.
    multi = part(multi_gpu_folder, folder.path, STUDY)
    if isinstance(multi, pathlib.Path):
        if multi.resolve() != results.resolve():
            part(files.load, "fit_scaling", multi)
            part(files.load, "fit_scaling_progress", multi)
        if (multi / "multi_gpu.csv").exists():
            part(files.load, "multi_gpu", multi)
            part(files.load, "end_to_end_multi", multi, check_valid=False)
    # The fit's throughput on every multi-GPU host (two GPUs, four GPUs, ...), exact and compressed.
    scaling_folders = part(lambda: tuple(multi_gpu_folders(folder.path, STUDY)))
    for d in scaling_folders if isinstance(scaling_folders, tuple) else ():
        # The batched CMA-ES against pagmo's on one and two GPUs (read from every multi-GPU folder, this one too).
        for name in BATCHED_SCALING:
            if (d / f"{name}.csv").exists():
                part(files.load, name, d)
                for path in sorted(d.glob(f"{name}_report_*.json")):
                    part(files.load_file, path)
        if d.resolve() == results.resolve():
            continue
        for name in ("fit_scaling", "fit_scaling_progress", "fit_scaling_compressed", "fit_scaling_compressed_progress"):
            if (d / f"{name}.csv").exists():
                part(files.load, name, d)
    files.close()

    tables_published = published["tables"]["4.2"]["rows"]
    memory = tuple(tables_published)
    units = tuple(tables_published[memory[0]])
    figure_order = tuple(published["figures"]["4.3"]["memory_order"])
    if sorted(figure_order) != sorted(memory):
        raise ValueError("paper/mwsep/published.json: figures.4.3.memory_order names other memory spaces than "
                         "Table 4.2's rows")
    grids = part(grids_facts, units)
    tables = part(tables_facts, files, published, memory, units)
    launch = part(launch_facts, files, published)
    precision = part(precision_facts, files, published)
    cpu = part(cpu_facts, files, units)
    return Facts(
        published=frozen(published), files=files, units=units, memory=memory, memory_figure_order=figure_order,
        final=FINAL, first=FIRST, modern=MODERN_F64, gpu=part(gpu_facts, files, results), gpus=gpus, twin=twin, reports=frozen(reports),
        grids=grids, points=part(points_facts, grids), memory_ms=part(lambda: frozen(medians(files.rows("memory_spaces")))),
        tables=tables, launch=launch,
        fp64_pipe=part(lambda: frozen({r["variant"]: float(r["fp64_pipe_pct"])
                                       for r in files.rows("ncu_fp64", check_valid=False)})),
        precision=precision, scaling=part(scaling_facts, files), cpu=cpu, optimised=part(optimised_facts, files),
        exp_table_vs_library=part(lambda: (lambda e: e["exp_from_steps"] / e["cuda_exp"])(
            {r["function"]: float(r["exps_per_second"]) for r in files.rows("exp_throughput", check_valid=False)})),
        repeats=part(repeats_facts, files),
        effects=dependent(lambda *p: effects_facts(published, *p), tables, launch, precision, cpu),
        multi_folder=multi, scaling_folders=scaling_folders, records=records_facts())
