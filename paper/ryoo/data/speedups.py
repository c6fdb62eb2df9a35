"""One application's speed-ups from its app_bench rows, shared by the report (suite.py) and the speed-up figure
(figures/ryoo/fig_ryoo_speedups.py): the fastest GPU variant by kernel rate, its kernel and application speed-ups
over the single-thread CPU, and the shares of its application time. No imports from the report's packages, so
that the figure scripts can load this file on its own."""
import statistics

# The applications of the suite, each with its result file, in the order of the paper's tables: those this
# study built for the suite first, then matrix multiplication and the kirk_hwu study's computations, whose
# files are optional (a recording without them still has the first four).
SUITE = [("elimination", "app_elimination"), ("tpacf", "app_tpacf"), ("rc5", "app_rc5"), ("pns", "app_pns"),
         ("matmul", "app_matmul"), ("mri-q", "app_mri_q"), ("mri-fhd", "app_mri_fhd"), ("cp", "app_cp"),
         ("h264", "app_h264"), ("rpes", "app_rpes"), ("fdtd", "app_fdtd"), ("lbm", "app_lbm"),
         ("fem", "app_fem")]
REQUIRED = {"elimination", "tpacf", "rc5", "pns"}


def medians(rows, value, key=("variant", "part")):
    """{key: median of `value`} over the rows. By default the parameter is left out of the key (the main
    recording of an application has one setting per variant, so the CPU row and the GPU rows meet under one
    key); the sweeps key by ("variant", "parameter", "part")."""
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in key), []).append(float(r[value]))
    return {k: statistics.median(v) for k, v in out.items()}


def best_speedups(rows):
    """(best variant, kernel speed-up, application speed-up, kernel share, transfer share, CPU share in the
    kernel's code) of one application's app_bench rows. Raises KeyError when the CPU or every GPU variant's
    kernel is missing."""
    rate, ms = medians(rows, "rate"), medians(rows, "ms")
    gpu = sorted({v for (v, part) in rate if v != "cpu" and part == "kernel"})
    if not gpu or ("cpu", "kernel") not in rate:
        raise KeyError("needs the CPU and at least one GPU variant's kernel")
    best = max(gpu, key=lambda v: rate[(v, "kernel")])
    return (best, rate[(best, "kernel")] / rate[("cpu", "kernel")],
            rate[(best, "application")] / rate[("cpu", "application")],
            ms[(best, "kernel")] / ms[(best, "application")], ms[(best, "transfer")] / ms[(best, "application")],
            ms[("cpu", "kernel")] / ms[("cpu", "application")])
