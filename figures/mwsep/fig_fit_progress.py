"""Figure R3: the fit's progress: the best likelihood of the global search after each generation, against the
evaluations made so far, for each recovery fit (fit_recovery_progress.csv); after the global search, the
likelihood the fit ended with (after its polishes; drawn at the fit's total evaluations, the Hessian's included)
and, dashed, the truth's likelihood on the same catalogue (fit_recovery.csv)."""
import pathlib

from figures import common as c


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    # A measurement beyond the thesis: nothing published to draw beside it.
    rows = facts.files.rows("fit_recovery_progress")
    fits = {r["work_unit"]: r for r in facts.files.rows("fit_recovery")}
    fig, ax = c.plt.subplots(figsize=(7, 4.5))
    for wu in sorted({r["work_unit"] for r in rows}):
        mine = [r for r in rows if r["work_unit"] == wu]
        x = [int(r["evaluations"]) for r in mine]
        line, = ax.plot(x, [float(r["best_likelihood"]) for r in mine], marker="o", markersize=3,
                        label=f"{wu}: global search")
        fit = fits.get(wu)
        if fit is None:
            continue
        ax.axhline(float(fit["truth_likelihood"]), color=line.get_color(), linestyle="--", linewidth=1,
                   label=f"{wu}: the truth's likelihood")
        # The polishes follow the global search; the fit's end point is drawn at the whole fit's evaluations.
        ax.plot([int(fit["evaluations"])], [float(fit["likelihood"])], marker="*", markersize=12, linestyle="none",
                color=line.get_color(), label=f"{wu}: after the polishes")
    ax.set_xlabel("evaluations")
    ax.set_ylabel("best likelihood L (mean log10 probability)")
    ax.set_title(f"Recovery fits, {c.available(facts.gpu).name}")
    ax.legend(fontsize=8, loc="lower right")
    return c.save(fig, out_dir, "fig_fit_progress")
