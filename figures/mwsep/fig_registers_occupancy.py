"""Registers per thread and theoretical occupancy of every variant, uncapped and with the 48-register
cap, from `mwsep variants` (3 streams, 64 threads per block), beside the thesis's GTX 285 figures:
shared memory 49 -> 48 registers and 25 % -> 31 % occupancy; the global variant 82 registers, 12 %."""
import pathlib

from figures import common as c

from .shared import published_label


def read_variants(facts):
    """(gpu name the listing names, {(variant, capped): (registers, occupancy %)}, variants in order) from the
    compiler's listing (variants_3streams.txt, read by the facts)."""
    launch = c.available(facts.launch)
    table, order = {}, []
    for (variant, capped), r in launch.listing.items():
        table[(variant, "48" if capped else "no")] = (r["regs"], r["occupancy"])
        order = order if variant in order else order + [variant]
    return launch.listing_gpu or c.available(facts.gpu).name, table, order


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    gpu, table, variants = read_variants(facts)
    cl = facts.published["claims"]
    regs, occ = cl["register_cap_registers"], cl["register_cap_occupancy"]
    pub_rows = {"thesis: shared, 3 streams": ((regs["before"], occ["before"]), (regs["after"], occ["after"])),
                "thesis: global": ((cl["global_variant_registers"]["value"], cl["global_variant_occupancy"]["value"]),
                                   (regs["after"], None))}
    labels = list(pub_rows) + variants
    y = {l: k + (1 if k >= len(pub_rows) else 0) for k, l in enumerate(labels)}  # a gap after the thesis rows

    fig, axes = c.plt.subplots(1, 2, figsize=(13, 12), sharey=True)
    h = 0.38
    for col, (ax, xlabel) in enumerate(zip(axes, ["registers per thread", "theoretical occupancy (%)"])):
        for i, (cap, shade) in enumerate([("no", 0), ("48", 2)]):
            name = "uncapped" if cap == "no" else "capped at 48 (--maxrregcount 48)"
            # Variants without a 48-register build (the modern ones) have no capped bar.
            built = [v for v in variants if (v, cap) in table]
            xs = [table[(v, cap)][col] for v in built]
            bars = ax.barh([y[v] + (i - 0.5) * h for v in built], xs, h, color=c.REPRODUCED_SHADES[shade],
                           label=f"{c.reproduced_label(gpu)}, {name}")
            ax.bar_label(bars, [f"{x:g}" for x in xs], padding=2, fontsize=7)
            pub = [(l, v[i][col]) for l, v in pub_rows.items() if v[i][col] is not None]
            bars = ax.barh([y[l] + (i - 0.5) * h for l, _ in pub], [x for _, x in pub], h,
                           color=c.PUBLISHED_COLOR, alpha=1.0 if i == 0 else 0.5,
                           label=f"{published_label()}, {name}")
            ax.bar_label(bars, [f"{x:g}" for _, x in pub], padding=2, fontsize=7)
        ax.set_xlabel(xlabel)
    axes[1].set_xlim(0, 110)
    axes[0].set_yticks([y[l] for l in labels], labels, fontfamily="monospace", fontsize=9)
    axes[0].invert_yaxis()
    axes[0].set_ylabel("kernel variant (memory-divsqrt-loop-precision)")
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=2, bbox_to_anchor=(0.5, -0.05), frameon=False, fontsize=9)
    fig.suptitle("Registers per thread and theoretical occupancy, 3 streams, 64 threads per block\n"
                 f"{gpu}, from the compiler's resource report, beside the thesis's GTX 285 figures (§4.3)")
    fig.tight_layout()
    return c.save(fig, out_dir, "fig_registers_occupancy")
