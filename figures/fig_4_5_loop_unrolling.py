"""Figure 4.5: gain of unrolling the stream loop per memory space.

Published: Table 4.3 / Table 4.2 - 1, Table 4.3 read as the version WITHOUT unrolling with its 2nd and
3rd columns swapped (see published.json). Reproduced: loop / unrolled - 1, fast div/sqrt."""
import pathlib

import common as c


def make(results_dir: pathlib.Path, published: dict, out_dir: pathlib.Path) -> list[pathlib.Path]:
    name = "loop_unrolling"
    med = c.medians(c.read_rows(results_dir, name))
    gpu = c.gpu_name(results_dir, name)
    with_opt, without = c.table_as_read(published, "4.2"), c.table_as_read(published, "4.3")
    pub = {wu: {m: (without[m][wu] / with_opt[m][wu] - 1) * 100 for m in c.MEMORIES} for wu in c.WORK_UNITS}
    rep = {wu: {m: (c.need(med, (f"{m}-fast-loop-f64", wu), name)
                    / c.need(med, (f"{m}-fast-unrolled-f64", wu), name) - 1) * 100 for m in c.MEMORIES}
           for wu in c.WORK_UNITS}
    fig = c.paired_panels(
        pub, rep, gpu, "gain of unrolling (%)\n(time loop / time unrolled - 1)",
        "Loop unrolling (Fig. 4.5): gain per memory space, double precision, fast div/sqrt\n"
        "published = Table 4.3 / Table 4.2 - 1 (Table 4.3 read as the version without it, columns 2-3 swapped)")
    return c.save(fig, out_dir, "fig_4_5_loop_unrolling")


if __name__ == "__main__":
    print(*make(c.RESULTS, c.load_published(), c.OUT), sep="\n")
