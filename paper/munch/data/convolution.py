"""The 1-D convolution (thesis chapter 4): the thesis's Appendix C beside this rebuild, the speed targets
(bandwidth for short filters, FMA peak or the FFT for long ones), and the facts the verdicts use."""
from report.common import MissingData, fmt, table

from .shared import SIGNALS, best, by_size, cell, ms, need_fact, published, signal_text

FILTERS = [1, 9, 99, 999, 9999, 99999, 999999]
DIRECT = ["tiled-constant-r16", "tiled-shared-r16", "tiled-constant-r1"]
ALL_GPU = ["thesis-reduction-interleaved", "thesis-reduction-sequential", "thesis-constant384"] + DIRECT + ["cufft"]


def build(ctx):
    pub = published()
    gpu = need_fact(ctx, "gpu")
    g = by_size(ctx.rows("convolution_gpu"), "kernel_ms", "variant")
    gflops = by_size(ctx.rows("convolution_gpu"), "gflops", "variant")
    gbps = by_size(ctx.rows("convolution_gpu"), "gbps", "variant")
    c = by_size(ctx.rows("convolution_cpu"), "ms", "implementation")
    cpu_threads = max(int(r["threads"]) for r in ctx.rows("convolution_cpu"))
    ctx.facts.update(conv_gpu=g, conv_cpu=c, cpu_threads=cpu_threads)
    ctx.n["munch_cpu_threads"] = str(cpu_threads)
    host = ctx.meta("convolution_cpu").get("host_cpu", "")
    ctx.n["munch_host_cpu"] = host
    refused = set(pub["invalid_cells"]["conv_pure_small_filters"]["filters"])

    body = []
    for w in FILTERS:
        for n in (100000, 10000000):
            if n < w:
                continue
            his_gpu = cell(pub, "C.5", w, n)
            fastest = best(g, ALL_GPU, n, w)
            body.append([signal_text(w), signal_text(n), ms(cell(pub, "C.1", w, n)), ms(cell(pub, "C.2", w, n)),
                         "refused" if w in refused else ms(his_gpu),
                         ms(c.get(("sequential", n, w))), ms(c.get(("openmp", n, w))), ms(g.get(("thesis-constant384", n, w))),
                         "—" if fastest is None else f"{fmt(fastest[1])} ({fastest[0]})"])
    ctx.tables["table_munch_conv"] = table(
        f"Table R@: convolution times in ms. Thesis (Appendix C): Xeon E5430 one thread (C.1) and four (C.2), Quadro FX 3700 "
        f"kernel loop (C.5; refused for filters up to 99: see the refused cells). This rebuild: the host's CPU one "
        f"thread and {cpu_threads}, the thesis's kernel on the {gpu}, and the fastest GPU variant. — : not measured (beyond "
        "the run's work cap) or not in the thesis",
        ["filter", "signal", "C.1 CPU", "C.2 OpenMP", "C.5 GPU", "CPU", "OpenMP", "thesis kernel", "fastest GPU (variant)"], body)

    # The speed targets at the longest signal.
    n = 10000000
    fp32, bw = need_fact(ctx, "fp32_peak"), need_fact(ctx, "stream_bw")
    rows, short_ok, long_ok = [], [], []
    for w in FILTERS:
        direct = best(g, DIRECT, n, w)
        fft = g.get(("cufft", n, w))
        if direct is None or fft is None:
            raise MissingData(f"convolution_gpu.csv: no direct variant or no cufft at {n} x {w}")
        name, t = direct
        bw_pct = 100 * gbps[(name, n, w)] / bw
        peak_pct = 100 * gflops[(name, n, w)] / fp32
        if w <= 9:
            target, met = "80 % of bandwidth", bw_pct >= 80
            short_ok.append(met)
        elif w >= 9999:
            target, met = "70 % of FP32 peak, or the FFT", peak_pct >= 70 or fft < t
            long_ok.append(met)
        else:
            target, met = "(between the two regimes)", None
        rows.append([signal_text(w), name, fmt(t), fmt(bw_pct), fmt(peak_pct), fmt(fft), fmt(t / fft), target,
                     "—" if met is None else ("met" if met else "NOT met")])
    ctx.tables["table_munch_targets"] = table(
        f"Table R@: the speed targets at 10^7 samples on the {gpu}: the fastest direct kernel (ms), its share of the measured "
        f"streaming bandwidth ({fmt(bw)} GB/s, least traffic: signal, filter and output once) and of the measured FP32 FMA peak "
        f"({fmt(fp32 / 1e3)} TFLOP/s, two operations per tap and output), and the cuFFT convolution",
        ["filter", "fastest direct", "ms", "% bandwidth", "% FP32 peak", "cuFFT ms", "direct / cuFFT", "target", "verdict"], rows)
    ctx.facts.update(conv_targets_short=all(short_ok), conv_targets_long=all(long_ok))
    w_short = 9
    d_short = best(g, DIRECT, n, w_short)
    ctx.n.update(munch_conv_short_bw_pct=fmt(100 * gbps[(d_short[0], n, w_short)] / bw), munch_conv_short_variant=d_short[0])
    w_long = 99999
    d_long = best(g, DIRECT, n, w_long)
    ctx.n.update(munch_conv_long_peak_pct=fmt(100 * gflops[(d_long[0], n, w_long)] / fp32), munch_conv_long_variant=d_long[0],
                 munch_conv_long_ms=fmt(d_long[1]))
    fft_long = g[("cufft", n, w_long)]
    ctx.n["munch_conv_long_fft_phrase"] = (f"cuFFT takes {fmt(fft_long)} ms, {fmt(d_long[1] / fft_long)} times less"
                                           if fft_long < d_long[1] else
                                           f"cuFFT takes {fmt(fft_long)} ms, {fmt(fft_long / d_long[1])} times more")
    crossover = next((w for w in FILTERS if g[("cufft", n, w)] < best(g, DIRECT, n, w)[1]), None)
    ctx.n["munch_fft_crossover_text"] = ("the FFT is faster at none of the widths measured" if crossover is None else
                                         f"from a filter of {signal_text(crossover)} taps on, the FFT is faster")
    ctx.n["munch_targets_verdict"] = "met" if all(short_ok) and all(long_ok) else "not met everywhere"

    # The thesis's kernel at its profiled cell (Table 4.1: 10^5 samples, 999 taps, three launches).
    key = ("thesis-constant384", 100000, 999)
    if key not in g:
        raise MissingData("convolution_gpu.csv: no thesis-constant384 at 10^5 x 999 (the thesis's profiled cell)")
    per_launch = g[key] / 3
    ctx.n.update(munch_t41_ms_per_launch=fmt(per_launch), munch_t41_published_ms=fmt(pub["claims"]["table_4_1_launch_ms"]["value"]),
                 munch_t41_peak_pct=fmt(100 * gflops[key] / fp32),
                 munch_t41_published_peak_pct=fmt(100 * 2 * 264 * 384 * 384 / (pub["claims"]["table_4_1_launch_ms"]["value"] * 1e-3) / 1e9
                                                  / pub["hardware"]["gpu_peak_gflops_derived"]))
    tiled = best(g, DIRECT, 100000, 999)
    ctx.n.update(munch_t41_tiled_factor=fmt(g[key] / tiled[1]), munch_t41_tiled_variant=tiled[0])
