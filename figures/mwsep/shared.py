"""What the likelihood study's figures share: how the thesis's GPU is named, and the panels of its figures of the
memory spaces (Figures 4.3 to 4.5), one per work unit, the memory spaces in the order of the thesis's Figure 4.3
and the work units in the column order of its Table 4.2 (both from the study's facts)."""
from figures import common as c

PUBLISHED_GPU = "GTX 285, 2010"


def published_label():
    return f"published ({PUBLISHED_GPU})"


def unit_label(unit):
    """'3s-large' -> '3-S large'."""
    return unit.replace("s-", "-S ")


def paired_panels(facts, published, reproduced, gpu, ylabel, title, fmt=lambda y: f"{y:.1f}"):
    """One panel per work unit, memory spaces on x, a published and a reproduced bar for each.

    published, reproduced: {work_unit: {memory: value}}; a work unit missing from published
    gets reproduced bars only. Every bar carries its value as fmt(value) writes it."""
    memories = facts.memory_figure_order
    fig, axes = c.plt.subplots(2, 2, figsize=(11, 7.5), sharey=True)
    values = [v for d in (published, reproduced) for wu in d.values() for v in wu.values()]
    lo, hi = min(0.0, min(values)), max(0.0, max(values))
    pad = 0.18 * (hi - lo)
    for ax, wu in zip(axes.flat, facts.units):
        x = range(len(memories))
        for i, (data, label, color) in enumerate([(published, published_label(), c.PUBLISHED_COLOR),
                                                  (reproduced, c.reproduced_label(gpu), c.REPRODUCED_COLOR)]):
            if wu not in data:
                continue
            ys = [data[wu][m] for m in memories]
            bars = ax.bar([k + (i - 0.5) * 0.38 for k in x], ys, 0.38, color=color, label=label)
            ax.bar_label(bars, [fmt(y) for y in ys], padding=2, fontsize=9)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xticks(list(x), memories)
        ax.set_title(unit_label(wu))
        ax.set_ylim(lo - (pad if lo < 0 else 0), hi + pad)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in axes[1, :]:
        ax.set_xlabel("memory space of the stream constants")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, bbox_to_anchor=(0.5, -0.04), frameon=False)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def optimization_gain_figure(facts, out_dir, experiment, table, without, with_, ylabel, title, filename):
    """Figures 4.4 and 4.5: the gain of one optimization per memory space and work unit, published
    (thesis table `table` over Table 4.2, columns as read) beside reproduced (the variant whose other axes
    are `without` over the one whose other axes are `with_`, each (divsqrt, loop, precision), from
    `experiment`, read by the rows' axes)."""
    tables = c.available(facts.tables)
    med = tables.by_axes[experiment]
    gpu = c.available(facts.gpu).name
    with_opt, without_opt = tables.published["4.2"], tables.published[table]
    memories = facts.memory_figure_order
    pub = {wu: {m: (without_opt[m][wu] / with_opt[m][wu] - 1) * 100 for m in memories} for wu in facts.units}
    rep = {wu: {m: (c.need(med, (m, *without, wu), experiment)
                    / c.need(med, (m, *with_, wu), experiment) - 1) * 100 for m in memories}
           for wu in facts.units}
    return c.save(paired_panels(facts, pub, rep, gpu, ylabel, title), out_dir, filename)
