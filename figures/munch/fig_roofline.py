"""Figure M3: the measured roofline (FP32 and FP64 FMA peaks, streaming bandwidth) with this study's
kernels at ten million samples, and the kernels of the other studies where their results are present:
the likelihood kernels of mwsep from their profiler metrics (FP64 pipe use: a height, no arithmetic
intensity was recorded), the matrix-multiplication ladder of ryoo from its profiler counts (fused
multiply-adds and DRAM bytes of one launch), and any other study that records roofline points
(roofline_points.csv with the columns kernel, flops_per_byte, gflops)."""
from figures import common as c

from .shared import by_size

N = 10000000
DIRECT = ["tiled-constant-r16", "tiled-shared-r16", "tiled-constant-r1", "thesis-constant384"]


def make(facts, out_dir):
    roof, files = c.available(facts.roof), facts.files
    fp32, fp64, bw = roof.fp32_peak, roof.fp64_peak, roof.stream_bw
    gpu = roof.gpu
    gpu_folder = files.results.parent
    fig, ax = c.plt.subplots(figsize=(11, 6.5))
    xs = [2 ** (k / 4) for k in range(-16, 84)]
    ax.plot(xs, [min(fp32, bw * x) for x in xs], color="black", label=f"FP32 roof ({fp32 / 1e3:.1f} TFLOP/s, {bw:.0f} GB/s)")
    ax.plot(xs, [min(fp64, bw * x) for x in xs], color="black", ls="--", label=f"FP64 roof ({fp64 / 1e3:.1f} TFLOP/s)")
    for name, marker, what in [("convolution_gpu", "o", "convolution"), ("rolling_ball_gpu", "s", "rolling ball")]:
        rows = files.rows(name)
        ms, flops, gbps = by_size(rows, "variant", "kernel_ms"), by_size(rows, "variant", "gflops"), by_size(rows, "variant", "gbps")
        widths = sorted({w for (v, n, w) in ms if n == N})
        for group, members, color in [("fastest tiled kernel", [v for v in DIRECT if v.startswith("tiled")], c.MODERN_COLOR),
                                      ("the thesis's kernel", ["thesis-constant384"], c.REPRODUCED_SHADES[0])]:
            pts = []
            for w in widths:
                found = [(ms[(v, N, w)], v) for v in members if (v, N, w) in ms]
                if found:
                    v = min(found)[1]
                    pts.append((flops[(v, N, w)] / gbps[(v, N, w)], flops[(v, N, w)], w))
            if pts:
                ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, color=color, s=30, label=f"{what}, {group}")
                for x, y, w in pts:
                    ax.annotate(f"{w:,}", (x, y), fontsize=7, xytext=(4, -8 if marker == "s" else 3), textcoords="offset points")
    notes = [f"this study at {N:,} samples, labelled by filter width"]
    mwsep = files.optional("ncu_fp64", gpu_folder / "mwsep", check_valid=False)
    if mwsep is not None:
        ys = [float(r["fp64_pipe_pct"]) / 100 * fp64 for r in mwsep]
        ax.scatter([xs[-1]] * len(ys), ys, marker="<", color=c.PUBLISHED_COLOR, s=25,
                   label="mwsep kernels: FP64 pipe use x FP64 peak (intensity not recorded)")
        notes.append("mwsep")
    rows = files.optional("ncu_ladder", gpu_folder / "ryoo", check_valid=False)
    if rows is not None:
        # The profiler counted the fused multiply-adds and the DRAM bytes of one launch per variant.
        pts = [(2 * float(r["ffma_thread_instructions"]) / (float(r["dram_read_bytes"]) + float(r["dram_write_bytes"])),
                2 * float(r["ffma_thread_instructions"]) / float(r["duration_ns"]), r["variant"]) for r in rows]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker="^", color="#762a83", s=25,
                   label="ryoo matrix-multiplication ladder (profiler: FMAs and DRAM bytes)")
        for x, y, v in pts:
            ax.annotate(v, (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
        notes.append("ryoo")
    for other in facts.roofline_studies:
        rows = files.rows("roofline_points", gpu_folder / other, check_valid=False)
        ax.scatter([float(r["flops_per_byte"]) for r in rows], [float(r["gflops"]) for r in rows], marker="^", s=25,
                   label=f"{other} kernels")
        for r in rows:
            ax.annotate(r["kernel"], (float(r["flops_per_byte"]), float(r["gflops"])), fontsize=6)
        notes.append(other)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("operations per byte of least DRAM traffic")
    ax.set_ylabel("GFLOP/s (direct method's operations)")
    ax.set_title(f"Measured roofline, {gpu}: " + "; ".join(notes), fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    return c.save(fig, out_dir, "fig_roofline")
