"""Figure P2: GFLOP/s of every matrix-multiplication variant at the headline size, the paper's steps and the
later ones, beside cuBLAS in FP32 and on TF32 tensor cores."""
import matplotlib.pyplot as plt

from figures import common as c


def make(facts, out_dir):
    ladder = c.available(facts.ladder)
    gf, steps = ladder.gflops, ladder.steps
    variants = list(steps)
    colour = {"V0": c.REPRODUCED_SHADES[0], "V1": c.REPRODUCED_SHADES[1], "V2": c.REPRODUCED_SHADES[2],
              "V3": c.REPRODUCED_SHADES[3], "cliff": c.CPU_SHADES[1], "library": c.PUBLISHED_COLOR}
    fig, ax = plt.subplots(figsize=(8, 6))
    values = [c.need(gf, v, "ladder.csv") for v in variants]
    ax.barh(range(len(variants)), values, color=[colour.get(steps[v], c.MODERN_COLOR) for v in variants])
    ax.set_yticks(range(len(variants)), [f"{steps[v]}  {v}" for v in variants])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("GFLOP/s (log scale)")
    ax.set_title(f"Every variant on one {ladder.gpu}")
    for i, v in enumerate(values):
        ax.text(v, i, f" {v:,.0f}", va="center", fontsize=8)
    return c.save(fig, out_dir, "fig_ryoo_beyond")
