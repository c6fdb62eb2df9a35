"""The 1-D convolution (thesis chapter 4): the thesis's Appendix C beside this rebuild, the speed targets
(bandwidth for short filters, judged at the longest signal measured; FMA peak or the FFT for long ones, at
the thesis's longest signal), and the facts the verdicts use."""
from paper.report.common import MissingData, fmt, l2_bytes, table
from paper.report.facts import available

from ..facts import CONV_DIRECT as DIRECT, T41_CELL, best, by_size
from .shared import cell, ms, signal_text

# The speed targets (paper/report/targets.py; the report's table of targets says who set them and why).
from paper.report.targets import MUNCH_BANDWIDTH_PCT as BANDWIDTH_TARGET_PCT, MUNCH_PEAK_PCT as PEAK_TARGET_PCT  # noqa: E402

FILTERS = [1, 9, 99, 999, 9999, 99999, 999999]
# The short-filter target's candidates: the tiled kernels and the direct streaming kernel
# (convolution_streaming measures them at signals beyond the thesis's longest).
SHORT_FILTERS = [1, 9]
STREAMING = DIRECT + ["direct-constant-r16"]
ALL_GPU = ["thesis-reduction-interleaved", "thesis-reduction-sequential", "thesis-constant384"] + DIRECT + ["cufft"]


def build(ctx, facts):
    pub, roof, conv = facts.published, available(facts.roof), available(facts.convolution)
    gpu = roof.gpu
    g, gflops, gbps, c = conv.gpu_ms, conv.gflops, conv.gbps, conv.cpu_ms
    cpu_threads = conv.cpu_threads
    ctx.n["munch_cpu_threads"] = str(cpu_threads)
    ctx.n["munch_host_cpu"] = conv.host_cpu
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

    targets(ctx, facts, roof, g, gflops, gbps, gpu)
    n = 10000000
    fp32 = roof.fp32_peak
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

    # The thesis's kernel at its profiled cell (Table 4.1: 10^5 samples, 999 taps, three launches).
    per_launch = g[T41_CELL] / 3
    ctx.n.update(munch_t41_ms_per_launch=fmt(per_launch), munch_t41_published_ms=fmt(pub["claims"]["table_4_1_launch_ms"]["value"]),
                 munch_t41_peak_pct=fmt(conv.t41_peak_pct), munch_t41_published_peak_pct=fmt(facts.t41_published_peak_pct))
    ctx.n.update(munch_t41_tiled_factor=fmt(conv.t41_tiled[1]), munch_t41_tiled_variant=conv.t41_tiled[0])


def long_signal_text(n):
    """signal_text, and a·10^k for a single leading digit a (4·10^8)."""
    k = len(str(n)) - 1
    a = n // 10 ** k
    return f"{a}·10^{k}" if k >= 2 and 1 < a < 10 and n == a * 10 ** k else signal_text(n)


def least_bytes(n, w):
    """The least traffic of a convolution (bytes): signal, filter and output once (as `munch bench` counts)."""
    return 4.0 * (n + w + (n + w - 1))


def targets(ctx, facts, roof, g, gflops, gbps, gpu):
    """The targets table. Long filters are judged at the thesis's longest signal (10^7). Short filters are
    judged at the longest signal of convolution_streaming: at 10^7 the least traffic takes a few tens of
    microseconds at the measured bandwidth, the order of a launch and of the grid's tail, so a shortfall
    there says little about how the kernel streams. Without convolution_streaming they are judged at 10^7,
    and the text says so."""
    thesis_n = 10000000
    fp32, bw = roof.fp32_peak, roof.stream_bw
    streaming = facts.files.optional("convolution_streaming")
    if streaming is not None:
        sg = by_size(streaming, "kernel_ms", "variant")
        s_flops = by_size(streaming, "gflops", "variant")
        s_gbps = by_size(streaming, "gbps", "variant")
        short_signals = sorted({n for (_, n, w) in sg if n >= thesis_n and w in SHORT_FILTERS})
        if not short_signals:
            raise MissingData("convolution_streaming.csv: no short-filter rows at 10^7 samples or more",
                              [facts.files.path("convolution_streaming")])
    else:
        sg, s_flops, s_gbps, short_signals = g, gflops, gbps, [thesis_n]
    judged_n = short_signals[-1]

    rows, short_ok, long_ok = [], [], []
    for w in FILTERS:
        fft = g.get(("cufft", thesis_n, w))
        if w in SHORT_FILTERS:
            for n in short_signals:
                direct = best(sg, STREAMING, n, w)
                if direct is None:
                    raise MissingData(f"no direct variant at {n} x {w} (convolution_streaming.csv or convolution_gpu.csv)")
                name, t = direct
                bw_pct = 100 * s_gbps[(name, n, w)] / bw
                peak_pct = 100 * s_flops[(name, n, w)] / fp32
                fft_n = g.get(("cufft", n, w))
                if n == judged_n:
                    verdict = "met" if bw_pct >= BANDWIDTH_TARGET_PCT else "NOT met"
                    short_ok.append(bw_pct >= BANDWIDTH_TARGET_PCT)
                else:
                    verdict = f"not judged (ideal {fmt(least_bytes(n, w) / (bw * 1e9) * 1e6)} µs)"
                rows.append([signal_text(w), long_signal_text(n), name, fmt(t), fmt(bw_pct), fmt(peak_pct), ms(fft_n),
                             "—" if fft_n is None else fmt(t / fft_n), f"{BANDWIDTH_TARGET_PCT} % of bandwidth", verdict])
            continue
        direct = best(g, DIRECT, thesis_n, w)
        if direct is None or fft is None:
            raise MissingData(f"convolution_gpu.csv: no direct variant or no cufft at {thesis_n} x {w}")
        name, t = direct
        bw_pct = 100 * gbps[(name, thesis_n, w)] / bw
        peak_pct = 100 * gflops[(name, thesis_n, w)] / fp32
        if w >= 9999:
            target, met = f"{PEAK_TARGET_PCT} % of FP32 peak, or the FFT", peak_pct >= PEAK_TARGET_PCT or fft < t
            long_ok.append(met)
        else:
            target, met = "(between the two regimes)", None
        rows.append([signal_text(w), signal_text(thesis_n), name, fmt(t), fmt(bw_pct), fmt(peak_pct), fmt(fft), fmt(t / fft), target,
                     "—" if met is None else ("met" if met else "NOT met")])
    ctx.tables["table_munch_targets"] = table(
        f"Table R@: the speed targets on the {gpu}: the fastest direct kernel (ms), its share of the measured streaming "
        f"bandwidth ({fmt(bw)} GB/s, least traffic: signal, filter and output once) and of the measured FP32 FMA peak "
        f"({fmt(fp32 / 1e3)} TFLOP/s, two operations per tap and output), and the cuFFT convolution. Filters from 99 taps on "
        f"at the thesis's longest signal, 10^7; filters of {' and '.join(map(str, SHORT_FILTERS))} taps judged at "
        f"{long_signal_text(judged_n)} samples (shorter signals listed, not judged: ideal = the least traffic at the measured "
        "bandwidth)",
        ["filter", "signal", "fastest direct", "ms", "% bandwidth", "% FP32 peak", "cuFFT ms", "direct / cuFFT", "target", "verdict"],
        rows)
    ctx.n["munch_targets_verdict"] = "met" if all(short_ok) and all(long_ok) else "not met everywhere"

    # The text: the short filter of nine taps at 10^7 (the thesis's grid) and at the judged signal.
    w_short = 9
    at_thesis = best(g, DIRECT, thesis_n, w_short)
    ideal_us = least_bytes(thesis_n, w_short) / (bw * 1e9) * 1e6
    ctx.n.update(munch_conv_short_variant=at_thesis[0], munch_conv_short_bw_pct=fmt(100 * gbps[(at_thesis[0], thesis_n, w_short)] / bw),
                 munch_conv_short_ms=fmt(at_thesis[1]), munch_conv_short_ideal_us=fmt(ideal_us),
                 munch_conv_short_mb=fmt(least_bytes(thesis_n, w_short) / 1e6),
                 munch_conv_short_judged_signal=long_signal_text(judged_n))
    judged = best(sg, STREAMING, judged_n, w_short)
    # Which runs the bandwidth percentages rest on: warm runs (these files were not flushed) whose traffic is
    # larger than the L2 are memory figures; a smaller one would be read from the L2.
    l2 = l2_bytes(facts.files.meta("convolution_gpu"))
    smallest = least_bytes(thesis_n, w_short)
    if l2 is None:
        basis = "the L2 size of this GPU is not recorded, so whether these warm runs read memory or the L2 is not stated"
    elif smallest > l2:
        basis = (f"these percentages rest on warm runs whose least traffic, {fmt(smallest / 2**20)} MiB at "
                 f"{long_signal_text(thesis_n)} samples and more beyond, is larger than the L2 ({fmt(l2 / 2**20)} MiB): "
                 "they are memory figures; shorter signals fit in the L2 and are not judged against the bandwidth "
                 "(the 1e5-sample input is timed warm and cold under 'Cold and warm' below)")
    else:
        basis = (f"the least traffic at {long_signal_text(thesis_n)} samples, {fmt(smallest / 2**20)} MiB, fits in the "
                 f"L2 ({fmt(l2 / 2**20)} MiB): timed warm, it is read from the L2, so its percentage is no memory figure")
    ctx.n["munch_conv_bw_basis_text"] = basis
    if streaming is None:
        ctx.fallback("munch_conv_short_judged_text", "convolution_streaming was not recorded: short filters judged at 10^7",
                     [facts.files.path("convolution_streaming")])
        ctx.n["munch_conv_short_judged_text"] = (
            "the longer signals of the experiment convolution_streaming were not recorded, so the short filters are judged "
            "at 10^7 samples, where the launch and the grid's tail weigh as much as the streaming")
    else:
        ctx.n["munch_conv_short_judged_text"] = (
            f"the short filters are therefore judged at the longest signal measured, {long_signal_text(judged_n)} samples "
            f"(experiment convolution_streaming), where the fastest direct kernel, {judged[0]}, streams at "
            f"{fmt(100 * s_gbps[(judged[0], judged_n, w_short)] / bw)} % of the measured bandwidth in {fmt(judged[1])} ms")
