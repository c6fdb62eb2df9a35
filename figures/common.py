"""What every figure module shares: the style, the colours, medians, and the image a figure that cannot be
drawn leaves in its place.

A figure draws from its study's facts (paper/<study>/facts.py, built once by figures/make_figures.py as the
report builds them): the recorded results of one GPU and the study's published numbers, read there and nowhere
else. A part the facts cannot give raises MissingData (available(...)); make_figures then writes an image that
says the figure was not measured on this GPU, and why.
"""
import pathlib
import statistics
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from experiments.harness import results  # noqa: E402
# The facts layer: a part of a study's facts that its results cannot give raises MissingData when drawn.
from paper.report.facts import MissingData, available  # noqa: E402,F401

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results" / "nvidia-h200"
OUT = ROOT / "figures" / "out"

PUBLISHED_COLOR = "#d95f02"   # orange: the thesis
REPRODUCED_COLOR = "#1b6ca8"  # blue: this rebuild
# Shades of the reproduced colour, for several reproduced series in one chart.
REPRODUCED_SHADES = ["#0b3c5d", "#1b6ca8", "#5b9bd5", "#a9cbe8"]
MODERN_COLOR = "#1a9850"       # green: beyond the thesis (the modern variants)
CPU_SHADES = ["#4d4d4d", "#878787", "#bababa"]

plt.rcParams.update({
    "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11, "legend.fontsize": 10,
    "xtick.labelsize": 10, "ytick.labelsize": 10, "figure.titlesize": 13,
    "axes.spines.top": False, "axes.spines.right": False, "axes.axisbelow": True,
    "axes.grid": True, "grid.alpha": 0.3, "savefig.bbox": "tight",
})


def reproduced_label(gpu):
    return f"reproduced ({gpu})"


def medians(rows, keys=("variant", "work_unit"), value="kernel_ms", where=None):
    """Median of `value` over the repeats of each key tuple; rows failing `where` are skipped, and so are rows
    marked invalid (the one rule of experiments/harness/results.py)."""
    groups = {}
    for r in rows:
        if results.invalid(r) or (where and not where(r)):
            continue
        groups.setdefault(tuple(r[k] for k in keys), []).append(float(r[value]))
    return {k: statistics.median(v) for k, v in groups.items()}


def need(table, key, source):
    """table[key], or MissingData naming the source."""
    if key not in table:
        raise MissingData(f"{source}: no rows for {key}")
    return table[key]


def placeholder(out_dir, stem, reason):
    """The figure <stem> not drawn: an image that says so and why, in the formats `save` writes."""
    fig, ax = plt.subplots(figsize=(6.4, 1.6))
    ax.axis("off")
    ax.text(0.5, 0.5, "Not measured on this GPU:\n" + textwrap.fill(str(reason), 90), ha="center", va="center",
            fontsize=8, wrap=True)
    return save(fig, out_dir, stem)


def save(fig, out_dir, stem):
    """Writes <stem>.svg and <stem>.png (150 dpi); returns both paths."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.svg", out_dir / f"{stem}.png"]
    fig.savefig(paths[0])
    fig.savefig(paths[1], dpi=150)
    plt.close(fig)
    return paths
