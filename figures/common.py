"""Shared loading and style for the figure scripts.

Measured numbers come only from the result files of one GPU (experiments/results/<gpu>/); published
numbers come only from paper/mwsep/published.json (each study its own paper/<study>/published.json). A figure whose source data is missing or empty raises
MissingData instead of drawing anything; figures/make_figures.py then writes an image that says the figure
was not measured on this GPU, and why.
"""
import csv
import json
import pathlib
import statistics
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from experiments.harness import results  # noqa: E402
# How the report reads mwsep's variants: the final variant, named once, and each row's policy axes.
from paper.mwsep.data import variants as VARIANTS  # noqa: E402
# The facts layer: a figure draws from its study's facts, and a part they cannot give raises MissingData.
from paper.report.facts import MissingData, available  # noqa: E402,F401

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results" / "nvidia-h200"
PUBLISHED = ROOT / "paper" / "mwsep" / "published.json"
OUT = ROOT / "figures" / "out"

WORK_UNITS = ["3s-large", "2s-large", "3s-small", "2s-small"]
WU_LABEL = {"3s-large": "3-S large", "2s-large": "2-S large", "3s-small": "3-S small", "2s-small": "2-S small"}
MEMORIES = ["global", "constant", "texture", "shared"]
PUBLISHED_GPU = "GTX 285, 2010"

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


def load_published(path=PUBLISHED):
    path = pathlib.Path(path)
    if not path.exists():
        raise MissingData(f"{path} is missing")
    return json.loads(path.read_text())


def read_rows(results_dir, name):
    """The rows of <results_dir>/<name>.csv as dicts of strings; MissingData if missing or empty, or if a row
    is marked invalid (the one rule of experiments/harness/results.py, which the report applies too)."""
    path = pathlib.Path(results_dir) / f"{name}.csv"
    if not path.exists():
        raise MissingData(f"{path} is missing")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise MissingData(f"{path} has no rows")
    bad = sum(1 for r in rows if results.invalid(r))
    if bad:
        raise MissingData(f"{path}: {bad} rows marked invalid; a figure uses only valid results")
    return rows


def read_meta(results_dir, name):
    path = pathlib.Path(results_dir) / f"{name}.meta.json"
    return json.loads(path.read_text()) if path.exists() else {}


def gpu_name(results_dir, name):
    return read_meta(results_dir, name).get("gpu_name", pathlib.Path(results_dir).name)


def published_label():
    return f"published ({PUBLISHED_GPU})"


def reproduced_label(gpu):
    return f"reproduced ({gpu})"


def medians(rows, keys=("variant", "work_unit"), value="kernel_ms", where=None):
    """Median of `value` over the repeats of each key tuple; rows failing `where` are skipped."""
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


def table_as_read(published, table_id):
    """{memory: {work_unit: ms}} of Table 4.2, 4.3 or 4.4: the value printed under printed_columns[i]
    belongs to columns_as_read[i] (the same column where a table gives neither)."""
    t = published["tables"][table_id]
    printed = t.get("printed_columns", WORK_UNITS)
    read = t.get("columns_as_read", printed)
    return {m: {wu: row[col] for wu, col in zip(read, printed)} for m, row in t["rows"].items()}


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


def paired_panels(published, reproduced, gpu, ylabel, title, fmt=lambda y: f"{y:.1f}"):
    """One panel per work unit, memory spaces on x, a published and a reproduced bar for each.

    published, reproduced: {work_unit: {memory: value}}; a work unit missing from published
    gets reproduced bars only. Every bar carries its value as fmt(value) writes it."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5), sharey=True)
    values = [v for d in (published, reproduced) for wu in d.values() for v in wu.values()]
    lo, hi = min(0.0, min(values)), max(0.0, max(values))
    pad = 0.18 * (hi - lo)
    for ax, wu in zip(axes.flat, WORK_UNITS):
        x = range(len(MEMORIES))
        for i, (data, label, color) in enumerate([(published, published_label(), PUBLISHED_COLOR),
                                                  (reproduced, reproduced_label(gpu), REPRODUCED_COLOR)]):
            if wu not in data:
                continue
            ys = [data[wu][m] for m in MEMORIES]
            bars = ax.bar([k + (i - 0.5) * 0.38 for k in x], ys, 0.38, color=color, label=label)
            ax.bar_label(bars, [fmt(y) for y in ys], padding=2, fontsize=9)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xticks(list(x), MEMORIES)
        ax.set_title(WU_LABEL[wu])
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


def optimization_gain_figure(results_dir, published, out_dir, experiment, table, without, with_, ylabel, title,
                             filename):
    """Figures 4.4 and 4.5: the gain of one optimization per memory space and work unit, published
    (thesis table `table` over Table 4.2, columns as read) beside reproduced (the variant whose other axes
    are `without` over the one whose other axes are `with_`, each (divsqrt, loop, precision), from
    `experiment`, read by the rows' axes)."""
    med = VARIANTS.medians_by_axes(read_rows(results_dir, experiment))
    gpu = gpu_name(results_dir, experiment)
    with_opt, without_opt = table_as_read(published, "4.2"), table_as_read(published, table)
    pub = {wu: {m: (without_opt[m][wu] / with_opt[m][wu] - 1) * 100 for m in MEMORIES} for wu in WORK_UNITS}
    rep = {wu: {m: (need(med, (m, *without, wu), experiment)
                    / need(med, (m, *with_, wu), experiment) - 1) * 100 for m in MEMORIES}
           for wu in WORK_UNITS}
    return save(paired_panels(pub, rep, gpu, ylabel, title), out_dir, filename)
