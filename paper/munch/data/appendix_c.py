"""Where each of the thesis's fifteen Appendix C tables stands in this report: the table or verdict that sets
it beside a measurement, the result file behind it, and for the cells not compared the reason. Built from
paper/munch/published.json and the presence of the result files; it needs no measurement itself."""
from paper.report.common import table

# Per Appendix C table: (where this report sets it beside a measurement, the result files, what is not compared and why).
COUNTERPARTS = {
    "C.1": ("convolution times table (column C.1) and Figure M1", ["convolution_cpu"], "cells beyond the CPU's work cap"),
    "C.2": ("convolution times table (column C.2) and Figure M1", ["convolution_cpu"], "cells beyond the CPU's work cap"),
    "C.3": ("verdict: OpenMP convolution speed-up", ["convolution_cpu"],
            "the cell with a dropped digit is refused; the verdict uses the largest measured cell"),
    "C.4": ("verdict: convolution with overhead; rolling-ball and convolution overhead runs", ["convolution_overhead"],
            "its cells for filters of up to 99 taps are built on invalid kernel times (refused)"),
    "C.5": ("convolution times table (column C.5) and Figure M1", ["convolution_gpu"],
            "filters of up to 99 taps: not kernel times (refused)"),
    "C.6": ("verdict: GPU overhead never below its floor", ["convolution_overhead"], "compared as its range, not cell by cell"),
    "C.7": ("verdict: convolution with overhead over one CPU thread", ["convolution_overhead", "convolution_cpu"],
            "its largest cell only; the cells on invalid kernel times are refused"),
    "C.8": ("rolling-ball times table (column C.8) and the practical instance", ["rolling_ball_cpu"], "cells beyond the CPU's work cap"),
    "C.9": ("the practical instance; the rolling-ball times table's OpenMP column", ["rolling_ball_cpu"],
            "its OpenMP dilation has a data race: the race-free version is timed instead"),
    "C.10": ("verdicts: OpenMP rolling ball (main and second machine)", ["rolling_ball_cpu"],
             "a speed-up of a racy code: the race-free one's speed-up is set beside it"),
    "C.11": ("rolling ball with overhead table (column C.11) and the practical instance", ["rolling_ball_overhead"],
             "the measured cells only (a few per filter)"),
    "C.12": ("rolling-ball times table (column C.12)", ["rolling_ball_gpu"],
             "balls of 99,999 taps and more over 10^6 samples or more: no CPU reference checks them in the run's budget"),
    "C.13": ("rolling ball with overhead table (column C.13)", ["rolling_ball_overhead"], "the measured cells only"),
    "C.14": ("rolling-ball times table (column C.14, and for equal work) and the verdict on its maximum", ["rolling_ball_gpu", "rolling_ball_cpu"],
             "inflated as published: its CPU did more work than its GPU"),
    "C.15": ("rolling ball with overhead table (column C.15), the practical instance and the verdict on its maximum",
             ["rolling_ball_overhead", "rolling_ball_cpu"], "inflated (unequal work) and built on the racy OpenMP times"),
}


def build(ctx, facts):
    pub = facts.published["appendix_c"]
    body = []
    for name, t in pub.items():
        where, files, left = COUNTERPARTS[name]
        have = [f for f in files if facts.files.path(f).exists()]
        cells = sum(v is not None for row in t["rows_by_filter"].values() for v in row)
        status = "set beside a measurement" if len(have) == len(files) else \
            "not measured on this GPU (" + ", ".join(f"{f}.csv" for f in files if f not in have) + ")"
        body.append([name, t["figure"], t["caption"], str(cells), where, ", ".join(f"{f}.csv" for f in files), status, left])
    missing = sorted(set(pub) ^ set(COUNTERPARTS))
    if missing:
        raise KeyError(f"paper/munch/data/appendix_c.py and published.json disagree on the tables {missing}")
    ctx.tables["table_munch_appendix_c"] = table(
        "Table R@: each of the thesis's Appendix C tables, its figure, how many cells it prints, where this report sets "
        "it beside a measurement and from which result file, and which of its cells are not compared and why",
        ["table", "figure", "caption", "cells", "counterpart in this report", "result files", "status", "not compared"],
        body, widths=[7, 8, 17, 7, 22, 14, 10, 15])
