"""Figure 5.1: time per work unit of the CPU, of the thesis's first and final GPU versions, and of the
modern-f64 variant beyond the thesis (log scale).

CPU single-core times are the summed CPU time of the concurrent single-threaded slices (cpu_seconds);
the all-core time is wall time; GPU times are kernel time (integral plus likelihood), as in the thesis.
Published: 3-S large only, CPU 346 min, original CUDA 10.2 min, optimised CUDA 8.7 min."""
import pathlib

from figures import common as c

from .shared import published_label, unit_label


def reproduced_seconds(facts):
    """({series label: {work unit: seconds}}, gpu name, cpu name); series in a fixed order."""
    cpu = c.available(facts.cpu)
    speed, cores = cpu.units, cpu.cores

    def series_of(key):
        return {wu: speed[wu][key] for wu in facts.units}
    series = {
        "CPU reference, 1 core": series_of("ref"),
        "CPU fast, 1 core": series_of("fast1"),
        f"CPU fast, {cores} cores": series_of("fastn"),
        f"GPU first ({facts.first})": series_of("first"),
        f"GPU final ({facts.final})": series_of("final"),
        f"GPU beyond the thesis ({facts.modern})": series_of("modern"),
    }
    meta = facts.files.meta("cpu_vs_gpu_cpu")
    return series, c.available(facts.gpu).name, meta.get("host_cpu", "CPU")


def cpu_ranges(facts):
    """{series label: {work unit: (smallest, largest)}} of the CPU runs, for error bars (GPU spreads are
    too small to draw)."""
    cpu_rows = facts.files.rows("cpu_vs_gpu_cpu")
    out = {}
    cores = c.available(facts.cpu).cores
    for label, integrator, threads, value in [("CPU reference, 1 core", "reference", "1", "cpu_seconds"),
                                              ("CPU fast, 1 core", "fast", "1", "cpu_seconds"),
                                              (f"CPU fast, {cores} cores", "fast", str(cores), "seconds")]:
        out[label] = {}
        for wu in facts.units:
            vals = [float(r[value]) for r in cpu_rows
                    if r["integrator"] == integrator and r["threads"] == threads and r["work_unit"] == wu]
            out[label][wu] = (min(vals), max(vals))
    return out


def series_color(label):
    """The same colour for a series in Figs. 5.1 and 5.2: greys for the CPU, blues for the GPU."""
    if label.startswith("CPU"):
        return c.CPU_SHADES[0 if "reference" in label else 1 if "1 core" in label else 2]
    if "beyond" in label:
        return c.MODERN_COLOR
    return c.REPRODUCED_SHADES[0 if "first" in label else 2]


def two_panels(units, published, reproduced, ylabel, title, fmt, gpu, cpu, bottom=None, ranges=None):
    """Left: the published 3-S large bars; right: the reproduced series per work unit; shared log y."""
    fig, (left, right) = c.plt.subplots(1, 2, figsize=(13, 6), sharey=False, width_ratios=[1, 3.2])
    bars = left.bar(list(published), list(published.values()), color=c.PUBLISHED_COLOR, width=0.6)
    left.bar_label(bars, [fmt(v) for v in published.values()], padding=2, fontsize=9)
    left.set_title(f"{published_label()}\n3-S large, Athlon64 X2 CPU", fontsize=11)
    left.tick_params(axis="x", labelrotation=30)
    for t in left.get_xticklabels():
        t.set_horizontalalignment("right")
    left.set_ylabel(ylabel)
    left.set_yscale("log")
    width = 0.8 / len(reproduced)
    for i, (label, per_wu) in enumerate(reproduced.items()):
        xs = [g + (i - (len(reproduced) - 1) / 2) * width for g in range(len(units))]
        ys = [per_wu[wu] for wu in units]
        bars = right.bar(xs, ys, width, color=series_color(label), label=label)
        if ranges and label in ranges:
            lo = [y - ranges[label][wu][0] for y, wu in zip(ys, units)]
            hi = [ranges[label][wu][1] - y for y, wu in zip(ys, units)]
            right.errorbar(xs, ys, yerr=[lo, hi], fmt="none", ecolor="black", elinewidth=0.8, capsize=2)
        right.bar_label(bars, [fmt(y) for y in ys], padding=2, fontsize=8, rotation=90)
    right.set_xticks(range(len(units)), [unit_label(wu) for wu in units])
    right.set_xlabel("work unit")
    right.set_yscale("log")
    right.set_title(f"{c.reproduced_label(gpu)}, CPU: {cpu}", fontsize=11)
    right.legend(loc="upper right", fontsize=9, ncol=2)
    lo, hi = right.get_ylim()
    right.set_ylim(bottom or lo, hi * 30)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def duration(s):
    return f"{s / 60:.3g} min" if s >= 120 else f"{s:.1f} s" if s >= 1 else f"{s * 1000:.0f} ms"


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    reproduced, gpu, cpu = reproduced_seconds(facts)
    cl = facts.published["claims"]
    pub = {"CPU, 1 core": cl["cpu_time_3s_large"]["value"] * 60,
           "CUDA original": cl["cuda_original_time_3s_large"]["value"] * 60,
           "CUDA optimised": cl["cuda_optimised_time_3s_large"]["value"] * 60}
    fig = two_panels(facts.units, pub, reproduced, "time per work unit (s, log scale)",
                     "CPU against GPU (Fig. 5.1): time per work unit\n"
                     "CPU: integrals only, 1 core = summed CPU time of concurrent single-threaded slices, "
                     "bars: median, whiskers: range of the runs; GPU: kernel time (integrals + likelihood)",
                     duration, gpu, cpu, ranges=cpu_ranges(facts))
    return c.save(fig, out_dir, "fig_5_1_cpu_vs_gpu")
