"""Figure 4.4: gain of the fast (mixed-precision) division and square root per memory space.

Published: Table 4.4 / Table 4.2 - 1, Table 4.4 read as the version WITHOUT the fast div/sqrt with its
2nd and 3rd columns swapped (see published.json). Reproduced: IEEE / fast - 1, loop unrolled."""
import pathlib

from .shared import optimization_gain_figure


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    return optimization_gain_figure(
        facts, out_dir, "division_sqrt", "4.4", ("ieee", "unrolled", "f64"), ("fast", "unrolled", "f64"),
        "gain of fast div/sqrt (%)\n(time IEEE / time fast - 1)",
        "Fast division and square root (Fig. 4.4): gain per memory space, double precision, unrolled\n"
        "published = Table 4.4 / Table 4.2 - 1 (Table 4.4 read as the version without it, columns 2-3 swapped)",
        "fig_4_4_division_sqrt")
