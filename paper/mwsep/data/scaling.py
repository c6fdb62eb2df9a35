"""Thesis section 4.6 and Figure 4.6: an emulation of more and fewer multiprocessors with green contexts."""
from report.common import medians, table


def build(ctx):
    n = ctx.n
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
