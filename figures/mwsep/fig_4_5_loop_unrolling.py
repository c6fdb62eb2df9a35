"""Figure 4.5: gain of unrolling the stream loop per memory space.

Published: Table 4.3 / Table 4.2 - 1, Table 4.3 read as the version WITHOUT unrolling with its 2nd and
3rd columns swapped (see published.json). Reproduced: loop / unrolled - 1, fast div/sqrt."""
import pathlib

from .shared import optimization_gain_figure


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    return optimization_gain_figure(
        facts, out_dir, "loop_unrolling", "4.3", ("fast", "loop", "f64"), ("fast", "unrolled", "f64"),
        "gain of unrolling (%)\n(time loop / time unrolled - 1)",
        "Loop unrolling (Fig. 4.5): gain per memory space, double precision, fast div/sqrt\n"
        "published = Table 4.3 / Table 4.2 - 1 (Table 4.3 read as the version without it, columns 2-3 swapped)",
        "fig_4_5_loop_unrolling")
