"""FP64 pipe utilisation and achieved occupancy of the 16 double-precision variants (Nsight Compute).

The profile has no FLOP and byte counts, so this is not a full roofline: it shows how busy the FP64 pipe
is (percent of its peak) and the achieved occupancy, for one integral launch of 3-S large."""
import pathlib

from figures import common as c


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    name = "ncu_fp64"
    rows = [r for r in facts.files.rows(name, check_valid=False) if r["variant"].endswith("-f64")]
    if not rows:
        raise c.MissingData(f"{name}: no double-precision variants")
    gpu = c.available(facts.gpu).name
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    pipe = c.medians(rows, keys=("variant",), value="fp64_pipe_pct")
    occ = c.medians(rows, keys=("variant",), value="achieved_occupancy_pct")

    fig, ax = c.plt.subplots(figsize=(10, 9))
    h = 0.38
    for i, (table, label, color) in enumerate([(pipe, "FP64 pipe utilisation (% of peak)", c.REPRODUCED_SHADES[0]),
                                               (occ, "achieved occupancy (% of max warps)", c.REPRODUCED_SHADES[2])]):
        xs = [table[(v,)] for v in variants]
        bars = ax.barh([k + (i - 0.5) * h for k in range(len(variants))], xs, h, color=color, label=label)
        ax.bar_label(bars, [f"{x:.1f}" for x in xs], padding=2, fontsize=8)
    ax.set_yticks(range(len(variants)), variants, fontfamily="monospace")
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("percent")
    ax.set_ylabel("kernel variant (memory-divsqrt-loop-precision)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.4, -0.07), ncol=2, frameon=False)
    ax.set_title(f"FP64 pipe utilisation and achieved occupancy, {c.reproduced_label(gpu)}\n"
                 "Nsight Compute, one integral launch of 3-S large (not a full roofline)")
    fig.tight_layout()
    return c.save(fig, out_dir, "fig_fp64_pipe")
