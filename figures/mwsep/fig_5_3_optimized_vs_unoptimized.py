"""Figure 5.3: speed-up of every double-precision variant over the thesis's first version,
global-ieee-loop-f64, per work unit.

Published markers (3-S large only): the original CUDA version's 10.2 min divided by the time of the
variant in Tables 4.2 (fast, unrolled), 4.3 as read (fast, loop) and 4.4 as read (IEEE, unrolled)."""
import pathlib

from figures import common as c

from .shared import published_label, unit_label


def published_speedups(facts):
    """{variant: speed-up over the first version} for 3-S large, from the thesis's tables."""
    tables = c.available(facts.tables)
    first_ms = facts.published["claims"]["cuda_original_time_3s_large"]["value"] * 60 * 1000
    out = {facts.first: 1.0}
    for table, per_memory in tables.variants.items():
        for m, per_wu in tables.published[table].items():
            out[per_memory[m]] = first_ms / per_wu["3s-large"]
    return out


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    name = "optimized_vs_unoptimized"
    BASE = facts.first
    rows = facts.files.rows(name)
    med = c.medians(rows)
    gpu = c.available(facts.gpu).name
    variants = list(dict.fromkeys(r["variant"] for r in rows if r["variant"].endswith("-f64")
                                  and not r["variant"].startswith("modern")))
    modern = {wu: c.need(med, (BASE, wu), name) / c.need(med, (facts.modern, wu), name) for wu in facts.units}
    pub = published_speedups(facts)

    fig, ax = c.plt.subplots(figsize=(10, 11))
    h = 0.8 / len(facts.units)
    for i, (shade, wu) in enumerate(zip(c.REPRODUCED_SHADES, facts.units)):
        base = c.need(med, (BASE, wu), name)
        ys = [v + (i - 1.5) * h for v in range(len(variants))]
        xs = [base / c.need(med, (v, wu), name) for v in variants]
        bars = ax.barh(ys, xs, h, color=shade, label=f"{unit_label(wu)}, {c.reproduced_label(gpu)}")
        ax.bar_label(bars, [f"{x:.2f}" for x in xs], padding=2, fontsize=6)
    marked = [(k, pub[v]) for k, v in enumerate(variants) if v in pub]
    ax.plot([s for _, s in marked], [k - 1.5 * h for k, _ in marked], "D", color=c.PUBLISHED_COLOR, ms=8,
            markeredgecolor="black", label=f"3-S large, {published_label()}:\n10.2 min / Tables 4.2-4.4")
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_xlim(left=0.8)
    ax.set_yticks(range(len(variants)), variants, fontfamily="monospace")
    ax.invert_yaxis()
    ax.set_xlabel(f"speed-up over {BASE} (time of {BASE} / time of the variant)")
    ax.set_ylabel("kernel variant (memory-divsqrt-loop-precision)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.35, -0.07), ncol=2, fontsize=9, frameon=False)
    ax.set_title("Optimised against unoptimised (Fig. 5.3): speed-up of each double-precision variant\n"
                 f"over the first version {BASE}, per work unit; beyond the thesis, modern-f64: "
                 + ", ".join(f"{modern[wu]:.2f}x" for wu in facts.units) + " (3-S/2-S large, small)")
    fig.tight_layout()
    return c.save(fig, out_dir, "fig_5_3_optimized_vs_unoptimized")
