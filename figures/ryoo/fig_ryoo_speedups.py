"""Figure P3: the application suite's kernel and application speed-ups over one CPU thread, published (8800 GTX
against one Opteron 248 thread) beside measured (this GPU against one thread of its host), log scale. The
measured values are the fastest GPU variant's, from the study's facts (paper/ryoo/facts.py), as the report's
Table 3 prints them."""
import matplotlib.pyplot as plt

from figures import common as c


def make(facts, out_dir):
    rows = facts.published["suite"]["rows"]
    suite = c.available(facts.suite)
    labels, measured, published = [], [], []
    for app in suite:  # in the order of the paper's tables; an optional application not recorded is left out
        labels.append(rows[app]["paper_name"])
        measured.append((suite[app].kernel_x, suite[app].app_x))
        published.append((float(rows[app]["kernel_speedup"]), float(rows[app]["app_speedup"])))
    gpu = c.available(facts.ladder).gpu
    fig, ax = plt.subplots(figsize=(10, 4.8))
    width = 0.2
    series = [("kernel, published (8800 GTX)", [p[0] for p in published], c.PUBLISHED_COLOR, None),
              ("application, published", [p[1] for p in published], c.PUBLISHED_COLOR, "//"),
              (f"kernel, {gpu}", [m[0] for m in measured], c.REPRODUCED_COLOR, None),
              (f"application, {gpu}", [m[1] for m in measured], c.REPRODUCED_COLOR, "//")]
    for k, (label, values, colour, hatch) in enumerate(series):
        xs = [i + (k - 1.5) * width for i in range(len(labels))]
        ax.bar(xs, values, width, label=label, color=colour if hatch is None else "white", edgecolor=colour,
               hatch=hatch)
        for x, v in zip(xs, values):
            ax.text(x, v, f"{v:,.0f}" if v >= 100 else f"{v:.1f}", ha="center", va="bottom", fontsize=7)
    ax.set_yscale("log")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylabel("speed-up over one CPU thread (log scale)")
    ax.set_title("The application suite: published and measured speed-ups")
    ax.legend(fontsize=8, loc="upper left")
    return c.save(fig, out_dir, "fig_ryoo_speedups")
