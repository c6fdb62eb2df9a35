"""Figure M1: convolution time against signal length, one panel per filter width: the thesis's CPU and GPU
(Appendix C, the refused cells left out) beside this rebuild's CPU and GPU variants."""
from figures import common as c

from .shared import THESIS_LABEL

FILTERS = [1, 9, 99, 999, 9999, 99999, 999999]
# Twelve series share each panel: the thesis's three (orange, told apart by line style), the host's two (greys,
# told apart by marker) and seven GPU variants, each its own hue of a qualitative palette and its own marker,
# so that no two series are told apart by shade alone.
GPU_STYLES = {"thesis-constant384": ("#1f77b4", "o"), "thesis-reduction-interleaved": ("#17becf", "+"),
              "thesis-reduction-sequential": ("#9467bd", "x"), "tiled-constant-r1": ("#8c564b", "s"),
              "tiled-constant-r16": (c.MODERN_COLOR, "D"), "tiled-shared-r16": ("#bcbd22", "v"),
              "cufft": ("#e377c2", "^")}
CPU_STYLES = {"sequential": (c.CPU_SHADES[0], "o"), "openmp": (c.CPU_SHADES[1], "*")}


def make(facts, out_dir):
    pub = facts.published
    conv = c.available(facts.convolution)
    g, cpu = conv.gpu_ms, conv.cpu_ms
    gpu = c.available(facts.roof).gpu
    refused = set(pub["invalid_cells"]["conv_pure_small_filters"]["filters"])
    fig, axes = c.plt.subplots(2, 4, figsize=(16, 8), sharex=True, sharey=True)
    for ax, w in zip(axes.flat, FILTERS):
        for table, label, style in [("C.1", "thesis CPU, 1 thread", "-"), ("C.2", "thesis CPU, OpenMP", "--"), ("C.5", "thesis GPU kernels", ":")]:
            if table == "C.5" and w in refused:
                continue
            t = pub["appendix_c"][table]
            pts = [(n, v) for n, v in zip(t["signals"], t["rows_by_filter"].get(str(w), [])) if v is not None]
            if pts:
                ax.plot(*zip(*pts), style, color=c.PUBLISHED_COLOR, label=label)
        for impl, (shade, marker) in CPU_STYLES.items():
            pts = sorted((n, v) for (i, n, ww), v in cpu.items() if i == impl and ww == w)
            if pts:
                ax.plot(*zip(*pts), "-", color=shade, marker=marker, ms=4, mfc="none", label=f"CPU, {impl}")
        for variant, (color, marker) in GPU_STYLES.items():
            pts = sorted((n, v) for (v_, n, ww), v in g.items() if v_ == variant and ww == w)
            if pts:
                ax.plot(*zip(*pts), "-", color=color, marker=marker, ms=4, lw=1, label=variant)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"filter {w:,} taps")
    if not g:
        raise c.MissingData("convolution_gpu.csv: no valid rows")
    legend_ax = axes.flat[-1]
    handles, labels = {}, {}
    for ax in axes.flat[:-1]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(l, h)
    legend_ax.axis("off")
    legend_ax.legend(list(handles.values()), list(handles.keys()), loc="center", fontsize=9)
    for ax in axes[1]:
        ax.set_xlabel("signal length (samples)")
    for ax in axes[:, 0]:
        ax.set_ylabel("time (ms)")
    fig.suptitle(f"1-D convolution: {THESIS_LABEL} in orange, this rebuild's host in grey, its {gpu} variants "
                 "in one colour and marker each")
    return c.save(fig, out_dir, "fig_convolution")
