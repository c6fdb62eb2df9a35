"""Figure 4.3 / Table 4.2: time per memory space of the stream constants, every other optimisation on.

Absolute times differ about 2000x between the GTX 285 and today's GPU, so each GPU's times are shown
relative to its own fastest memory space of the same work unit (0 % = fastest)."""
import pathlib

from figures import common as c

from .shared import paired_panels


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    tables = c.available(facts.tables)
    gpu = c.available(facts.gpu).name
    table, reproduced = tables.published["4.2"], tables.reproduced["4.2"]   # the final variant in each memory space
    ms_pub = {wu: {m: table[m][wu] for m in facts.memory_figure_order} for wu in facts.units}
    ms_rep = {wu: {m: reproduced[m][wu] for m in facts.memory_figure_order} for wu in facts.units}

    def slower(d):
        return {wu: {m: (t / min(ts.values()) - 1) * 100 for m, t in ts.items()} for wu, ts in d.items()}

    fig = paired_panels(
        facts, slower(ms_pub), slower(ms_rep), gpu, "time relative to the fastest\nmemory space (% slower)",
        "Memory space of the stream constants (Table 4.2 / Fig. 4.3): time relative to the fastest\n"
        "memory space of each GPU and work unit, double precision, fast div/sqrt, unrolled",
        fmt=lambda y: "0" if y == 0 else f"{y:.2f}")
    for ax, wu in zip(fig.axes, facts.units):
        p, r = ms_pub[wu], ms_rep[wu]
        bp, br = min(p, key=p.get), min(r, key=r.get)
        ax.text(0.02, 0.97, f"fastest: {bp} {p[bp] / 1000:.1f} s (GTX 285)\n"
                f"fastest: {br} {r[br]:.1f} ms ({gpu})", transform=ax.transAxes, va="top", fontsize=9)
    return c.save(fig, out_dir, "fig_4_3_memory_spaces")
