"""Work units, data and deviations: the grids, the evidence on the thesis's unit sizes, throughput per
quadrature point against each GPU's FP64 peak, the statistics of the repeats."""
import statistics

from paper.report.common import big, fmt, medians, table
from paper.report.facts import available

from ..facts import TIMED, unit_label


def discarded_sentence(recorded):
    """What happened to samples taken while the GPU throttled: dropped and retaken (counted once per measurement,
    on its first row), or kept, flagged, in results recorded before the engine could drop them."""
    firsts = [r for r in recorded if "discarded_throttled" in r and r.get("repeat") == "0"]
    if not firsts:
        return ("A throttled sample was kept, flagged: these results were recorded before the benches could drop "
                "and retake it.")
    dropped = sum(int(r["discarded_throttled"]) for r in firsts)
    return (f"Samples taken while the GPU throttled were dropped and taken again: {dropped} in "
            f"{len(firsts)} measurements.")


def build(ctx, facts):
    n, pub = ctx.n, facts.published
    grids, points = available(facts.grids), available(facts.points)
    body = [[unit_label(u), g["wedge"], g["streams"], f"{g['r']} x {g['mu']} x {g['nu']}", g["convolve"],
             big(points[u], 3)] for u, g in grids.items()]
    ctx.tables["table_work_units"] = table(
        "Table R@: the work units. Quadrature points are counted per model component (the background and "
        "each stream are evaluated at every one).",
        ["work unit", "SDSS stripe", "streams", "grid r x mu x nu", "convolution points", "quadrature points"], body)
    large = grids["3s-large"]
    n["large_r"], n["large_mu"], n["large_nu"] = str(large["r"]), str(large["mu"]), str(large["nu"])
    n["convolve"] = str(large["convolve"])
    n["large_points"] = big(points["3s-large"], 3)
    n["small_points_fraction"] = fmt(points["3s-large"] / points["3s-small"], 2)

    # The published times of the large and small units: the ratio says how much smaller "small" was.
    t42 = pub["tables"]["4.2"]["rows"]
    ratios = [t42[m]["3s-large"] / t42[m]["3s-small"] for m in t42] + [t42[m]["2s-large"] / t42[m]["2s-small"] for m in t42]
    n["pub_large_small_min"], n["pub_large_small_max"] = fmt(min(ratios), 3), fmt(max(ratios), 3)
    mem = available(facts.memory_ms)
    # Every memory space with the final variant's other axes, as Table 4.2.
    best = available(facts.tables).reproduced["4.2"]
    ours = [best[m]["3s-large"] / best[m]["3s-small"] for m in t42] + \
           [best[m]["2s-large"] / best[m]["2s-small"] for m in t42]
    n["rep_large_small_min"], n["rep_large_small_max"] = fmt(min(ours), 3), fmt(max(ours), 3)
    it = pub["claims"]["integral_kernel_time"]
    n["pub_integral_min_s"], n["pub_integral_max_s"] = str(it["min"]), str(it["max"])
    all_pub = [v for m in t42.values() for v in m.values()]
    n["pub_table42_min_s"], n["pub_table42_max_s"] = fmt(min(all_pub) / 1e3, 3), fmt(max(all_pub) / 1e3, 3)
    n["pub_memory_mb"] = str(pub["claims"]["largest_unit_memory"]["value"])
    n["memory_sign_sentence"] = memory_sign(ctx, facts)

    # Throughput per quadrature point against each GPU's FP64 peak, for the thesis's final kernel (shared
    # memory, 3-stream large): the GTX 285's as if its unit had our grid, each GPU's measured.
    final = (facts.final, "3s-large")
    g285 = pub["hardware"]["gtx285"]["gflops_double"]
    pub_s = t42["shared"]["3s-large"] / 1e3
    pub_pps = points["3s-large"] / pub_s
    rows_ = [["GTX 285 (2010), if its unit had this grid", fmt(pub_s, 4), big(pub_pps, 3), fmt(g285, 3),
              fmt(pub_pps / (g285 * 1e9) * 1e3, 3)]]
    eff = {}
    gpus = available(facts.gpus)
    for g in gpus:
        m = medians(facts.files.rows("memory_spaces", g.folder))
        s = m[final] / 1e3
        pps = points["3s-large"] / s
        eff[g.name] = pps / (g.fp64_gflops * 1e9)
        rows_.append([g.short + " (measured)", fmt(s, 4), big(pps, 3), fmt(g.fp64_gflops, 4), fmt(eff[g.name] * 1e3, 3)])
    ctx.tables["table_per_point"] = table(
        "Table R@: the thesis's final kernel (shared memory, every optimisation) on the 3-stream large unit, "
        "per quadrature point and per unit of FP64 peak. The GTX 285 row assumes the thesis's unit had the grid "
        "used here, which the thesis does not state.",
        ["GPU", "time (s)", "points per second", "FP64 peak (GFLOP/s, computed)", "points per MFLOP of peak"], rows_)
    main = gpus[0]
    e_main, e_old = eff[main.name], pub_pps / (g285 * 1e9)
    n["pub_pps"], n["rep_pps"] = big(pub_pps, 3), big(points["3s-large"] / (mem[final] / 1e3), 3)
    n["time_ratio_final"] = fmt(pub_s / (mem[final] / 1e3), 3)
    n["efficiency_ratio"] = fmt(e_main / e_old, 2)
    prof = available(facts.fp64_pipe)
    n["fp64_pipe_final"] = f"{prof[facts.final]:.0f}"
    n["gt200_implied_pipe"] = f"{prof[facts.final] / (e_main / e_old):.0f}"

    # Statistics of the repeats: medians (the thesis gave means of five), spreads.
    repeats = available(facts.repeats)
    spreads, counts = repeats.spreads, repeats.counts
    # Newer recordings carry each configuration's noise, SM clock and throttle state.
    recorded = [r for name in TIMED for r in facts.files.rows(name) if "throttled" in r]
    if recorded:
        thr = sum(r["throttled"] == "true" for r in recorded)
        clocks = sorted(float(r["sm_clock_mhz"]) for r in recorded if r.get("sm_clock_mhz"))
        noise = sorted(float(r["noise_pct"]) for r in recorded if r.get("noise_pct"))
        ctx.tables["para_clock"] = (
            f"Each timed configuration also records the relative spread of its samples (median {statistics.median(noise):.2f}%, "
            f"at most {max(noise):.1f}%), the median SM clock while it ran ("
            + (f"{clocks[0]:.0f} MHz in every row" if clocks[0] == clocks[-1] else f"{clocks[0]:.0f} to {clocks[-1]:.0f} MHz") + ") "
            f"and whether the GPU throttled: {thr} of {len(recorded)} rows did. " + discarded_sentence(recorded) + "\n")
    else:
        ctx.tables["para_clock"] = ("The SM clock and the GPU's throttle state during these runs were not recorded; "
                                    "the spreads above are the only check on their stability.\n")
    n["repeats_min"], n["repeats_max"] = str(min(counts)), str(max(counts))
    n["gpu_configs"] = str(len(spreads))
    n["gpu_spread_median_pct"] = f"{100 * statistics.median(spreads):.2f}"
    n["gpu_spread_max_pct"] = f"{100 * max(spreads):.1f}"
    n["gpu_mean_median_max_pct"] = f"{100 * repeats.mean_median:.2f}"
    n["thesis_repeats"] = str(pub["claims"]["runs_per_measurement"]["value"])

    gpu = gpus[0]
    dev = [
        ("one kernel launch per r step, covering every cell, without host synchronisation",
         "the chunks of the 2010 code kept a volunteer's desktop responsive, not the kernel fast",
         f"the 2010 geometry, also measured, takes {available(facts.launch).chunked_slowdown:.1f} times as long; every "
         "other table uses one launch per r step"),
        ("r-point and weight tables read through the read-only data cache, not as textures",
         "texture references no longer exist in CUDA; the read-only path is their successor", "small: the tables are a minor share of the loads"),
        ("per-cell sums added on the host in cell order", "a fixed order makes results independent of the launch configuration",
         "none on the kernels' time (the host sum is not timed)"),
        ("synthetic star catalogues", "no SDSS catalogue is part of the artifact", "likelihoods differ from the published ones; times do not"),
        ("grids of the 2009 sample units, small as one eighth of large", "the thesis does not give its grids",
         "absolute times do not compare; effects do"),
        (f"CUDA {gpu.cuda} and the {gpu.short}, not CUDA 2.3 and the GTX 285",
         "the old toolkit does not run on current GPUs", "register counts, instruction choice and occupancy differ"),
        ("the median of the repeats, not the mean", "robust to a rare slow run",
         f"at most {n['gpu_mean_median_max_pct']}% on any configuration"),
        ("a barrier added in the shared-memory kernels", "the 2010 kernel read shared memory without one, a race", "negligible"),
        ("the single-core CPU time summed over concurrent slices", "a single-thread run of the reference takes many minutes per unit",
         "an upper bound on the time of one core alone"),
    ]
    ctx.tables["table_deviations"] = table(
        "Table R@: every deviation from the CUDA program of 2010, why, and its expected effect.",
        ["deviation", "why", "expected effect"], [list(d) for d in dev], widths=[30, 35, 35])


def memory_sign(ctx, facts):
    """The thesis's memory figure against the largest footprint recorded here (experiment device_memory, the
    thesis's final kernel), as one sentence; says so when the experiment was not recorded."""
    figure = facts.published["claims"]["largest_unit_memory"]["value"]
    memory = facts.files.optional("device_memory")
    mine = [r for r in memory or [] if r["variant"] == facts.final]
    if not mine:
        ctx.fallback("memory_sign_sentence", "device_memory has no row of the final variant",
                     [facts.files.path("device_memory")] if memory is None else [])
        return ("The memory the program uses is not recorded on this GPU (experiment device_memory), so this sign "
                "is not quantified.")
    big_ = max(mine, key=lambda r: float(r["total_bytes"]))
    mb = float(big_["total_bytes"]) / 1e6
    return (f"Here the largest unit ({big_['work_unit']}) takes {fmt(mb, 3)} MB of GPU memory with the thesis's final "
            f"kernel (experiment device_memory), {fmt(mb / figure, 2)} of that figure: the integral's buffers, which "
            f"grow with the grid, take {fmt(float(big_['integral_bytes']) / 1e6, 3)} MB and the {big_['stars']} stars "
            f"{fmt(float(big_['star_bytes']) / 1e6, 3)} MB. "
            + ("A smaller footprint here points the same way as the signs above" if mb < figure else
               "A footprint as large or larger here does not point towards a larger grid in the thesis")
            + ", but how many stars the thesis's units held is not known, so it does not fix the grid.")
