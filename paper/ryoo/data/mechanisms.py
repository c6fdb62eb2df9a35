"""The paper's peaks, bandwidth arithmetic, library and CPU comparisons and register claim, redone from recorded
numbers: the 8800 GTX's (and the GTX 285's) peak rates beside the measured ones (RC1); the bandwidth the naive
kernel would need, and what tiling leaves of it (RE8); footnote 5's "about 100X over a CPU binary without SIMD"
(RC12) and "91.14 GFLOPS, similar to the CUDA 0.8 libraries" (RC13); the elimination pair (RE14); and Table 3's
MRI and CP speed-ups against a tuned CPU (RC6). Every published value comes from published.json, every other
from the recorded results of this GPU's folder (this study's and, where named, the kirk_hwu and munch studies')."""
import statistics

from paper.report.common import fmt, table
from paper.report.facts import available

from ..facts import median_by

NOT_MEASURED = "not measured on this GPU"


def other(files, study, name):
    """The rows of another study's result on this GPU, or None when it is absent."""
    folder = files.results.parent / study
    return files.optional(name, folder) if (folder / f"{name}.csv").exists() else None


def peaks(ctx, facts):
    files, pub, n = facts.files, facts.published, ctx.n
    hw, g285 = pub["hardware"], pub["gtx285"]
    ladder = available(facts.ladder)
    rates = other(files, "kirk_hwu", "rates")
    roof = other(files, "munch", "roofline")
    fma = statistics.median(float(r["ops_per_second"]) for r in rates if r["operation"] == "ffma") if rates else None
    copy = max(median_by([r for r in files.rows("saxpy") if r["variant"] in ("copy-vector", "memcpy")], "gb_per_s",
                         "variant").values(), default=None)
    roof_fp32 = statistics.median(float(r["value"]) for r in roof if r["quantity"] == "fp32_fma_peak") if roof else None
    if fma is None:
        ctx.fallback("ryoo_peaks (FMA rate)", "the kirk_hwu study's rates were not recorded on this GPU",
                     [files.results.parent / "kirk_hwu" / "rates.csv"])
    measured_fp32 = 2 * fma / 1e9 if fma else roof_fp32
    body = [["FP32 multiply-add peak (GFLOP/s)", fmt(hw["peak_gflops_mad"], 4), fmt(g285["gflops_single"], 3),
             fmt(measured_fp32, 4) if measured_fp32 else NOT_MEASURED,
             fmt(measured_fp32 / hw["peak_gflops_mad"]) if measured_fp32 else "-"],
            ["FP32 peak counting the SFUs (GFLOP/s)", fmt(hw["peak_gflops_with_sfu"], 4), "-", "-", "-"],
            ["instruction issue on the SPs (G op/s)", fmt(hw["issue_gops"], 4), "-", "-", "-"],
            ["FP64 peak (GFLOP/s)", "none", fmt(g285["gflops_double"], 2), "-", "-"],
            ["DRAM bandwidth (GB/s)", fmt(hw["dram_gb_per_s"], 3), "-", fmt(copy, 4) + " (copy)" if copy else NOT_MEASURED,
             fmt(copy / hw["dram_gb_per_s"]) if copy else "-"]]
    if roof_fp32:
        n["ryoo_roof_fp32_gflops"] = fmt(roof_fp32, 4)
    ctx.tables["table_ryoo_peaks"] = table(
        f"Table R@: the 8800 GTX's peaks as the paper states them (S1 sections 1, 3.2 and 4), the GTX 285's as the "
        f"MilkyWay@Home thesis states them (its Appendix B), and the {ladder.gpu}'s as measured here (twice the FMA "
        "rate of the kirk_hwu study's rate microbenchmark; the copy bandwidth of this study's copy kernel), with the "
        "measured over the 8800 GTX's.", ["quantity", "8800 GTX (published)", "GTX 285 (published)",
                                           f"{ladder.gpu} (measured)", "measured / 8800 GTX"], body)
    return copy


def bandwidth_model(ctx, facts, copy):
    """S1 section 4.1's arithmetic with today's numbers: lanes x load fraction x 4 B x clock against the copy
    bandwidth; tiling cuts the loads 16 times."""
    files, pub, n = facts.files, facts.published, ctx.n
    model, hw = pub["bandwidth_model"], pub["hardware"]
    ladder = available(facts.ladder)
    sass = {r["variant"]: r for r in files.rows("sass_loops")}
    naive = sass.get("naive")
    n["ryoo_pub_bw_required"] = fmt(model["required_gb_per_s"], 3)
    n["ryoo_pub_bw_ratio"] = fmt(model["required_gb_per_s"] / hw["dram_gb_per_s"], 2)
    if naive is None or copy is None:
        n["ryoo_bw_required"] = n["ryoo_bw_ratio"] = n["ryoo_bw_tiled_share"] = NOT_MEASURED
        ctx.fallback("ryoo_bw_required", "sass_loops' naive loop or the copy bandwidth is missing", [files.path("sass_loops")])
        return
    fraction = float(naive["global_loads"]) / float(naive["loop_instructions"])
    lanes = ladder.sm_count * 128  # FP32 lanes per SM of compute capability 9.0 (paper/hardware.json)
    clock = ladder.clock["naive"] * 1e6
    required = lanes * fraction * model["bytes_per_load"] * clock / 1e9
    tiled = required / pub["global_load_reduction_tiled_16"]["value"]
    n["ryoo_bw_fraction"] = fmt(fraction, 2)
    n["ryoo_bw_lanes"] = str(lanes)
    n["ryoo_bw_clock_ghz"] = fmt(clock / 1e9, 3)
    n["ryoo_bw_required"] = fmt(required, 3)
    n["ryoo_bw_available"] = fmt(copy, 4)
    n["ryoo_bw_ratio"] = fmt(required / copy, 3)
    n["ryoo_bw_tiled_share"] = fmt(tiled / copy, 2)
    n["ryoo_bw_verdict"] = ("as on the 8800 GTX: the naive kernel would need more than the memory gives, tiling brings "
                            "it below" if required > copy > tiled else
                            "unlike the 8800 GTX, the naive kernel's need stays within the memory's bandwidth"
                            if required <= copy else "even after tiling the need exceeds the memory's bandwidth")


def footnote(ctx, facts):
    """RC12 and RC13 from the ladder, the munch study's ikj loop and cuBLAS."""
    files, pub, n = facts.files, facts.published, ctx.n
    ladder = available(facts.ladder)
    unrolled = ladder.gflops["unrolled-16"]
    cublas = ladder.gflops.get("cublas-fp32")
    n["ryoo_pub_fn5"] = str(pub["footnote_5"]["kernel_speedup_no_simd"])
    ikj = other(files, "munch", "matmul_cpu")
    ikj_rows = [r for r in ikj or [] if r["implementation"] == "ikj" and r["threads"] == "1" and r["timing"] == "compute"]
    if ikj_rows:
        n_max = max(int(r["n"]) for r in ikj_rows)
        cpu = statistics.median(float(r["gflops"]) for r in ikj_rows if int(r["n"]) == n_max)
        ratio = unrolled / cpu
        n["ryoo_fn5_n"], n["ryoo_fn5_cpu_gflops"], n["ryoo_fn5_ratio"] = str(n_max), fmt(cpu), fmt(ratio)
        target = pub["footnote_5"]["kernel_speedup_no_simd"]
        n["ryoo_fn5_verdict"] = ("reproduced: of the same order (within a factor three)" if target / 3 <= ratio <= target * 3
                                 else f"differs: {fmt(ratio / target)} times the published order (the GPU grew more than "
                                 "one CPU core)" if ratio > target else "differs: below the published order")
    else:
        n["ryoo_fn5_n"] = n["ryoo_fn5_cpu_gflops"] = n["ryoo_fn5_ratio"] = n["ryoo_fn5_verdict"] = NOT_MEASURED
        ctx.fallback("ryoo_fn5_verdict", "the munch study's matmul_cpu was not recorded on this GPU",
                     [files.results.parent / "munch" / "matmul_cpu.csv"])
    if cublas:
        share = unrolled / cublas
        n["ryoo_cublas_share"] = f"{100 * share:.0f}"
        n["ryoo_cuda08_verdict"] = ("reproduced: within a fifth of the library" if share >= 0.8 else
                                    f"differs: the unrolled kernel reaches {100 * share:.0f} per cent of today's library")
    else:
        n["ryoo_cublas_share"] = n["ryoo_cuda08_verdict"] = NOT_MEASURED
        ctx.fallback("ryoo_cuda08_verdict", "cublas-fp32 was not recorded in the ladder", [files.path("ladder")])


def elimination(ctx, facts):
    """RE14: registers, resident blocks and rate of V2 with and without the elimination."""
    files, n = facts.files, ctx.n
    pair = files.optional("cse_pair") if (files.results / "cse_pair.csv").exists() else None
    listing = {r["variant"]: r for r in files.rows("variants")}
    if pair is None or "unrolled-16-reload" not in listing:
        ctx.tables["table_ryoo_cse"] = (f"*{NOT_MEASURED}: the pair is ready to record (`python3 experiments/run.py "
                                        "--study ryoo --only cse_pair,variants`).*\n")
        ctx.fallback("table_ryoo_cse", "cse_pair, or the listing's row of unrolled-16-reload, was not recorded",
                     [files.path("cse_pair")])
        n["ryoo_cse_verdict"] = NOT_MEASURED
        return
    gf = median_by(pair, "gflops", "variant")
    body = []
    for v, what in (("unrolled-16", "with elimination (the compiler's usual code)"),
                    ("unrolled-16-reload", "without: coordinates and addresses formed anew per tile")):
        r = listing[v]
        body.append([v, what, r["registers"], r["blocks_per_sm"], f"{float(r['theoretical_occupancy_pct']):.0f}%", fmt(gf[v])])
    more = int(listing["unrolled-16"]["registers"]) > int(listing["unrolled-16-reload"]["registers"])
    fewer = int(listing["unrolled-16"]["blocks_per_sm"]) < int(listing["unrolled-16-reload"]["blocks_per_sm"])
    slower = gf["unrolled-16"] < gf["unrolled-16-reload"]
    n["ryoo_cse_verdict"] = ("reproduced: the elimination raises the registers, costs resident blocks and time" if more and fewer and slower
                             else "reproduced qualitatively: the elimination raises the registers and costs resident blocks, "
                                  "not time" if more and fewer else
                             "differs: the elimination raises the registers but costs no resident block" if more else
                             "differs: the elimination does not raise the registers of this kernel today")
    ctx.tables["table_ryoo_cse"] = table(
        "Table R@: V2 with and without the elimination of redundant loads and common subexpressions (S1 section 5.2): "
        "registers per thread, resident blocks per SM and theoretical occupancy (the listing, experiment variants), and "
        "GFLOP/s at n = 4096 (median, experiment cse_pair).",
        ["variant", "code", "registers", "blocks per SM", "occupancy", "GFLOP/s"], body)


def tuned_speedups(facts):
    """RC6: {application: its fastest kernel's rate over the tuned CPU loop's} for MRI-Q, MRI-FHD and CP (the
    kirk_hwu study's cpu_tuned, the same inputs on the same host), and the file it rests on (None when it was read).
    The applications' rates are in G pairs per second, the loops' in pairs per second. Writes nothing: the suite's
    chapter prints the column."""
    files = facts.files
    suite = available(facts.suite)
    tuned = other(files, "kirk_hwu", "cpu_tuned")
    if tuned is None:
        return {}, files.results.parent / "kirk_hwu" / "cpu_tuned.csv"
    rate = {}
    for r in tuned:
        rate.setdefault((r["problem"], r["loop"]), []).append(float(r["pairs_per_second"]))
    out = {}
    for app, problem, name in (("mri-q", "mri-q", "app_mri_q"), ("mri-fhd", "mri-fhd", "app_mri_fhd"), ("cp", "coulomb", "app_cp")):
        if app not in suite or (problem, "tuned") not in rate:
            continue
        best = suite[app].best
        gpu = statistics.median(float(r["rate"]) for r in files.rows(name) if r["variant"] == best and r["part"] == "kernel")
        out[app] = gpu * 1e9 / statistics.median(rate[(problem, "tuned")])
    return out, None


def build(ctx, facts):
    copy = peaks(ctx, facts)
    bandwidth_model(ctx, facts, copy)
    footnote(ctx, facts)
    elimination(ctx, facts)
