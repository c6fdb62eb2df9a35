"""A verdict per claim of the thesis, from the measured facts of the earlier modules, and the cells of its
tables this report refuses to compare, each with its reason."""
import math

from paper.report.common import DIFFERS, NOT_TESTABLE, QUALITATIVE, REPRODUCED, MissingData, fmt, table
from paper.report.facts import available

from ..facts import best, by_size
from .shared import cell, cell_text, ms, signal_text, work_ratio

# The kind of each verdict this study's claims tables print (here and in appendix_b), by its words, in order; every
# row has one (the report's abstract counts them: Output.judged, strict).
VERDICT_WORDS = [
    (r"holds only\b|arithmetic holds\b|.*the shape holds$", QUALITATIVE),
    (r"(still )?holds\b|same order$|seen here too$|exceeded\b", REPRODUCED),
    (r"not testable here$|not re-measured here$", NOT_TESTABLE),
    (r"not compared$|see the numbers$", None),
    (r"weaker here|the gain is smaller here|does not hold|does not follow|longer here|shorter here|later here|"
     r"lower per thread here|not reproduced|not reached|obsolete|inflated as published|.*x (higher|lower) today$", DIFFERS),
]


def build(ctx, facts):
    pub, files = facts.published, facts.files
    cl = pub["claims"]
    gpu = available(facts.roof).gpu
    conv = available(facts.convolution)
    launches, copies = available(facts.launches), available(facts.copies)
    ieee, rb = available(facts.ieee), available(facts.rolling_ball)
    g, c = conv.gpu_ms, conv.cpu_ms
    threads = conv.cpu_threads
    rows = []

    def claim(what, source, theirs, ours, verdict):
        rows.append([what, source, theirs, ours, verdict])

    # OpenMP: about 4 on 4 cores, i.e. near one per core.
    omp = {(n, w): c[("sequential", n, w)] / c[("openmp", n, w)] for (i, n, w) in c if i == "sequential" and ("openmp", n, w) in c}
    big = max(omp, key=lambda k: k[0] * k[1])
    per_core = omp[big] / threads
    claim("OpenMP convolution speed-up converges to the core count", cl["conv_openmp_speedup"]["source"],
          f"≈ {fmt(cl['conv_openmp_speedup']['value'])} on 4 cores",
          f"{fmt(omp[big])} on {threads} threads ({cell_text(*big)})",
          "holds" if per_core >= 0.75 else f"weaker here ({fmt(per_core)} per thread)")

    # GPU attempt 1 against the sequential CPU, before and after the reduction optimisations.
    naive, tuned = "thesis-reduction-interleaved", "thesis-reduction-sequential"
    common = [k for k in c if k[0] == "sequential" and (naive, k[1], k[2]) in g and (tuned, k[1], k[2]) in g]
    if not common:
        raise MissingData("no cell with the sequential CPU and both trees of the first attempt",
                          [files.path("convolution_cpu"), files.path("convolution_gpu")])
    k = max(common, key=lambda k: k[1] * k[2])
    first, second = c[k] / g[(naive, k[1], k[2])], c[k] / g[(tuned, k[1], k[2])]
    published_gain = cl["conv_attempt1_optimised_speedup"]["value"] / cl["conv_attempt1_speedup"]["value"]
    claim("Block reduction per output: Harris's optimisations make it several times faster",
          cl["conv_attempt1_optimised_speedup"]["source"],
          f"{fmt(cl['conv_attempt1_speedup']['value'])}x, then {fmt(cl['conv_attempt1_optimised_speedup']['value'])}x over one CPU "
          f"thread (a gain of {fmt(published_gain)})",
          f"{fmt(first)}x, then {fmt(second)}x over one CPU thread (a gain of {fmt(second / first)}; {cell_text(k[1], k[2])})",
          "holds" if second / first >= 2 else "the gain is smaller here")

    # The thesis's kernel was "near-perfect" (Table 4.1).
    claim("The constant-memory kernel is near-perfect (profiler: full occupancy, no divergence)", cl["table_4_1_launch_ms"]["source"],
          f"{fmt(facts.t41_published_peak_pct)} % of the FX 3700's peak (derived)",
          f"{fmt(conv.t41_peak_pct)} % of the measured FP32 peak; the tiled kernel is {fmt(conv.t41_tiled[1])}x faster",
          "does not hold: occupancy is not speed")

    # Overhead never below about 25 ms.
    over = by_size(files.rows("convolution_overhead"), "total_ms", "variant")
    kern = by_size(files.rows("convolution_overhead"), "kernel_ms", "variant")
    overheads = [over[k] - kern[k] for k in over]
    if not overheads:
        raise MissingData("convolution_overhead.csv: no rows with a total time", [files.path("convolution_overhead")])
    conv_body = []
    for n, w in sorted({(n, w) for (_, n, w) in over}, key=lambda k: (k[1], k[0])):
        variants = sorted({v for (v, nn, ww) in over if (nn, ww) == (n, w)})
        fastest = best(over, variants, n, w)
        seq = c.get(("sequential", n, w))
        conv_body.append([signal_text(w), signal_text(n), ms(cell(pub, "C.4", w, n)), ms(cell(pub, "C.6", w, n)),
                          "—" if cell(pub, "C.7", w, n) is None else fmt(cell(pub, "C.7", w, n)),
                          f"{fmt(fastest[1])} ({fastest[0]})", fmt(fastest[1] - kern[(fastest[0], n, w)]), ms(seq),
                          "—" if seq is None else fmt(seq / fastest[1])])
    ctx.tables["table_munch_conv_overhead"] = table(
        "Table R@: the convolution with overhead (allocation and copies included), in ms. Thesis: the Quadro FX 3700's "
        "total (C.4), its overhead (C.6) and its speed-up over one CPU thread (C.7); its cells for filters of up to 99 taps "
        f"rest on kernel times this report refuses. This rebuild on the {gpu}: the fastest variant's total, its overhead "
        "(total minus kernel), one CPU thread and the speed-up over it. — : not measured or not in the thesis",
        ["filter", "signal", "C.4 total", "C.6 overhead", "C.7 speed-up", "total (variant)", "overhead", "CPU", "speed-up"],
        conv_body)
    claim("GPU overhead (allocation, copies) never below about 25 ms", cl["conv_overhead_floor_ms"]["source"],
          f"≥ {fmt(cl['conv_overhead_floor_ms']['value'])} ms", f"{fmt(min(overheads))} to {fmt(max(overheads))} ms",
          "obsolete" if min(overheads) < cl["conv_overhead_floor_ms"]["value"] / 5 else "holds")

    # The launch cost.
    claim("An empty launch costs about 8 µs when many are made", cl["launch_overhead_many_us"]["source"],
          f"≈ {fmt(cl['launch_overhead_many_us']['value'])} µs", f"{fmt(launches.sync_us)} µs synchronised, "
          f"{fmt(launches.async_us)} µs back to back, {fmt(launches.graph_us)} µs from a graph",
          order_verdict(launches.sync_us / cl["launch_overhead_many_us"]["value"]))
    claim("A single isolated call costs about 300 µs", cl["launch_overhead_single_us"]["source"],
          f"≈ {fmt(cl['launch_overhead_single_us']['value'])} µs",
          f"{fmt(launches.first_lazy_us)} µs (lazy loading), {fmt(launches.first_eager_us)} µs (eager)",
          "holds only with lazy module loading" if launches.first_lazy_us > 3 * launches.first_eager_us else "see the numbers")
    ctx_ms = launches.context_ms_lazy
    claim("The first CUDA call initialises for 40-90 ms", cl["init_ms_low"]["source"],
          f"{fmt(cl['init_ms_low']['value'])}-{fmt(cl['init_ms_high']['value'])} ms", f"{fmt(launches.context_ms_lazy)} ms",
          "holds" if cl["init_ms_low"]["value"] <= ctx_ms <= cl["init_ms_high"]["value"] else
          ("longer here" if ctx_ms > cl["init_ms_high"]["value"] else "shorter here"))

    # Copies.
    top = min(copies.pinned_htod, copies.pinned_dtoh)
    claim("Pinned copies plateau at about 4 GB/s from about 1 MB", cl["copy_plateau_gb_s"]["source"],
          f"≈ {fmt(cl['copy_plateau_gb_s']['value'])} GB/s", f"{fmt(copies.pinned_htod)} / {fmt(copies.pinned_dtoh)} GB/s, "
          f"nine tenths from {fmt(copies.pinned_reach / 1024, 4)} KiB",
          f"{fmt(top / cl['copy_plateau_gb_s']['value'])}x higher today; the shape holds" if top > cl["copy_plateau_gb_s"]["value"] else "holds")
    inv = copies.inversions
    claim("Copies of 4 kB-1.5 MB were faster than smaller ones", "S4 section 6.2, Figure 6.4", "observed, blamed on a BIOS",
          f"{inv} inversions among the pinned sizes up to 1.5 MB", "not reproduced" if inv == 0 else "seen here too")

    # IEEE.
    d, f, count = ieee.default, ieee.fast, ieee.count
    div = d[("division", "correctly rounded a/b")] + d[("sqrt", "correctly rounded sqrt")]
    flushed = d[("denormal_scale", "results flushed to zero")]
    claim("Single precision: denormals flushed, division and square root less precise than IEEE", "S4 section 6.4",
          "stated, not measured",
          f"default build: {div} of {fmt(2 * count, 7)} quotients and roots differ, {flushed} denormals flushed; "
          f"-use_fast_math: {f[('division', 'correctly rounded a/b')] + f[('sqrt', 'correctly rounded sqrt')]} differ, "
          f"{f[('denormal_scale', 'results flushed to zero')]} flushed",
          "obsolete by default; -use_fast_math brings it back" if div == 0 and flushed == 0 else "still holds")

    # Rolling ball.
    head_w, head_n = 999999, 1000000
    head = cell(pub, "C.14", head_w, head_n)
    if head is None:
        raise MissingData("paper/munch/published.json: no C.14 cell at 999,999 x 10^6", ["paper/munch/published.json"])
    fastest_cell = max(rb.speedups, key=rb.speedups.get)
    claim("Rolling ball up to 190x over one CPU thread (kernels only)", cl["rb_speedup_kernel_max"]["source"],
          f"{fmt(head)} (equal work: {fmt(head / work_ratio(head_n, head_w))})",
          f"up to {fmt(rb.speedups[fastest_cell])} at {cell_text(*fastest_cell)}, same work on both",
          "inflated as published: halve it near signal = filter")
    overhead_speedup, overhead_text = conv_overhead_speedup(ctx, c, over)
    claim("Convolution with overhead up to about 80x over one CPU thread", cl["conv_speedup_max"]["source"],
          f"≈ {fmt(cl['conv_speedup_max']['value'])} ({fmt(table_max(pub, 'C.7'))} in C.7)", overhead_text,
          "exceeded, against today's CPU" if overhead_speedup > cl["conv_speedup_max"]["value"]
          else "not reached on the measured cells")

    # The rolling ball with overhead (allocation and copies included), against the 4-thread OpenMP CPU (C.11, C.13,
    # C.15), and the OpenMP rolling ball's own speed-up.
    rb_cpu = by_size(files.rows("rolling_ball_cpu"), "ms", "implementation")
    rb_total = by_size(files.rows("rolling_ball_overhead"), "total_ms", "variant")
    rb_kernel = by_size(files.rows("rolling_ball_overhead"), "kernel_ms", "variant")
    cells = sorted({(n, w) for (_, n, w) in rb_total}, key=lambda k: (k[1], k[0]))
    body, real = [], {}
    for n, w in cells:
        variants = sorted({v for (v, nn, ww) in rb_total if (nn, ww) == (n, w)})
        fastest = best(rb_total, variants, n, w)
        omp_ms = rb_cpu.get(("openmp", n, w))
        if fastest is not None and omp_ms is not None:
            real[(n, w)] = omp_ms / fastest[1]
        body.append([signal_text(w), signal_text(n), ms(cell(pub, "C.11", w, n)), ms(cell(pub, "C.13", w, n)),
                     ms(cell(pub, "C.15", w, n)) if cell(pub, "C.15", w, n) is None else fmt(cell(pub, "C.15", w, n)),
                     "—" if fastest is None else f"{fmt(fastest[1])} ({fastest[0]})",
                     "—" if fastest is None else fmt(fastest[1] - rb_kernel[(fastest[0], n, w)]),
                     ms(omp_ms), "—" if (n, w) not in real else fmt(real[(n, w)])])
    ctx.tables["table_munch_rb_overhead"] = table(
        f"Table R@: the rolling ball with overhead (allocation and copies included), in ms. Thesis: the Quadro FX 3700's "
        "total (C.11), its overhead (C.13) and its speed-up over the 4-thread OpenMP CPU (C.15). This rebuild on the "
        f"{gpu}: the fastest variant's total, its overhead (total minus kernel), the host's OpenMP CPU ({threads} "
        "threads) and the speed-up over it. — : not measured or not in the thesis",
        ["filter", "signal", "C.11 total", "C.13 overhead", "C.15 speed-up", "total (variant)", "overhead", "OpenMP CPU",
         "speed-up"], body)
    if real:
        k = max(real, key=real.get)
        claim("Rolling ball with overhead up to about 50x over the 4-thread OpenMP CPU", cl["rb_speedup_real_max"]["source"],
              f"≈ {fmt(cl['rb_speedup_real_max']['value'])} ({fmt(table_max(pub, 'C.15'))} in C.15)",
              f"up to {fmt(real[k])} over {threads} threads at {cell_text(*k)} (cells measured with overhead)",
              "exceeded, against today's CPU" if real[k] > cl["rb_speedup_real_max"]["value"] else "not reached on the measured cells")
    rb_omp, rb_threads = rb.omp_speedup, rb.threads
    claim("OpenMP rolling ball almost 4x on 4 cores for size x filter > 100,000", cl["rb_openmp_speedup"]["source"],
          f"≈ {fmt(cl['rb_openmp_speedup']['value'])} on 4 cores", f"{fmt(rb_omp)} on {rb_threads} threads ({cell_text(*rb.omp_cell)})",
          "holds" if rb_omp / rb_threads >= 0.75 else f"weaker here ({fmt(rb_omp / rb_threads)} per thread)")
    claim("The display driver's watchdog ends kernels after 2-5 s (TDR)", cl["watchdog_s_low"]["source"],
          f"{fmt(cl['watchdog_s_low']['value'])}-{fmt(cl['watchdog_s_high']['value'])} s",
          "no display is attached to the measured GPU: no watchdog applies", "not testable here")

    plateau = cl["copy_plateau_from_bytes"]
    reach = copies.pinned_reach
    claim("Copies reach their upper bound from about 1 MB (pinned host memory)", plateau["source"],
          f"≈ {fmt(plateau['value'] / 1048576)} MiB", f"nine tenths of the highest rate from {fmt(reach / 1048576)} MiB",
          "holds" if reach <= 2 * plateau["value"] else "later here")
    # The load of a tree reduction over n threads, from the counts the thesis states: 2n - 1 active and
    # n log2 n - n + 1 idle units of thread time, over log2 n steps.
    red = cl["reduction_load_pct"]
    nt = red["n"]
    steps = math.log2(nt)
    active, idle = 2 * nt - 1, nt * steps - nt + 1
    over_idle, over_all = 100 * active / idle, 100 * active / (active + idle)
    claim(f"A tree reduction over {nt} threads keeps them loaded only a small share of the time", red["source"],
          f"{fmt(red['value'])}%",
          f"from its stated counts: active over idle {fmt(over_idle)}%, active over all thread time {fmt(over_all)}%",
          "arithmetic holds as active over idle time; as a share of all thread time the load is lower"
          if abs(over_idle - red["value"]) < 0.1 else "does not follow from the stated counts")
    ctx.tables["table_munch_claims"] = table(
        f"Table R@: the thesis's claims, each with its source, the published value, this rebuild's ({gpu}) and a verdict",
        ["claim", "source", "thesis", "this rebuild", "verdict"], rows, widths=[24, 18, 16, 26, 16])
    ctx.judged(rows, "S4", VERDICT_WORDS, strict=True, published=2, value=3)

    refused = []
    for key, r in pub["invalid_cells"].items():
        refused.append([", ".join(r["tables"]), "filters " + ", ".join(signal_text(f) for f in r["filters"]) +
                        (" at " + ", ".join(signal_text(s) for s in r["signals"]) if "signals" in r else ""), "invalid", r["reason"]])
    for key, r in pub["inflated"].items():
        refused.append([", ".join(r["tables"]), "all cells", "inflated", r["reason"]])
    refused.append(["C.1-C.15", "work (signal x filter) beyond each run's cap", "not re-measured",
                    "hours of CPU time at the largest cells; the caps are stated in each experiment's definition"])
    refused.append(["C.12, C.14", "rolling balls of 99,999 and 999,999 taps over 10^6 or more samples", "not re-measured",
                    "no CPU reference within the run's budget could check the output, and no unchecked output is timed"])
    ctx.tables["table_munch_refused"] = table("Table R@: cells of the thesis's tables this report does not compare, and why",
                                              ["tables", "cells", "status", "reason"], refused, widths=[12, 24, 12, 52])


def conv_overhead_speedup(ctx, c, over):
    """The largest speed-up of the convolution with overhead over one CPU thread, and its cell in words."""
    pairs = [(c[("sequential", n, w)] / over[(v, n, w)], v, n, w) for (v, n, w) in over if ("sequential", n, w) in c]
    if not pairs:
        raise MissingData("no cell with both the sequential CPU and a with-overhead GPU time")
    s, v, n, w = max(pairs)
    ctx.n["munch_conv_overhead_speedup"] = fmt(s)
    return s, f"{fmt(s)}x ({v}, {cell_text(n, w)}, allocation and copies included)"


def order_verdict(ratio):
    """Whether a measured value is of the published one's order (within a factor of three) or how far off."""
    if 1 / 3 <= ratio <= 3:
        return "same order"
    return f"{fmt(1 / ratio)}x lower today" if ratio < 1 else f"{fmt(ratio)}x higher today"


def table_max(pub, name):
    """The largest printed cell of an Appendix C table."""
    return max(v for row in pub["appendix_c"][name]["rows_by_filter"].values() for v in row if v is not None)
