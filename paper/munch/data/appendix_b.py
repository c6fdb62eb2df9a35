"""The thesis's Appendix B (the rolling ball on a Quadro FX 1700 and a two-core Core 2 Duo; figures only,
no tables) set beside this rebuild, and the instance it calls practical (about 10^5 samples and 10^4 taps)
timed on the CPU, with OpenMP and on the GPU with allocation and copies."""
from paper.report.common import MissingData, fmt, table
from paper.report.facts import available

from ..facts import best, by_size
from .shared import cell, cell_text, ms, signal_text
from .verdicts import VERDICT_WORDS


def num(v):
    """A published value as the thesis states it (no padding of significant digits)."""
    return f"{v:g}"


def build(ctx, facts):
    pub, files = facts.published, facts.files
    b = pub["appendix_b"]
    gpu = available(facts.roof).gpu
    rb = available(facts.rolling_ball)
    rb_omp, threads = rb.omp_speedup, rb.threads
    speedups = rb.speedups
    cpu = by_size(files.rows("rolling_ball_cpu"), "ms", "implementation")
    total = by_size(files.rows("rolling_ball_overhead"), "total_ms", "variant")
    kernel = by_size(files.rows("rolling_ball_overhead"), "kernel_ms", "variant")
    overheads = [total[k] - kernel[k] for k in total]
    if not overheads:
        raise MissingData("rolling_ball_overhead.csv: no rows with a total time", [files.path("rolling_ball_overhead")])
    real = {}
    for (v, n, w) in total:
        fastest = best(total, sorted({vv for (vv, nn, ww) in total if (nn, ww) == (n, w)}), n, w)
        if ("openmp", n, w) in cpu and fastest is not None:
            real[(n, w)] = cpu[("openmp", n, w)] / fastest[1]
    big = [k for k in real if k[0] * k[1] > b["real_speedup_max"]["min_work"]]
    cores = b["openmp_speedup"]["cores"]
    rows = []
    theirs_eff = b["openmp_speedup"]["value"] / cores
    rows.append([f"OpenMP rolling ball on {cores} cores, work > {signal_text(b['openmp_speedup']['min_work'])}", b["openmp_speedup"]["source"],
                 f"{num(b['openmp_speedup']['value'])} on {cores} cores ({fmt(theirs_eff)} per core)",
                 f"{fmt(rb_omp)} on {threads} threads ({fmt(rb_omp / threads)} per thread; {cell_text(*rb.omp_cell)})",
                 "holds per core" if rb_omp / threads >= 0.8 * theirs_eff else "lower per thread here"])
    rows.append([f"GPU overhead never below about {num(b['overhead_floor_ms']['value'])} ms", b["overhead_floor_ms"]["source"],
                 f"≥ {num(b['overhead_floor_ms']['value'])} ms", f"{fmt(min(overheads))} to {fmt(max(overheads))} ms",
                 "obsolete" if min(overheads) < b["overhead_floor_ms"]["value"] / 5 else "holds"])
    top = max(speedups, key=speedups.get)
    rows.append([f"GPU without overhead up to {num(b['kernel_speedup_max']['value'])} times the sequential CPU", b["kernel_speedup_max"]["source"],
                 f"{num(b['kernel_speedup_max']['value'])}", f"up to {fmt(speedups[top])} at {cell_text(*top)}",
                 "exceeded" if speedups[top] > b["kernel_speedup_max"]["value"] else "not reached on the measured cells"])
    if big:
        k = max(big, key=real.get)
        ours = f"up to {fmt(real[k])} over {threads} threads at {cell_text(*k)} (cells measured with overhead)"
        verdict = "exceeded, against a CPU of many more cores" if real[k] > b["real_speedup_max"]["value"] else \
            "not reached: the CPU of today has many more cores"
    else:
        ours, verdict = "no cell above that work was measured with overhead", "not compared"
    rows.append([f"GPU with overhead up to {num(b['real_speedup_max']['value'])} times the dual-core OpenMP CPU, work > {signal_text(b['real_speedup_max']['min_work'])}", b["real_speedup_max"]["source"],
                 f"{num(b['real_speedup_max']['value'])}", ours, verdict])
    rows.append(["FX 3700 against FX 1700: measured against expected (SMs x clock)", b["fx3700_over_fx1700_measured"]["source"],
                 f"{num(b['fx3700_over_fx1700_measured']['value'])} against {num(b['fx3700_over_fx1700_expected']['value'])}",
                 "one GPU model here; the same ratio of SMs is emulated with green contexts in the likelihood study's scalability chapter (its table of scaling verdicts)",
                 "not re-measured here"])
    copies = available(facts.copies)
    for key, what, ours, memory in (("copy_htod_gb_s", "host to device", copies.pinned_htod, "pinned host memory"),
                                    ("copy_dtoh_gb_s", "device to host", copies.pinned_dtoh, "pinned host memory"),
                                    ("copy_dtod_gb_s", "device to device", copies.dtod, "within device memory")):
        rows.append([f"Copy plateau {what}", b[key]["source"], f"≈ {num(b[key]['value'])} GB/s", f"{fmt(ours)} GB/s ({memory})",
                     f"{fmt(ours / b[key]['value'])}x higher today"])
    ctx.tables["table_munch_appendix_b"] = table(
        f"Table R@: the thesis's second machine ({b['hardware']['gpu']}, {b['hardware']['gpu_sms']} SMs; "
        f"{b['hardware']['cpu']}), its statements beside this rebuild's ({gpu}, the host's CPU on {threads} threads). "
        "Its figures print no values: only the numbers its text states are compared",
        ["statement", "source", "thesis (Appendix B)", "this rebuild", "verdict"], rows, widths=[24, 20, 14, 28, 14])
    ctx.judged(rows, "S4", VERDICT_WORDS, strict=True, published=2, value=3)

    # The practical instance: about 10^5 samples and 10^4 taps; the nearest cell of the thesis's grid (a ball of
    # odd width) is 10^5 x 9,999.
    n = b["practical_signal"]["value"]
    w = min({ww for (_, nn, ww) in cpu if nn == n} | {10 ** 9}, key=lambda ww: abs(ww - b["practical_filter"]["value"]))
    seq, omp = cpu.get(("sequential", n, w)), cpu.get(("openmp", n, w))
    variants = sorted({v for (v, nn, ww) in total if (nn, ww) == (n, w)})
    fastest = best(total, variants, n, w)
    if seq is None or omp is None or fastest is None:
        raise MissingData(f"rolling_ball_cpu.csv and rolling_ball_overhead.csv: the practical instance (signal {n}, a filter "
                          f"near {b['practical_filter']['value']}) needs a sequential, an OpenMP and a with-overhead time",
                          [files.path("rolling_ball_cpu"), files.path("rolling_ball_overhead")])
    body = [
        ["sequential CPU (ms)", ms(cell(pub, "C.8", w, n)), ms(seq)],
        [f"OpenMP CPU (ms; thesis 4 cores, here {threads} threads)", ms(cell(pub, "C.9", w, n)), ms(omp)],
        ["GPU kernels (ms)", ms(cell(pub, "C.12", w, n)), f"{ms(kernel[(fastest[0], n, w)])} ({fastest[0]})"],
        ["GPU with overhead (ms)", ms(cell(pub, "C.11", w, n)), f"{ms(fastest[1])} ({fastest[0]})"],
        ["speed-up with overhead over OpenMP", fmt(cell(pub, "C.15", w, n)), fmt(omp / fastest[1])],
        ["speed-up with overhead over one CPU thread", fmt(cell(pub, "C.8", w, n) / cell(pub, "C.11", w, n)), fmt(seq / fastest[1])],
    ]
    ctx.tables["table_munch_practical"] = table(
        f"Table R@: the instance Appendix B calls practical, {cell_text(n, w)} (the nearest cell of the thesis's grid), "
        f"thesis (Quadro FX 3700, Xeon, Appendix C) and this rebuild ({gpu}); the thesis's CPU codes evaluated "
        f"{fmt((n + w - 1) / n)} times the positions its GPU code did, and its OpenMP dilation has a race",
        ["quantity", "thesis", "this rebuild"], body)
    ctx.n.update(munch_practical_cell=cell_text(n, w), munch_practical_speedup=fmt(omp / fastest[1]),
                 munch_practical_published=fmt(cell(pub, "C.15", w, n)), munch_practical_seq_ms=fmt(seq),
                 munch_practical_omp_ms=fmt(omp), munch_practical_gpu_ms=fmt(fastest[1]))
