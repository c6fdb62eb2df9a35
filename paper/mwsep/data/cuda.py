"""The CUDA application: thesis Tables 4.2-4.4 and section 4.4.4 (launch, registers, star layout), the
profiler's view, and the memory spaces on every GPU side by side."""
import statistics

from paper.report.common import big, fmt, groups, medians, pct, table
from paper.report.facts import available

from ..facts import TABLE_EXPERIMENTS, unit_label
from ..variants import variant
from .common import gain_orders, tpb_before_after_text


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


def build(ctx, facts):
    n, pub = ctx.n, facts.published
    gpus = available(facts.gpus)
    gpu, short = gpus[0], gpus[0].short
    final, units, spaces = facts.final, facts.units, facts.memory
    mem = available(facts.memory_ms)
    # Each table varies the memory space with the other axes fixed: every optimisation on (4.2), the loop
    # not unrolled (4.3), IEEE division and square root (4.4); its rows are read by their axis columns.
    tables = available(facts.tables)
    reproduced, published = tables.reproduced, tables.published
    caption = {
        "4.2": "Table 4.2 (thesis): time by memory space of the stream constants, every optimisation on",
        "4.3": "Table 4.3 (thesis), read as the version without loop unrolling",
        "4.4": "Table 4.4 (thesis), read as the version without the fast division and square root",
    }
    for t in reproduced:
        reps = [len(v) for v in groups(facts.files.rows(TABLE_EXPERIMENTS[t])).values()]
        reps = str(min(reps)) if min(reps) == max(reps) else f"{min(reps)} to {max(reps)}"
        body = []
        for m in spaces:
            body.append([m] + [fmt(published[t][m][u] / 1e3, 4) for u in units] + [fmt(reproduced[t][m][u], 4) for u in units])
        header = ["memory"] + [f"{unit_label(u)}, GTX 285 (s)" for u in units] + [f"{unit_label(u)}, {short} (ms)" for u in units]
        ctx.tables[f"table_{t.replace('.', '_')}"] = table(
            f"{caption[t]}. Published: GTX 285, mean of {pub['claims']['runs_per_measurement']['value']} runs, in seconds. Reproduced: "
            f"{short}, median of {reps} runs, in milliseconds; the two grids need not be the same "
            "size, so only ratios within one chip compare.", header, body, widths=[12] + [11] * 8)

    # The gain of each optimisation: the time without it over the time with it, published and reproduced.
    gains = tables.gains
    body = []
    for t, label in [("4.3", "loop unrolling"), ("4.4", "fast division and square root")]:
        p, r = gains[t]
        for m in spaces:
            body.append([label, m] + [f"{pct(100 * p[(m, u)])} / {pct(100 * r[(m, u)])}" for u in units])
        k = t.replace(".", "_")
        n[f"gain_{k}_published_min"], n[f"gain_{k}_published_max"] = f"{100 * min(p.values()):.1f}", f"{100 * max(p.values()):.1f}"
        n[f"gain_{k}_reproduced_min"], n[f"gain_{k}_reproduced_max"] = f"{100 * min(r.values()):.1f}", f"{100 * max(r.values()):.1f}"
        n[f"gain_{k}_reproduced_min_signed"] = pct(100 * min(r.values()))
        lo, hi = min(r.values()), max(r.values())
        n[f"gain_{k}_reproduced_reading"] = ("a loss in every case" if hi < 0 else "a gain in every case" if lo > 0
                                             else "from a loss to a gain, depending on the memory space and unit")
    ctx.tables["table_gains"] = table(
        f"Table R@: the gain of each optimisation, time without it over time with it, minus one; "
        f"GTX 285 (published) / {short} (reproduced). Positive: the optimisation helps.",
        ["optimisation", "memory"] + [unit_label(u) for u in units], body)
    # Order of the memory spaces by their unrolling gain, 3-stream large.
    n["unroll_order_pub"], n["unroll_order_rep"] = gain_orders(facts, "4.3")
    n["div_order_pub"], n["div_order_rep"] = gain_orders(facts, "4.4")
    n["div_saving_3s_large_s"] = fmt((published["4.4"]["shared"]["3s-large"] - published["4.2"]["shared"]["3s-large"]) / 1e3, 3)
    n["div_saving_3s_large_rep_ms"] = fmt(reproduced["4.4"]["shared"]["3s-large"] - reproduced["4.2"]["shared"]["3s-large"], 3)

    # Memory-space ranking on the 3-stream large unit.
    t42 = reproduced["4.2"]
    n["memory_ranking"], n["memory_fastest"] = ", ".join(tables.ranking), tables.ranking[0]
    n["memory_ranking_pub"] = ", ".join(tables.ranking_published)
    def rel(a, b, u="3s-large"):
        return 100 * (t42[a][u] / t42[b][u] - 1)
    for a, b in [("shared", "constant"), ("constant", "global"), ("texture", "global"), ("shared", "global")]:
        for u in ["3s-large", "2s-large"]:
            x = rel(a, b, u)
            n[f"{a}_vs_{b}_pct_{u.replace('-', '_')}"] = pct(x)
            n[f"{a}_vs_{b}_words_{u.replace('-', '_')}"] = f"{abs(x):.1f}% {'more' if x > 0 else 'less'} time than {b} memory"
    n["constant_faster_than_global_pct"] = f"{-rel('constant', 'global'):.1f}"

    # Memory spaces on every GPU side by side (the main GPU first).
    body = []
    per_gpu = []
    for g in gpus:
        m = mem if g is gpu else medians(facts.files.rows("memory_spaces", g.folder))
        per_gpu.append({x: m[(variant(memory=x), "3s-large")] for x in spaces})
    for x in spaces:
        body.append([x, fmt(published["4.2"][x]["3s-large"] / published["4.2"]["global"]["3s-large"], 4)] +
                    [f"{fmt(t[x], 4)} ms ({t[x] / t['global']:.3f})" for t in per_gpu])
    ctx.tables["table_memory_gpus"] = table(
        "Table R@: the memory spaces on every GPU measured, 3-stream large unit, every other optimisation on: "
        "time, and in brackets the time relative to global memory (the GTX 285 column gives that ratio only).",
        ["memory", "GTX 285 (2010), relative"] + [g.short for g in gpus], body)

    # Threads per block, register cap, star layout.
    lc = available(facts.launch)
    launch = facts.files.rows("launch_config")
    lm, tpb, best = lc.medians, lc.tpb, lc.tpb_best
    n["tpb_best"], n["tpb_64_vs_best_pct"] = str(best), f"{100 * (tpb[64] / tpb[best] - 1):.1f}"
    n["default_tpb"] = str(statistics.mode(int(r["threads_per_block"]) for r in launch))
    before, after = lc.tpb_before, lc.tpb_after
    n["tpb_before"] = str(before)
    n["tpb_before_after"] = tpb_before_after_text(lc)
    if lc.tpb_before_change is None:
        ctx.fallback("tpb_before_after", f"launch_config lacks {before} or {after} threads per block",
                     [facts.files.path("launch_config")])
    n["register_cap"] = str(lc.register_cap)
    n["chunk_blocks"] = str(max(int(r["blocks_per_launch"]) for r in launch))
    ctx.tables["table_tpb"] = table(
        f"Table R@: threads per block, thesis's final kernel, 3-stream large unit, {short}, median of the repeats. "
        f"The thesis launched one thread per nu step ({before} in its units) before it settled on "
        f"{after} (section 4.4.4).",
        ["threads per block", "time (ms)", "relative to the fastest", "the thesis's"], tpb_rows(tpb, best, before, after))
    n["chunked_slowdown"] = f"{lc.chunked_slowdown:.1f}"
    n["aos_vs_soa_pct"] = pct(100 * lc.aos_vs_soa, 2)
    n["aos_vs_soa_ms"] = fmt(abs(lm[(final, "64", "0", "none", "aos")] - tpb[64]), 2)
    listing = lc.listing
    cap_body, cap = [], {}
    for v, (t0, t1) in lc.cap.items():
        a, b = listing[(v, False)], listing[(v, True)]
        cap[v] = (t0, t1, a, b)
        cap_body.append([v, f"{a['regs']} / {b['regs']}", f"{a['occupancy']:.1f}% / {b['occupancy']:.1f}%", fmt(t0, 4), fmt(t1, 4),
                         pct(100 * (t1 / t0 - 1))])
    ctx.tables["table_register_cap"] = table(
        f"Table R@: the {n['register_cap']}-register cap, 3-stream large unit, {short}: registers per thread "
        "and theoretical occupancy without / with the cap, time without and with it, and the change.",
        ["variant", "registers", "occupancy", "time (ms)", "time, capped (ms)", "change"], cap_body)
    f = listing[(final, False)]
    n["final_regs"], n["final_occupancy"] = str(f["regs"]), f"{f['occupancy']:.1f}"
    n["final_regs_capped"], n["final_occupancy_capped"] = str(listing[(final, True)]["regs"]), f"{listing[(final, True)]['occupancy']:.1f}"
    n["max_spill"] = str(max(x["spill"] for x in listing.values()))
    glob, tex = variant(memory="global"), variant(memory="texture")
    g = listing[(glob, False)]
    n["global_regs"], n["global_occupancy"] = str(g["regs"]), f"{g['occupancy']:.1f}"
    t0, t1 = cap[glob][:2]
    n["global_cap_change_pct"] = pct(100 * (t1 / t0 - 1))
    n["global_cap_change_ms"] = fmt(t0 - t1, 3)
    t0, t1 = cap[final][:2]
    n["final_cap_change_ms"] = fmt(abs(t0 - t1), 2)
    n["final_cap_change_pct"] = pct(100 * (t1 / t0 - 1), 3)
    tx0, tx1, ta, tb = cap[tex]
    n["texture_cap_change_pct"] = pct(100 * (tx1 / tx0 - 1))
    n["texture_regs"], n["texture_regs_capped"] = str(ta["regs"]), str(tb["regs"])

    # Profiler: FP64 pipe per variant.
    prof = {r["variant"]: r for r in facts.files.rows("ncu_fp64", check_valid=False)}
    fp = available(facts.fp64_pipe)
    n["fp64_pipe_min"], n["fp64_pipe_max"] = f"{min(fp.values()):.0f}", f"{max(fp.values()):.0f}"
    for x in spaces:
        n[f"fp64_pipe_{x}"] = f"{fp[variant(memory=x)]:.0f}"
        n[f"fp64_pipe_{x}_loop"] = f"{fp[variant(memory=x, loop='loop')]:.0f}"
        n[f"occupancy_{x}_loop"] = f"{float(prof[variant(memory=x, loop='loop')]['achieved_occupancy_pct']):.0f}"
        n[f"occupancy_{x}"] = f"{float(prof[variant(memory=x)]['achieved_occupancy_pct']):.0f}"
        n[f"fp64_pipe_{x}_ieee"] = f"{fp[variant(memory=x, divsqrt='ieee')]:.0f}"
    pipe = {x: fp[variant(memory=x)] for x in spaces}
    busiest = max(pipe, key=pipe.get)
    listing_ = ", ".join(f"{pipe[x]:.0f}% with {x}" for x in sorted(spaces, key=lambda x: -pipe[x]))
    if busiest == n["memory_fastest"]:
        n["memory_pipe_sentence"] = (
            f"The profiler agrees: the FP64 pipe is busy {listing_} memory, the fastest space keeping it the busiest. "
            f"Why {busiest} memory keeps it fed (for constant memory, the cache's broadcast of one value to a whole "
            "warp would be a candidate) is a hypothesis that these counters do not test.")
    else:
        n["memory_pipe_sentence"] = (
            f"The profiler's FP64 pipe use ({listing_} memory) does not single out the fastest space; "
            "the cause of the order was not established.")
    opt = facts.files.rows("optimized_vs_unoptimized")
    pts = statistics.median(float(r["points_per_second"]) for r in opt if r["variant"] == final and r["work_unit"] == "3s-large")
    n["final_points_per_s"] = big(pts, 3)
