"""The fit's progress: the best likelihood of the global search after each generation, against the
evaluations made so far, for each recovery fit (fit_recovery_progress.csv)."""
import pathlib

import common as c


def make(results_dir: pathlib.Path, published: dict, out_dir: pathlib.Path) -> list[pathlib.Path]:
    del published  # a measurement beyond the thesis: nothing published to draw beside it
    rows = c.read_rows(results_dir, "fit_recovery_progress")
    fig, ax = c.plt.subplots(figsize=(7, 4.5))
    for wu in sorted({r["work_unit"] for r in rows}):
        mine = [r for r in rows if r["work_unit"] == wu]
        ax.plot([int(r["evaluations"]) for r in mine], [float(r["best_likelihood"]) for r in mine], marker="o",
                markersize=3, label=wu)
    ax.set_xlabel("evaluations")
    ax.set_ylabel("best likelihood L (mean log10 probability)")
    ax.set_title(f"Global search, {c.gpu_name(results_dir, 'fit_recovery')}")
    ax.legend()
    return c.save(fig, out_dir, "fig_fit_progress")
