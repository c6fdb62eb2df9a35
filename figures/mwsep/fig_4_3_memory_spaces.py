"""Figure 4.3 / Table 4.2: time per memory space of the stream constants, every other optimisation on.

Absolute times differ about 2000x between the GTX 285 and today's GPU, so each GPU's times are shown
relative to its own fastest memory space of the same work unit (0 % = fastest)."""
import pathlib

from figures import common as c


def make(results_dir: pathlib.Path, published: dict, out_dir: pathlib.Path) -> list[pathlib.Path]:
    name = "memory_spaces"
    med = c.VARIANTS.medians_by_axes(c.read_rows(results_dir, name))
    fa = c.VARIANTS.final_axes()  # every memory space with the final variant's other axes
    gpu = c.gpu_name(results_dir, name)
    table = c.table_as_read(published, "4.2")
    ms_pub = {wu: {m: table[m][wu] for m in c.MEMORIES} for wu in c.WORK_UNITS}
    ms_rep = {wu: {m: c.need(med, (m, fa["divsqrt"], fa["loop"], fa["precision"], wu), name) for m in c.MEMORIES}
              for wu in c.WORK_UNITS}

    def slower(d):
        return {wu: {m: (t / min(ts.values()) - 1) * 100 for m, t in ts.items()} for wu, ts in d.items()}

    fig = c.paired_panels(
        slower(ms_pub), slower(ms_rep), gpu, "time relative to the fastest\nmemory space (% slower)",
        "Memory space of the stream constants (Table 4.2 / Fig. 4.3): time relative to the fastest\n"
        "memory space of each GPU and work unit, double precision, fast div/sqrt, unrolled",
        fmt=lambda y: "0" if y == 0 else f"{y:.2f}")
    for ax, wu in zip(fig.axes, c.WORK_UNITS):
        p, r = ms_pub[wu], ms_rep[wu]
        bp, br = min(p, key=p.get), min(r, key=r.get)
        ax.text(0.02, 0.97, f"fastest: {bp} {p[bp] / 1000:.1f} s (GTX 285)\n"
                f"fastest: {br} {r[br]:.1f} ms ({gpu})", transform=ax.transAxes, va="top", fontsize=9)
    return c.save(fig, out_dir, "fig_4_3_memory_spaces")


if __name__ == "__main__":
    print(*make(c.RESULTS, c.load_published(), c.OUT), sep="\n")
