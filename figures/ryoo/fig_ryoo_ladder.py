"""Figure P1: the paper's ladder V0 -> V3 as speed-up over V0, published (8800 GTX) beside measured."""
import matplotlib.pyplot as plt

from figures import common as c

LADDER = ["naive", "tiled-16", "unrolled-16", "prefetch-16"]
LABELS = ["V0 naive", "V1 tiled 16x16", "V2 unrolled", "V3 prefetch"]


def make(facts, out_dir):
    pub = facts.published["ladder_gflops"]
    ladder = c.available(facts.ladder)
    gf = ladder.gflops
    measured = [c.need(gf, v, "ladder.csv") / c.need(gf, "naive", "ladder.csv") for v in LADDER]
    paper = [pub[v] / pub["naive"] for v in LADDER]
    fig, ax = plt.subplots(figsize=(7, 4))
    x = range(len(LADDER))
    ax.bar([i - 0.2 for i in x], paper, 0.4, color=c.PUBLISHED_COLOR, label="8800 GTX (Ryoo et al. 2008)")
    ax.bar([i + 0.2 for i in x], measured, 0.4, color=c.REPRODUCED_COLOR, label=c.reproduced_label(ladder.gpu_name))
    for i, (a, b) in enumerate(zip(paper, measured)):
        ax.text(i - 0.2, a, f"{a:.1f}", ha="center", va="bottom", fontsize=9)
        ax.text(i + 0.2, b, f"{b:.1f}", ha="center", va="bottom", fontsize=9)
    ax.set_xticks(list(x), LABELS)
    ax.set_ylabel("speed-up over V0")
    ax.set_title("The matrix-multiplication ladder, n = 4096")
    ax.legend()
    return c.save(fig, out_dir, "fig_ryoo_ladder")
