"""Figure R6: every testable effect of the thesis, published against reproduced, with the line y = x: the effects
of the study's facts (paper/mwsep/facts.py), which the report's claims table judges one by one."""
import pathlib

from matplotlib.ticker import FormatStrFormatter, NullFormatter

from figures import common as c

from .shared import PUBLISHED_GPU


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    return draw([(e.label, e.published, e.reproduced) for e in c.available(facts.effects)],
                c.available(facts.gpu).short, out_dir)


def draw(effects, gpu, out_dir):
    """effects: [(label, published ratio, reproduced ratio)]; points are numbered, the key beside them."""
    fig, (ax, key) = c.plt.subplots(1, 2, figsize=(12, 7), width_ratios=[1.25, 1])
    xs = [p for _, p, _ in effects]
    ys = [r for _, _, r in effects]
    lo, hi = min(xs + ys) / 1.1, max(xs + ys) * 1.1
    ax.plot([lo, hi], [lo, hi], color="black", lw=1, label="y = x: the same effect")
    ax.axhline(1, color="grey", lw=0.6, ls=":")
    ax.axvline(1, color="grey", lw=0.6, ls=":")
    ax.scatter(xs, ys, color=c.REPRODUCED_COLOR, zorder=3, s=22)
    lines = []
    for i, (label, x, y) in enumerate(effects, start=1):
        ax.annotate(str(i), (x, y), textcoords="offset points", xytext=(4, 2 if i % 2 else -9), fontsize=8)
        lines.append(f"{i:>2}  {label}: {x:.3g} / {y:.3g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ticks = [t for t in (0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4, 5, 7, 10) if lo <= t <= hi]
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FormatStrFormatter("%g"))
        axis.set_minor_formatter(NullFormatter())
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel(f"published effect ({PUBLISHED_GPU}), ratio")
    ax.set_ylabel(f"reproduced effect ({gpu}), ratio")
    ax.legend(loc="upper left", frameon=False)
    key.axis("off")
    key.text(0, 1, "effect: published / reproduced\n\n" + "\n".join(lines), va="top", ha="left",
             family="monospace", fontsize=9, transform=key.transAxes)
    fig.suptitle("Effects of the thesis, published against reproduced (ratios of two times or rates)")
    fig.tight_layout()
    return c.save(fig, out_dir, "fig_claims")
