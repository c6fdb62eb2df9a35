"""Thesis section 4.6 and Figure 4.6: an emulation of more and fewer multiprocessors with green contexts."""
import json
import pathlib
import statistics

from paper.report.common import MissingData, fmt, medians, table
from paper.report.facts import available

from .common import bandwidth_text, scaling_first_step_text

MUNCH_PUBLISHED = pathlib.Path(__file__).resolve().parents[2] / "munch" / "published.json"
NOT_RECORDED = "not recorded on this GPU"
LINEAR = 0.95  # a measured speed-up of at least this share of the ratio of multiprocessors counts as linear


def verdicts(ctx, facts, sc, sms, pairs):
    """The two published scaling statements beside the emulation: the thesis's 8800 GTX against GTX 285 (global
    versions) and Münch's Figure B.9 (Quadro FX 1700 against FX 3700). Each published pair of cards is emulated by
    the recorded SM counts nearest its ratio of multiprocessors that green contexts allow (multiples of 8 on this
    chip; the definition says which)."""
    pub = facts.published
    old, new = pub["hardware"]["8800gtx"], pub["hardware"]["gtx285"]
    munch_all = json.loads(MUNCH_PUBLISHED.read_text())
    munch, fx3700, fx1700 = munch_all["appendix_b"], munch_all["hardware"], munch_all["appendix_b"]["hardware"]
    rows = []

    def emulate(small, large, variants):
        got = [sc[(v, u, str(small))] / sc[(v, u, str(large))] for v, u in pairs
               if v in variants and (v, u, str(small)) in sc and (v, u, str(large)) in sc]
        return (min(got), max(got)) if got else None

    def verdict(got, ratio):
        if got is None:
            return NOT_RECORDED, NOT_RECORDED
        lo, hi = got
        text = f"{lo:.2f}x" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}x to {hi:.2f}x"
        share = lo / ratio
        return (f"{text} (prediction {ratio:.2f}x from the SM ratio; {100 * share:.0f}% of it at worst)",
                "linear, as published" if share >= LINEAR else "below linear")

    # Thesis 4.6: 8800 GTX (16 SMs) against GTX 285 (30 SMs), global versions; prediction from the peak rates.
    small, large = (16, 32) if {16, 32} <= set(sms) else (sms[0], sms[1])
    ours, v = verdict(emulate(small, large, {p[0] for p in pairs if p[0].startswith("global-")}), large / small)
    rows.append([f"{new['name']} ({new['sms']} SMs) over {old['name']} ({old['sms']} SMs), global versions (thesis 4.6)",
                 f"{pub['claims']['scaling_measured']['value']}x measured, {pub['claims']['scaling_predicted']['value']}x "
                 f"predicted ({new['gflops_single']}/{old['gflops_single']} GFLOP/s)",
                 f"{large} over {small} SMs", ours,
                 v + "; the excess over the prediction came from differences between generations, not emulated"])
    # Münch B.9: FX 1700 (4 SMs, 0.92 GHz) against FX 3700 (14 SMs, 1.24 GHz); every variant of the sweep.
    fx_sms = (fx1700["gpu_sms"], fx3700["gpu_sms"])
    predicted = fx_sms[1] * fx3700["gpu_clock_ghz"] / (fx_sms[0] * fx1700["gpu_clock_ghz"])
    small, large = 16, 56
    if {small, large} <= set(sms):
        ours, v = verdict(emulate(small, large, {p[0] for p in pairs}), large / small)
    else:
        ours, v = NOT_RECORDED, NOT_RECORDED
    rows.append([f"{fx3700['gpu']} ({fx_sms[1]} SMs, {fx3700['gpu_sps']} SPs, derived from its SMs; Münch prints "
                 f"{fx3700['gpu_sps_printed']['value']} cores) over {fx1700['gpu']} ({fx_sms[0]} SMs, "
                 f"{fx1700['gpu_sps']} SPs), Münch Fig. B.9",
                 f"{munch['fx3700_over_fx1700_measured']['value']:g}x measured, "
                 f"{munch['fx3700_over_fx1700_expected']['value']:g}x expected (SMs x clock: {predicted:.2f}x from "
                 f"{fx_sms[1]} SMs at {fx3700['gpu_clock_ghz']:g} GHz against {fx_sms[0]} at {fx1700['gpu_clock_ghz']:g} GHz)",
                 f"{large} over {small} SMs (the same ratio of multiprocessors)", ours, v])
    ctx.tables["table_scaling_verdicts"] = table(
        "Table R@: the published scaling between two cards beside the emulation on one "
        f"{available(facts.gpu).short}: green contexts on this chip form groups of a multiple of eight SMs, so the "
        f"{new['name']}'s {new['sms']} SMs are emulated by the nearest such count and Münch's {fx_sms[0]} against "
        f"{fx_sms[1]} by a pair with his ratio of multiprocessors. A speed-up of at least {100 * LINEAR:.0f}% of the SM ratio counts as linear.",
        ["published pair", "published", "emulated by", "this GPU", "verdict"], rows)


def two_cards(ctx, facts):
    """Two cards of one chip: the H100 and the H200 have the same SMs and clock and differ in memory bandwidth.
    The same kernels on both, as recorded in each GPU's folder: the thesis's and the modern variants (modern)
    and, for a bandwidth-bound contrast, the ryoo study's copy and SAXPY kernels (saxpy)."""
    main, other = available(facts.twin)
    if main.bandwidth_gb_s is None or other.bandwidth_gb_s is None:
        raise MissingData(f"the memory bandwidth of {main.name} or {other.name} is unknown",
                          [g.folder / "memory_spaces.meta.json" for g in (main, other)])
    bw = main.bandwidth_gb_s / other.bandwidth_gb_s
    if bw < 1:  # the card with the faster memory first, whichever folder the report is built from
        main, other, bw = other, main, 1 / bw
    body = []
    a, b = medians(facts.files.rows("modern", main.folder)), medians(facts.files.rows("modern", other.folder))
    kernel_ratios = []
    for key in sorted(set(a) & set(b)):
        kernel_ratios.append(b[key] / a[key])
        body.append([key[0], key[1], "kernel ms", fmt(a[key], 3), fmt(b[key], 3), f"{b[key] / a[key]:.3f}"])
    rates = []
    for folder, g in ((main.folder.parent / "ryoo", main), (other.folder.parent / "ryoo", other)):
        rows = facts.files.optional("saxpy", folder)
        rates.append(medians(rows, value="gb_per_s", key=("variant",)) if rows else {})
    bw_ratios = []
    for key in sorted(set(rates[0]) & set(rates[1])):
        bw_ratios.append(rates[0][key] / rates[1][key])
        body.append([key[0], "ryoo saxpy", "GB/s", fmt(rates[0][key], 4), fmt(rates[1][key], 4),
                     f"{rates[0][key] / rates[1][key]:.3f}"])
    if not kernel_ratios:
        raise MissingData("the modern experiment has no kernel recorded on both cards")
    n = ctx.n
    n["twin_gpu"], n["twin_other"] = main.short, other.short
    n["twin_bandwidth_ratio"] = f"{bw:.2f}"
    n["twin_kernel_ratio_min"], n["twin_kernel_ratio_max"] = f"{min(kernel_ratios):.3f}", f"{max(kernel_ratios):.3f}"
    n["twin_copy_ratio"] = f"{statistics.median(bw_ratios):.2f}" if bw_ratios else "(not measured)"
    if not bw_ratios:
        ctx.fallback("twin_copy_ratio", "the ryoo study's saxpy was not recorded on both cards",
                     [g.folder.parent / "ryoo" / "saxpy.csv" for g in (main, other)])
    ctx.tables["table_two_cards"] = table(
        f"Table R@: one chip on two cards: the {main.short} and the {other.short} (same SMs and clock; memory "
        f"bandwidth {bandwidth_text(main)} against {bandwidth_text(other)} GB/s). Kernel times of the thesis's and "
        "the modern variants (medians, each card's own recording), and the bandwidth of the ryoo study's copy and "
        f"SAXPY kernels; the last column is the {other.short}'s time over the {main.short}'s, or the "
        f"{main.short}'s bandwidth over the {other.short}'s.",
        ["variant", "work unit", "measure", main.short, other.short, "ratio"], body)


def build(ctx, facts):
    n = ctx.n
    try:
        two_cards(ctx, facts)
    except MissingData as e:
        ctx.tables["table_two_cards"] = f"The two-card comparison was not made: {e}.\n"
        for k in ("twin_gpu", "twin_other", "twin_bandwidth_ratio", "twin_kernel_ratio_min", "twin_kernel_ratio_max",
                  "twin_copy_ratio"):
            n.setdefault(k, "(not measured)")
        ctx.fallback("table_two_cards", e)
    scaling = available(facts.scaling)
    sc, sms, pairs, recorded = scaling.medians, list(scaling.sms), list(scaling.pairs), list(scaling.recorded)

    def cell(v, u, s):
        if (v, u, str(sms[0])) not in sc or (v, u, str(s)) not in sc:
            return NOT_RECORDED
        return f"{sc[(v, u, str(sms[0]))] / sc[(v, u, str(s))]:.2f}x"
    body = [[v, u] + [cell(v, u, s) for s in sms] for v, u in pairs]
    ctx.tables["table_scaling"] = table(
        f"Table R@: speed-up over {sms[0]} multiprocessors when one {available(facts.gpu).short} is restricted to "
        "fewer multiprocessors (an emulation: same clock, same memory and the whole L2 cache in every case).",
        ["variant", "work unit"] + [f"{s} SMs" for s in sms], body)
    s16, s32 = sms[0], sms[1]
    n["scaling_sms_small"], n["scaling_sms_mid"], n["scaling_sms_full"] = str(s16), str(s32), str(sms[-1])
    n["scaling_variants_recorded"] = str(len({v for v, _ in recorded}))
    n["scaling_variants_defined"] = str(scaling.defined_variants)
    pairs = recorded
    n["scaling_16_32"] = scaling_first_step_text(scaling)
    n["scaling_sm_ratio"] = f"{s32 / s16:.2f}"
    full = scaling.full
    n["scaling_full_min"], n["scaling_full_max"] = f"{min(full):.2f}", f"{max(full):.2f}"
    n["scaling_full_sm_ratio"] = f"{sms[-1] / s16:.2f}"
    verdicts(ctx, facts, sc, sms, pairs)

    # A restriction that did not take effect shows as times that do not change with the SM count.
    effective = scaling.effective
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
