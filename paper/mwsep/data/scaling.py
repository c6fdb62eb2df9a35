"""Thesis section 4.6 and Figure 4.6: an emulation of more and fewer multiprocessors with green contexts."""
import statistics

from report.common import MissingData, fmt, medians, table


def two_cards(ctx):
    """Two cards of one chip: the H100 and the H200 have the same SMs and clock and differ in memory bandwidth.
    The same kernels on both, as recorded in each GPU's folder: the thesis's and the modern variants (modern)
    and, for a bandwidth-bound contrast, the ryoo study's copy and SAXPY kernels (saxpy)."""
    gpus = ctx.facts["gpus"]
    main = gpus[0]
    twins = [g for g in gpus[1:] if g["sms"] == main["sms"] and g["clock_mhz"] == main["clock_mhz"]
             and g["cc"] == main["cc"] and g["name"] != main["name"] and "x2" not in g["folder"].parent.name]
    if not twins:
        raise MissingData("no second GPU with the same SMs and clock among the compared folders")
    other = twins[0]
    try:
        bw = float(main["bandwidth_gb_s"][0]) / float(other["bandwidth_gb_s"][0])
    except ValueError:
        raise MissingData(f"the memory bandwidth of {main['name']} or {other['name']} is unknown")
    if bw < 1:  # the card with the faster memory first, whichever folder the report is built from
        main, other, bw = other, main, 1 / bw
    body = []
    a, b = medians(ctx.rows("modern", main["folder"])), medians(ctx.rows("modern", other["folder"]))
    kernel_ratios = []
    for key in sorted(set(a) & set(b)):
        kernel_ratios.append(b[key] / a[key])
        body.append([key[0], key[1], "kernel ms", fmt(a[key], 3), fmt(b[key], 3), f"{b[key] / a[key]:.3f}"])
    rates = []
    for folder, g in ((main["folder"].parent / "ryoo", main), (other["folder"].parent / "ryoo", other)):
        rows = ctx.optional_rows("saxpy", folder)
        rates.append(medians(rows, value="gb_per_s", key=("variant",)) if rows else {})
    bw_ratios = []
    for key in sorted(set(rates[0]) & set(rates[1])):
        bw_ratios.append(rates[0][key] / rates[1][key])
        body.append([key[0], "ryoo saxpy", "GB/s", fmt(rates[0][key], 4), fmt(rates[1][key], 4),
                     f"{rates[0][key] / rates[1][key]:.3f}"])
    if not kernel_ratios:
        raise MissingData("the modern experiment has no kernel recorded on both cards")
    n = ctx.n
    n["twin_gpu"], n["twin_other"] = main["short"], other["short"]
    n["twin_bandwidth_ratio"] = f"{bw:.2f}"
    n["twin_kernel_ratio_min"], n["twin_kernel_ratio_max"] = f"{min(kernel_ratios):.3f}", f"{max(kernel_ratios):.3f}"
    n["twin_copy_ratio"] = f"{statistics.median(bw_ratios):.2f}" if bw_ratios else "(not measured)"
    ctx.tables["table_two_cards"] = table(
        f"Table R@: one chip on two cards: the {main['short']} and the {other['short']} (same SMs and clock; memory "
        f"bandwidth {main['bandwidth_gb_s'][0]} against {other['bandwidth_gb_s'][0]} GB/s). Kernel times of the thesis's and "
        "the modern variants (medians, each card's own recording), and the bandwidth of the ryoo study's copy and "
        f"SAXPY kernels; the last column is the {other['short']}'s time over the {main['short']}'s, or the "
        f"{main['short']}'s bandwidth over the {other['short']}'s.",
        ["variant", "work unit", "measure", main["short"], other["short"], "ratio"], body)


def build(ctx):
    n = ctx.n
    try:
        two_cards(ctx)
    except MissingData as e:
        ctx.tables["table_two_cards"] = f"The two-card comparison was not made: {e}.\n"
        for k in ("twin_gpu", "twin_other", "twin_bandwidth_ratio", "twin_kernel_ratio_min", "twin_kernel_ratio_max",
                  "twin_copy_ratio"):
            n.setdefault(k, "(not measured)")
    sc = medians(ctx.rows("scaling"), key=("variant", "work_unit", "sm_count"))
    sms = sorted({int(k[2]) for k in sc})
    pairs = sorted({(k[0], k[1]) for k in sc})
    body = [[v, u] + [f"{sc[(v, u, str(sms[0]))] / sc[(v, u, str(s))]:.2f}x" for s in sms] for v, u in pairs]
    ctx.tables["table_scaling"] = table(
        f"Table R@: speed-up over {sms[0]} multiprocessors when one {ctx.facts['gpu']['short']} is restricted to "
        "fewer multiprocessors (an emulation: same clock, same memory and the whole L2 cache in every case).",
        ["variant", "work unit"] + [f"{s} SMs" for s in sms], body)
    s16, s32 = sms[0], sms[1]
    n["scaling_sms_small"], n["scaling_sms_mid"], n["scaling_sms_full"] = str(s16), str(s32), str(sms[-1])
    r = [sc[(v, u, str(s16))] / sc[(v, u, str(s32))] for v, u in pairs]
    lo, hi = f"{min(r):.2f}", f"{max(r):.2f}"
    n["scaling_16_32"] = lo if lo == hi else f"{lo}x to {hi}"
    n["scaling_sm_ratio"] = f"{s32 / s16:.2f}"
    full = [sc[(v, u, str(s16))] / sc[(v, u, str(sms[-1]))] for v, u in pairs]
    n["scaling_full_min"], n["scaling_full_max"] = f"{min(full):.2f}", f"{max(full):.2f}"
    n["scaling_full_sm_ratio"] = f"{sms[-1] / s16:.2f}"
    ctx.facts["scaling_16_32"] = (min(r), max(r))

    # A restriction that did not take effect shows as times that do not change with the SM count.
    effective = min(full) >= 0.5 * sms[-1] / s16
    n["scaling_effective"] = "yes" if effective else "no"
    if effective:
        ctx.tables["para_scaling"] = (
            f"From {s16} to {s32} multiprocessors the kernels speed up {n['scaling_16_32']} times, against a ratio of "
            f"{n['scaling_sm_ratio']} in multiprocessors; the whole GPU is {n['scaling_full_min']} to "
            f"{n['scaling_full_max']} times faster than {s16} multiprocessors, against a ratio of "
            f"{n['scaling_full_sm_ratio']}: {100 * min(full) * s16 / sms[-1]:.0f} to {100 * max(full) * s16 / sms[-1]:.0f}% "
            "of linear scaling on the whole chip (this emulation does not show why).\n")
    else:
        worst = max(max(sc[(v, u, str(s))] for s in sms) / min(sc[(v, u, str(s))] for s in sms) - 1 for v, u in pairs)
        ctx.tables["para_scaling"] = (
            f"**In this recording the restriction did not take effect**: the time of each kernel at {s16}, {s32} and "
            f"{sms[-1]} multiprocessors agrees within {100 * worst:.1f}%, which a kernel that fills the GPU cannot do "
            "on a fraction of its multiprocessors. These rows measure the whole GPU each time and cannot show the scaling; the table and "
            "the figure are printed as recorded.\n")
