"""Figure 4.4: gain of the fast (mixed-precision) division and square root per memory space.

Published: Table 4.4 / Table 4.2 - 1, Table 4.4 read as the version WITHOUT the fast div/sqrt with its
2nd and 3rd columns swapped (see published.json). Reproduced: IEEE / fast - 1, loop unrolled."""
import pathlib

import common as c


def make(results_dir: pathlib.Path, published: dict, out_dir: pathlib.Path) -> list[pathlib.Path]:
    name = "division_sqrt"
    med = c.medians(c.read_rows(results_dir, name))
    gpu = c.gpu_name(results_dir, name)
    with_opt, without = c.table_as_read(published, "4.2"), c.table_as_read(published, "4.4")
    pub = {wu: {m: (without[m][wu] / with_opt[m][wu] - 1) * 100 for m in c.MEMORIES} for wu in c.WORK_UNITS}
    rep = {wu: {m: (c.need(med, (f"{m}-ieee-unrolled-f64", wu), name)
                    / c.need(med, (f"{m}-fast-unrolled-f64", wu), name) - 1) * 100 for m in c.MEMORIES}
           for wu in c.WORK_UNITS}
    fig = c.paired_panels(
        pub, rep, gpu, "gain of fast div/sqrt (%)\n(time IEEE / time fast - 1)",
        "Fast division and square root (Fig. 4.4): gain per memory space, double precision, unrolled\n"
        "published = Table 4.4 / Table 4.2 - 1 (Table 4.4 read as the version without it, columns 2-3 swapped)")
    return c.save(fig, out_dir, "fig_4_4_division_sqrt")


if __name__ == "__main__":
    print(*make(c.RESULTS, c.load_published(), c.OUT), sep="\n")
