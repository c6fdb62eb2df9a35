"""The CUDA application: thesis Tables 4.2-4.4 and section 4.4.4 (launch, registers, star layout), the
profiler's view, and the memory spaces on every GPU side by side."""
import csv
import statistics

from paper.report.common import MissingData, big, fmt, groups, medians, pct, table
from .variants import FINAL, medians_by_axes

UNITS = ["3s-large", "2s-large", "3s-small", "2s-small"]
UNIT_LABEL = {"3s-large": "3-S large", "2s-large": "2-S large", "3s-small": "3-S small", "2s-small": "2-S small"}
MEMORY = ["constant", "global", "shared", "texture"]  # the thesis's row order


def read_variants_listing(path):
    """Registers and occupancy per (variant, capped) from the program's variant listing."""
    out = {}
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) >= 10 and f[1].startswith("sm_"):
            out[(f[0], f[2] != "no")] = {"regs": int(f[3]), "spill": int(f[4]), "shared": int(f[6]),
                                          "occupancy": float(f[9].rstrip("%"))}
    if not out:
        raise MissingData(f"{path}: no variant rows")
    return out


def as_read(published, t):
    """{memory: {unit: ms}} of thesis Table t, the swapped columns of Tables 4.3/4.4 read as the text implies."""
    pub = published["tables"][t]
    printed = pub.get("printed_columns", UNITS)
    order = pub.get("columns_as_read", printed)
    return {m: {u: pub["rows"][m][printed[i]] for i, u in enumerate(order)} for m in MEMORY}


def tpb_rows(tpb, best, before, after):
    """Rows of the threads-per-block table; the thesis's before and after shapes (section 4.4.4: one thread
    per nu step, then 64) are marked, and the before shape says so when this recording lacks it."""
    rows = []
    for t in sorted(set(tpb) | {before}):
        mark = {before: "before (one thread per nu step)", after: "after"}.get(t, "")
        if t in tpb:
            rows.append([t, fmt(tpb[t], 4), f"{tpb[t] / tpb[best]:.3f}", mark])
        else:
            rows.append([t, "not recorded on this GPU", "not recorded on this GPU", mark])
    return rows


def build(ctx):
    n, pub, gpu = ctx.n, ctx.published, ctx.facts["gpu"]
    short = gpu["short"]
    mem = ctx.facts["memory_medians"]
    # Each table varies the memory space with the other axes fixed: every optimisation on (4.2), the loop
    # not unrolled (4.3), IEEE division and square root (4.4); its rows are read by their axis columns.
    fixed = {"4.2": ("memory_spaces", ("fast", "unrolled", "f64")), "4.3": ("loop_unrolling", ("fast", "loop", "f64")),
             "4.4": ("division_sqrt", ("ieee", "unrolled", "f64"))}
    reproduced = {}
    for t, (experiment, axes) in fixed.items():
        by_axes = medians_by_axes(ctx.rows(experiment))
        reproduced[t] = {m: {u: by_axes[(m,) + axes + (u,)] for u in UNITS} for m in MEMORY}
    ctx.facts["reproduced"] = reproduced
    published = {t: as_read(pub, t) for t in reproduced}
    ctx.facts["published_tables"] = published
    caption = {
        "4.2": "Table 4.2 (thesis): time by memory space of the stream constants, every optimisation on",
        "4.3": "Table 4.3 (thesis), read as the version without loop unrolling",
        "4.4": "Table 4.4 (thesis), read as the version without the fast division and square root",
    }
    source = {"4.2": "memory_spaces", "4.3": "loop_unrolling", "4.4": "division_sqrt"}
    for t in reproduced:
        reps = [len(v) for v in groups(ctx.rows(source[t])).values()]
        reps = str(min(reps)) if min(reps) == max(reps) else f"{min(reps)} to {max(reps)}"
        body = []
        for m in MEMORY:
            body.append([m] + [fmt(published[t][m][u] / 1e3, 4) for u in UNITS] + [fmt(reproduced[t][m][u], 4) for u in UNITS])
        header = ["memory"] + [f"{UNIT_LABEL[u]}, GTX 285 (s)" for u in UNITS] + [f"{UNIT_LABEL[u]}, {short} (ms)" for u in UNITS]
        ctx.tables[f"table_{t.replace('.', '_')}"] = table(
            f"{caption[t]}. Published: GTX 285, mean of {n['thesis_repeats']} runs, in seconds. Reproduced: "
            f"{short}, median of {reps} runs, in milliseconds; the two grids need not be the same "
            "size, so only ratios within one chip compare.", header, body, widths=[12] + [11] * 8)

    # The gain of each optimisation: the time without it over the time with it, published and reproduced.
    gains = {}
    body = []
    for t, label in [("4.3", "loop unrolling"), ("4.4", "fast division and square root")]:
        p = {(m, u): published[t][m][u] / published["4.2"][m][u] - 1 for m in MEMORY for u in UNITS}
        r = {(m, u): reproduced[t][m][u] / reproduced["4.2"][m][u] - 1 for m in MEMORY for u in UNITS}
        gains[t] = (p, r)
        for m in MEMORY:
            body.append([label, m] + [f"{pct(100 * p[(m, u)])} / {pct(100 * r[(m, u)])}" for u in UNITS])
        k = t.replace(".", "_")
        n[f"gain_{k}_published_min"], n[f"gain_{k}_published_max"] = f"{100 * min(p.values()):.1f}", f"{100 * max(p.values()):.1f}"
        n[f"gain_{k}_reproduced_min"], n[f"gain_{k}_reproduced_max"] = f"{100 * min(r.values()):.1f}", f"{100 * max(r.values()):.1f}"
        n[f"gain_{k}_reproduced_min_signed"] = pct(100 * min(r.values()))
        lo, hi = min(r.values()), max(r.values())
        n[f"gain_{k}_reproduced_reading"] = ("a loss in every case" if hi < 0 else "a gain in every case" if lo > 0
                                             else "from a loss to a gain, depending on the memory space and unit")
    ctx.facts["gains"] = gains
    ctx.tables["table_gains"] = table(
        f"Table R@: the gain of each optimisation, time without it over time with it, minus one; "
        f"GTX 285 (published) / {short} (reproduced). Positive: the optimisation helps.",
        ["optimisation", "memory"] + [UNIT_LABEL[u] for u in UNITS], body)
    # Order of the memory spaces by their unrolling gain, 3-stream large.
    p43, r43 = gains["4.3"]
    n["unroll_order_pub"] = ", ".join(sorted(MEMORY, key=lambda m: -p43[(m, "3s-large")]))
    n["unroll_order_rep"] = ", ".join(sorted(MEMORY, key=lambda m: -r43[(m, "3s-large")]))
    p44, r44 = gains["4.4"]
    n["div_order_pub"] = ", ".join(sorted(MEMORY, key=lambda m: -p44[(m, "3s-large")]))
    n["div_order_rep"] = ", ".join(sorted(MEMORY, key=lambda m: -r44[(m, "3s-large")]))
    n["div_saving_3s_large_s"] = fmt((published["4.4"]["shared"]["3s-large"] - published["4.2"]["shared"]["3s-large"]) / 1e3, 3)
    n["div_saving_3s_large_rep_ms"] = fmt(reproduced["4.4"]["shared"]["3s-large"] - reproduced["4.2"]["shared"]["3s-large"], 3)

    # Memory-space ranking on the 3-stream large unit.
    t42 = reproduced["4.2"]
    order = sorted(MEMORY, key=lambda m: t42[m]["3s-large"])
    n["memory_ranking"], n["memory_fastest"] = ", ".join(order), order[0]
    n["memory_ranking_pub"] = ", ".join(sorted(MEMORY, key=lambda m: published["4.2"][m]["3s-large"]))
    def rel(a, b, u="3s-large"):
        return 100 * (t42[a][u] / t42[b][u] - 1)
    for a, b in [("shared", "constant"), ("constant", "global"), ("texture", "global"), ("shared", "global")]:
        for u in ["3s-large", "2s-large"]:
            x = rel(a, b, u)
            n[f"{a}_vs_{b}_pct_{u.replace('-', '_')}"] = pct(x)
            n[f"{a}_vs_{b}_words_{u.replace('-', '_')}"] = f"{abs(x):.1f}% {'more' if x > 0 else 'less'} time than {b} memory"
    n["constant_faster_than_global_pct"] = f"{-rel('constant', 'global'):.1f}"

    # Memory spaces on every GPU side by side (the main GPU first).
    gpus = ctx.facts["gpus"]
    body = []
    per_gpu = []
    for g in gpus:
        m = mem if g is gpu else medians(ctx.rows("memory_spaces", g["folder"]))
        per_gpu.append({x: m[(f"{x}-fast-unrolled-f64", "3s-large")] for x in MEMORY})
    for x in MEMORY:
        body.append([x, fmt(published["4.2"][x]["3s-large"] / published["4.2"]["global"]["3s-large"], 4)] +
                    [f"{fmt(t[x], 4)} ms ({t[x] / t['global']:.3f})" for t in per_gpu])
    ctx.tables["table_memory_gpus"] = table(
        "Table R@: the memory spaces on every GPU measured, 3-stream large unit, every other optimisation on: "
        "time, and in brackets the time relative to global memory (the GTX 285 column gives that ratio only).",
        ["memory", "GTX 285 (2010), relative"] + [g["short"] for g in gpus], body)

    # Threads per block, register cap, star layout.
    launch = ctx.rows("launch_config")
    lm = medians(launch, key=("variant", "threads_per_block", "blocks_per_launch", "register_cap", "star_layout"))
    tpb = {int(k[1]): v for k, v in lm.items() if k[0] == FINAL and k[2] == "0" and k[3] == "none" and k[4] == "soa"}
    best = min(tpb, key=tpb.get)
    n["tpb_best"], n["tpb_64_vs_best_pct"] = str(best), f"{100 * (tpb[64] / tpb[best] - 1):.1f}"
    n["default_tpb"] = str(statistics.mode(int(r["threads_per_block"]) for r in launch))
    shapes = pub["claims"]["threads_per_block_before"]
    before, after = shapes["value"], shapes["after"]
    n["tpb_before"] = str(before)
    ctx.facts["tpb_before_change"] = None
    if before in tpb and after in tpb:
        change = tpb[after] / tpb[before] - 1
        ctx.facts["tpb_before_change"] = change
        n["tpb_before_after"] = (f"{fmt(tpb[before], 4)} ms before and {fmt(tpb[after], 4)} ms after, "
                                 f"a change of {pct(100 * change)} ("
                                 + ("the step still pays" if change < -0.01 else
                                    "the step costs time here" if change > 0.01 else "no difference beyond 1%") + ")")
    else:
        n["tpb_before_after"] = "not recorded on this GPU"
    n["register_cap"] = str(max(int(r["register_cap"]) for r in launch if r["register_cap"] != "none"))
    n["chunk_blocks"] = str(max(int(r["blocks_per_launch"]) for r in launch))
    ctx.tables["table_tpb"] = table(
        f"Table R@: threads per block, thesis's final kernel, 3-stream large unit, {short}, median of the repeats. "
        f"The thesis launched one thread per nu step ({before} in its units) before it settled on "
        f"{after} (section 4.4.4).",
        ["threads per block", "time (ms)", "relative to the fastest", "the thesis's"], tpb_rows(tpb, best, before, after))
    chunk = lm[(FINAL, "64", "128", "none", "soa")]
    n["chunked_slowdown"] = f"{chunk / tpb[64]:.1f}"
    ctx.facts["aos_vs_soa"] = lm[(FINAL, "64", "0", "none", "aos")] / tpb[64] - 1
    n["aos_vs_soa_pct"] = pct(100 * ctx.facts["aos_vs_soa"], 2)
    n["aos_vs_soa_ms"] = fmt(abs(lm[(FINAL, "64", "0", "none", "aos")] - tpb[64]), 2)
    ctx.facts["tpb"], ctx.facts["tpb_best"] = tpb, best
    listing = read_variants_listing(ctx.results / "variants_3streams.txt")
    ctx.read.add(ctx.results / "variants_3streams.txt")
    ctx.facts["listing"] = listing
    cap_body, cap = [], {}
    for v in ["global-ieee-loop-f64", "global-fast-unrolled-f64", "constant-fast-unrolled-f64", "texture-fast-unrolled-f64",
              "shared-ieee-loop-f64", FINAL]:
        a, b = listing[(v, False)], listing[(v, True)]
        t0, t1 = lm[(v, "64", "0", "none", "soa")], lm[(v, "64", "0", "48", "soa")]
        cap[v] = (t0, t1, a, b)
        cap_body.append([v, f"{a['regs']} / {b['regs']}", f"{a['occupancy']:.1f}% / {b['occupancy']:.1f}%", fmt(t0, 4), fmt(t1, 4),
                         pct(100 * (t1 / t0 - 1))])
    ctx.facts["cap"] = cap
    ctx.tables["table_register_cap"] = table(
        f"Table R@: the {n['register_cap']}-register cap, 3-stream large unit, {short}: registers per thread "
        "and theoretical occupancy without / with the cap, time without and with it, and the change.",
        ["variant", "registers", "occupancy", "time (ms)", "time, capped (ms)", "change"], cap_body)
    f = listing[(FINAL, False)]
    n["final_regs"], n["final_occupancy"] = str(f["regs"]), f"{f['occupancy']:.1f}"
    n["final_regs_capped"], n["final_occupancy_capped"] = str(listing[(FINAL, True)]["regs"]), f"{listing[(FINAL, True)]['occupancy']:.1f}"
    n["max_spill"] = str(max(x["spill"] for x in listing.values()))
    g = listing[("global-fast-unrolled-f64", False)]
    n["global_regs"], n["global_occupancy"] = str(g["regs"]), f"{g['occupancy']:.1f}"
    t0, t1 = cap["global-fast-unrolled-f64"][:2]
    n["global_cap_change_pct"] = pct(100 * (t1 / t0 - 1))
    n["global_cap_change_ms"] = fmt(t0 - t1, 3)
    t0, t1 = cap[FINAL][:2]
    n["final_cap_change_ms"] = fmt(abs(t0 - t1), 2)
    n["final_cap_change_pct"] = pct(100 * (t1 / t0 - 1), 3)
    tx0, tx1, ta, tb = cap["texture-fast-unrolled-f64"]
    n["texture_cap_change_pct"] = pct(100 * (tx1 / tx0 - 1))
    n["texture_regs"], n["texture_regs_capped"] = str(ta["regs"]), str(tb["regs"])

    # Profiler: FP64 pipe per variant.
    prof = {r["variant"]: r for r in ctx.rows("ncu_fp64", check_valid=False)}
    fp = {v: float(r["fp64_pipe_pct"]) for v, r in prof.items()}
    ctx.facts["fp64_pipe"] = fp
    n["fp64_pipe_min"], n["fp64_pipe_max"] = f"{min(fp.values()):.0f}", f"{max(fp.values()):.0f}"
    for x in MEMORY:
        n[f"fp64_pipe_{x}"] = f"{fp[f'{x}-fast-unrolled-f64']:.0f}"
        n[f"fp64_pipe_{x}_loop"] = f"{fp[f'{x}-fast-loop-f64']:.0f}"
        n[f"occupancy_{x}_loop"] = f"{float(prof[f'{x}-fast-loop-f64']['achieved_occupancy_pct']):.0f}"
        n[f"occupancy_{x}"] = f"{float(prof[f'{x}-fast-unrolled-f64']['achieved_occupancy_pct']):.0f}"
        n[f"fp64_pipe_{x}_ieee"] = f"{fp[f'{x}-ieee-unrolled-f64']:.0f}"
    pipe = {x: fp[f"{x}-fast-unrolled-f64"] for x in MEMORY}
    busiest = max(pipe, key=pipe.get)
    listing_ = ", ".join(f"{pipe[x]:.0f}% with {x}" for x in sorted(MEMORY, key=lambda x: -pipe[x]))
    if busiest == n["memory_fastest"]:
        n["memory_pipe_sentence"] = (
            f"The profiler agrees: the FP64 pipe is busy {listing_} memory, the fastest space keeping it the busiest. "
            f"Why {busiest} memory keeps it fed (for constant memory, the cache's broadcast of one value to a whole "
            "warp would be a candidate) is a hypothesis that these counters do not test.")
    else:
        n["memory_pipe_sentence"] = (
            f"The profiler's FP64 pipe use ({listing_} memory) does not single out the fastest space; "
            "the cause of the order was not established.")
    opt = ctx.rows("optimized_vs_unoptimized")
    pts = statistics.median(float(r["points_per_second"]) for r in opt if r["variant"] == FINAL and r["work_unit"] == "3s-large")
    n["final_points_per_s"] = big(pts, 3)
    # The deviation table needs the launch measurement: fill it here.
    ctx.tables["table_deviations"] = table(
        "Table R@: every deviation from the CUDA program of 2010, why, and its expected effect.",
        ["deviation", "why", "expected effect"],
        [[a, b, e.replace("?", n["chunked_slowdown"])] for a, b, e in ctx.facts["deviations"]], widths=[30, 35, 35])
