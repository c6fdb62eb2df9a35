"""Figure R3: every testable effect of the thesis, published against reproduced, with the line y = x.

Drawn by the report's claims chapter (paper/mwsep/data/claims.py), which computes the effects."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import common as c  # noqa: E402


def draw(effects, gpu, out_dir):
    """effects: [(label, published ratio, reproduced ratio)]."""
    fig, ax = c.plt.subplots(figsize=(9, 8.5))
    xs = [p for _, p, _ in effects]
    ys = [r for _, _, r in effects]
    lo, hi = min(xs + ys) / 1.15, max(xs + ys) * 1.15
    ax.plot([lo, hi], [lo, hi], color="black", lw=1, label="y = x: the same effect")
    ax.axhline(1, color="grey", lw=0.6, ls=":")
    ax.axvline(1, color="grey", lw=0.6, ls=":")
    ax.scatter(xs, ys, color=c.REPRODUCED_COLOR, zorder=3)
    for i, (label, x, y) in enumerate(sorted(effects, key=lambda e: e[2])):
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(8, -4 + 9 * (i % 2) - 4 * (i % 3)), fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    from matplotlib.ticker import FormatStrFormatter, NullFormatter
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FormatStrFormatter("%g"))
        axis.set_minor_formatter(NullFormatter())
    ticks = [t for t in (0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4, 5, 7, 10) if lo <= t <= hi]
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel(f"published effect ({c.PUBLISHED_GPU}), ratio")
    ax.set_ylabel(f"reproduced effect ({gpu}), ratio")
    ax.set_title("Effects of the thesis, published against reproduced")
    ax.legend(loc="upper left", frameon=False)
    return c.save(fig, out_dir, "fig_claims")
