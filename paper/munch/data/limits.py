"""The limits of CUDA (thesis chapter 6): launch cost, the likelihood thesis's launch pattern, copy
bandwidth against size, the roofline's measured peaks, and the IEEE-754 checks."""
import statistics

from paper.report.common import MissingData, against_l2, fmt, groups, medians, table
from paper.report.facts import available

from ..facts import COPY_KINDS, LAUNCH_MODES


def build(ctx, facts):
    pub, files = facts.published, facts.files
    claims = pub["claims"]
    roof = available(facts.roof)
    meta = files.meta("roofline")
    gpu = roof.gpu
    ctx.n["munch_gpu"] = gpu
    ctx.n["munch_sm_count"] = str(roof.sm_count)

    # --- the roof ---------------------------------------------------------------------------------------
    fp32, fp64, bw = roof.fp32_peak, roof.fp64_peak, roof.stream_bw
    # The traffic of the streaming copy (its rate times its time), against the L2: the memory figure the
    # bandwidth claims are judged by rests on a run larger than the L2.
    stream_rows = [r for r in files.rows("roofline") if r["quantity"] == "stream_copy_bandwidth"]
    stream_bytes = statistics.median(float(r["value"]) * float(r["ms"]) * 1e6 for r in stream_rows)
    caches = {r.get("cache") or "warm" for r in stream_rows}
    ctx.n["munch_stream_basis_text"] = (f"moving {fmt(stream_bytes / 2**30)} GiB per copy, {against_l2(stream_bytes, meta)}, "
                                        f"timed {' and '.join(sorted(caches))}")
    ctx.n.update(munch_fp32_peak_tflops=fmt(fp32 / 1e3), munch_fp64_peak_tflops=fmt(fp64 / 1e3),
                 munch_stream_bw=fmt(bw), munch_ridge_fp32=fmt(fp32 / bw), munch_ridge_fp64=fmt(fp64 / bw),
                 munch_fx3700_ridge=fmt(pub["hardware"]["gpu_peak_gflops_derived"] / pub["hardware"]["gpu_bandwidth_gb_s"]))

    # --- launches ---------------------------------------------------------------------------------------
    launches = available(facts.launches)
    launch = launches.us
    spread = groups(files.rows("launch_overhead"), "us_per_launch", ("mode", "grid", "block"))
    modes = LAUNCH_MODES
    configs = sorted({(k[1], k[2]) for k in launch}, key=lambda gb: (gb[0] != "16x16", int(gb[0].split("x")[0]) * int(gb[1].split("x")[0])))

    def launch_cell(key):
        if key not in launch:
            return "—"
        return f"{fmt(launch[key])} ({fmt(min(spread[key]))}–{fmt(max(spread[key]))})"
    body = [[g, b] + [launch_cell((m, g, b)) for m in modes] for g, b in configs]
    ctx.tables["table_munch_launch"] = table(
        f"Table R@: cost of one empty-kernel launch on the {gpu} in microseconds, median (smallest–largest sample), by "
        "grid and block; synchronised: launch and wait, minus the wait alone (the thesis's Algorithm 12)",
        ["grid (blocks)", "block (threads)"] + modes, body)
    ctx.n.update(munch_launch_sync_us=fmt(launches.sync_us), munch_launch_async_us=fmt(launches.async_us),
                 munch_launch_graph_us=fmt(launches.graph_us), munch_launch_published_us=fmt(claims["launch_overhead_many_us"]["value"]))
    largest = max((k for k in launch if k[0] == "synchronised"), key=lambda k: int(k[1].split("x")[0]) ** 2)
    ctx.n.update(munch_launch_largest_grid=largest[1], munch_launch_largest_sync_us=fmt(launch[largest]))

    first = files.rows("launch_first")
    ctx.n.update(munch_context_ms_lazy=fmt(launches.context_ms_lazy), munch_context_ms_eager=fmt(launches.context_ms_eager),
                 munch_first_launch_lazy_us=fmt(launches.first_lazy_us), munch_first_launch_eager_us=fmt(launches.first_eager_us),
                 munch_second_launch_us=fmt(launches.second_us),
                 munch_first_processes=str(sum(1 for r in first if r["mode"] == "first_launch" and r["module_loading"] == "LAZY")))

    pattern_rows = files.rows("launch_pattern")
    pattern = medians(pattern_rows, "ms_per_evaluation", ("mode",))
    per_evaluation = int(pattern_rows[0]["launches"])
    if per_evaluation != claims["launches_per_evaluation"]["value"]:
        raise MissingData(f"launch_pattern.csv: {per_evaluation} launches, the thesis's pattern has "
                          f"{claims['launches_per_evaluation']['value']}", [files.path("launch_pattern")])
    for m in modes:
        if (m,) not in pattern:
            raise MissingData(f"launch_pattern.csv: no {m} rows", [files.path("launch_pattern")])
    ctx.n.update(munch_pattern_launches=fmt(per_evaluation, 5), munch_pattern_sync_ms=fmt(pattern[("synchronised",)]),
                 munch_pattern_async_ms=fmt(pattern[("asynchronous",)]), munch_pattern_graph_ms=fmt(pattern[("graph",)]))

    # --- copies -----------------------------------------------------------------------------------------
    copies = available(facts.copies)
    copy_rows = files.rows("copy_bandwidth")
    rate = medians(copy_rows, "gb_per_s", ("memory", "direction", "bytes"))
    plateau = copies.plateau
    body = []
    for mem, d in COPY_KINDS:
        sizes = sorted(int(k[2]) for k in rate if k[:2] == (mem, d))
        top, reach, inversions = plateau[(mem, d)]
        noise = max(float(r["noise_pct"]) for r in copy_rows if (r["memory"], r["direction"]) == (mem, d))
        body.append([mem, d.replace("htod", "host to device").replace("dtoh", "device to host").replace("dtod", "device to device"),
                     fmt(rate[(mem, d, str(sizes[0]))]), fmt(top), fmt(reach / 1024, 4), str(inversions), fmt(noise, 2)])
    ctx.tables["table_munch_copy"] = table(
        f"Table R@: copy bandwidth on the {gpu} in GB/s (median of each size): at the smallest size, the highest, the "
        "smallest size reaching nine tenths of the highest (KiB), and how often a larger copy of at most 1.5 MB finished "
        "sooner than the next smaller one (the thesis's anomaly), and the largest relative spread of any size's samples (%)",
        ["host memory", "direction", "smallest size", "highest", "90 % from (KiB)", "inversions", "spread %"], body)
    ctx.n.update(munch_pinned_htod=fmt(copies.pinned_htod), munch_pinned_dtoh=fmt(copies.pinned_dtoh),
                 munch_pageable_htod=fmt(plateau[("pageable", "htod")][0]),
                 munch_pageable_dtoh=fmt(plateau[("pageable", "dtoh")][0]), munch_dtod=fmt(copies.dtod),
                 munch_mapped_htod=fmt(plateau[("mapped", "htod")][0]),
                 munch_pinned_reach_kib=fmt(copies.pinned_reach / 1024, 4), munch_copy_published=fmt(claims["copy_plateau_gb_s"]["value"]),
                 munch_pinned_vs_published=fmt(min(copies.pinned_htod, copies.pinned_dtoh) / claims["copy_plateau_gb_s"]["value"]))

    # --- IEEE -------------------------------------------------------------------------------------------
    ieee = files.rows("ieee", check_valid=False)
    builds = list(dict.fromkeys(r["build"] for r in ieee))
    ops = list(dict.fromkeys((r["operation"], r["cpu_reference"]) for r in ieee))
    cell = {(r["build"], r["operation"], r["cpu_reference"]): r for r in ieee}
    body = []
    for op, ref in ops:
        row = [op.replace("_", " "), ref]
        for b in builds:
            r = cell.get((b, op, ref))
            row.append("—" if r is None else (f"{fmt(int(r['mismatches']) / int(r['count']) * 100, 3)} % (max {r['max_ulp']} ulp)"
                                              if "flushed" not in ref else f"{fmt(int(r['mismatches']) / int(r['count']) * 100, 3)} %"))
        body.append(row)
    flags = {r["build"]: r["flags"] for r in ieee}
    ctx.tables["table_munch_ieee"] = table(
        f"Table R@: float operations on the {gpu} against the CPU, share of {fmt(int(ieee[0]['count']), 7)} inputs that differ "
        "(largest difference in units in the last place), for the same kernel compiled four ways: "
        + "; ".join(f"{b}: {flags[b]}" for b in builds),
        ["operation", "compared with"] + builds, body)
    ctx.n["munch_ieee_defaults"] = ieee_sentences(cell, int(ieee[0]["count"]))


def ieee_sentences(cell, count):
    """What the four builds showed, in words, from the counts (the chapter states no result of its own)."""
    def count_text(v):
        return f"{v:,}".replace(",", "\u202f")

    def mism(build, op, ref):
        r = cell.get((build, op, ref))
        if r is None:
            raise MissingData(f"ieee.csv: no {build} row for {op} against {ref}")
        return int(r["mismatches"])
    div, root = mism("default", "division", "correctly rounded a/b"), mism("default", "sqrt", "correctly rounded sqrt")
    flushed = mism("default", "denormal_scale", "results flushed to zero")
    fused, unfused = mism("default", "multiply_add", "fused fma(a,b,c)"), mism("default", "multiply_add", "unfused a*b+c")
    if div == 0 and root == 0 and flushed == 0:
        first = (f"With nvcc's defaults, division and square root are correctly rounded on all {count_text(count)} operands "
                 "and no denormal is flushed")
    else:
        first = (f"With nvcc's defaults, {count_text(div)} quotients and {count_text(root)} square roots of {count_text(count)} "
                 f"differ from the correctly rounded ones and {count_text(flushed)} denormals are flushed")
    second = (f"; a multiply followed by an add differs from the CPU's unfused `a*b+c` in {count_text(unfused)} cases and from a "
              f"fused multiply-add in {count_text(fused)}, so the contraction into one fused multiply-add is what remains between a GPU "
              "and a CPU build that does not contract" if fused == 0 and unfused > 0 else
              f"; a multiply followed by an add differs from the CPU's unfused `a*b+c` in {count_text(unfused)} cases and from "
              f"a fused multiply-add in {count_text(fused)}")
    ftz, fast = mism("flush_to_zero", "denormal_scale", "results flushed to zero"), mism("fast_math", "denormal_scale", "results flushed to zero")
    fast_div = mism("fast_math", "division", "correctly rounded a/b") + mism("fast_math", "sqrt", "correctly rounded sqrt")
    third = (f". Compiled with -ftz=true the GPU flushes {count_text(ftz)} of the {count_text(count)} denormal results; with "
             f"-use_fast_math it flushes {count_text(fast)} and {count_text(fast_div)} quotients and square roots differ")
    return first + second + third
