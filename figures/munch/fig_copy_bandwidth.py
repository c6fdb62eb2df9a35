"""Figure M2: copy bandwidth against size for pageable, pinned and mapped host memory and within the
device, with the thesis's pinned plateau."""
from figures import common as c

KINDS = [("pinned", "htod", "-", c.REPRODUCED_SHADES[0]), ("pinned", "dtoh", "--", c.REPRODUCED_SHADES[0]),
         ("pageable", "htod", "-", c.REPRODUCED_SHADES[2]), ("pageable", "dtoh", "--", c.REPRODUCED_SHADES[2]),
         ("mapped", "htod", "-", c.MODERN_COLOR), ("mapped", "dtoh", "--", c.MODERN_COLOR), ("device", "dtod", "-", "#762a83")]


def make(facts, out_dir):
    pub = facts.published
    rate = c.medians(facts.files.rows("copy_bandwidth"), ("memory", "direction", "bytes"), "gb_per_s")
    gpu = c.available(facts.roof).gpu
    fig, ax = c.plt.subplots(figsize=(10, 6))
    for mem, d, style, color in KINDS:
        pts = sorted((int(k[2]), v) for k, v in rate.items() if k[:2] == (mem, d))
        if not pts:
            raise c.MissingData(f"copy_bandwidth.csv: no {mem} {d} rows")
        ax.plot(*zip(*pts), style, color=color, marker=".", label=f"{mem}, {d}")
    plateau = pub["claims"]["copy_plateau_gb_s"]["value"]
    ax.axhline(plateau, color=c.PUBLISHED_COLOR, ls=":", label=f"thesis: pinned plateau, about {plateau} GB/s")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes per copy")
    ax.set_ylabel("GB/s (median)")
    ax.set_title(f"Copy bandwidth against size, {gpu}")
    ax.legend(fontsize=9, ncol=2)
    return c.save(fig, out_dir, "fig_copy_bandwidth")
