"""The rolling-ball filter (thesis chapter 5): the thesis's Appendix C beside this rebuild, with the CPU
and the GPU doing the same work (the kept outputs only), and the thesis's speed-ups corrected for the
extra work its CPU code did."""
from paper.report.common import MissingData, fmt, table
from paper.report.facts import available

from ..facts import RB_GPU as GPU, best, by_size
from .shared import cell, cell_text, ms, signal_text, work_ratio

FILTERS = [9, 99, 999, 9999, 99999]


def build(ctx, facts):
    pub, files = facts.published, facts.files
    gpu = available(facts.roof).gpu
    g = by_size(files.rows("rolling_ball_gpu"), "kernel_ms", "variant")
    c = by_size(files.rows("rolling_ball_cpu"), "ms", "implementation")
    rb = available(facts.rolling_ball)
    threads = rb.threads
    body = []
    for w in FILTERS:
        for n in (10000, 100000, 10000000):
            if n < w:
                continue
            his = cell(pub, "C.14", w, n)
            fastest = best(g, GPU, n, w)
            seq = c.get(("sequential", n, w))
            body.append([signal_text(w), signal_text(n), ms(cell(pub, "C.8", w, n)), ms(cell(pub, "C.12", w, n)), ms(his),
                         "—" if his is None else fmt(his / work_ratio(n, w)), ms(seq), ms(c.get(("openmp", n, w))),
                         ms(g.get(("thesis-constant384", n, w))),
                         "—" if fastest is None else f"{fmt(fastest[1])} ({fastest[0]})",
                         "—" if fastest is None or seq is None else fmt(seq / fastest[1])])
    ctx.tables["table_munch_rb"] = table(
        f"Table R@: rolling-ball times in ms. Thesis: sequential CPU (C.8), Quadro FX 3700 kernels (C.12), their ratio (C.14) "
        "and that ratio for equal work (divided by (n + w - 1)/n, the extra positions its CPU code evaluated). This rebuild, "
        f"CPU and GPU evaluating the same n outputs: the host's CPU one thread and {threads}, the thesis's kernels and the fastest "
        f"variant on the {gpu}, and the speed-up of the latter over one CPU thread. — : not measured (work cap, or no CPU "
        "reference could check it) or not in the thesis",
        ["filter", "signal", "C.8 CPU", "C.12 GPU", "C.14", "C.14 equal work", "CPU", "OpenMP", "thesis kernels",
         "fastest GPU (variant)", "speed-up"], body)

    # The headline: 190 (193.2 at 999,999 x 10^6) and the practical instance.
    head_w, head_n = 999999, 1000000
    head = cell(pub, "C.14", head_w, head_n)
    if head is None:
        raise MissingData("paper/munch/published.json: no C.14 cell at 999,999 x 10^6", ["paper/munch/published.json"])
    ctx.n.update(munch_rb_headline=fmt(head), munch_rb_headline_ratio=fmt(work_ratio(head_n, head_w)),
                 munch_rb_headline_equal=fmt(head / work_ratio(head_n, head_w)))
    speedups = rb.speedups
    top = max(speedups, key=speedups.get)
    ctx.n.update(munch_rb_our_max_speedup=fmt(speedups[top]), munch_rb_our_max_cell=cell_text(*top))
    ctx.n.update(munch_rb_omp_speedup=fmt(rb.omp_speedup), munch_rb_omp_cell=cell_text(*rb.omp_cell))
    thesis_vs_tiled = [(g[("thesis-constant384", n, w)] / best(g, GPU[1:], n, w)[1]) for (v, n, w) in g
                       if v == "thesis-constant384" and best(g, GPU[1:], n, w) is not None and n * w >= 10 ** 9]
    if thesis_vs_tiled:
        ctx.n["munch_rb_thesis_vs_tiled"] = fmt(min(thesis_vs_tiled)) + " to " + fmt(max(thesis_vs_tiled))
    else:
        raise MissingData("rolling_ball_gpu.csv: no cell of work >= 10^9 with both the thesis's and a tiled kernel",
                          [files.path("rolling_ball_gpu")])
