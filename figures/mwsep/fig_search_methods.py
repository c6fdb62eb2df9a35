"""The search methods compared (fit_search_methods_progress.csv, or any `mwsep fit --progress` file): each
method's best likelihood after each generation against the evaluations it had made, one line per method (the
`algorithm` column: pagmo's pso, de and cmaes; the thesis's cgd, line and async-ga, a labelled run such as
"async-ga (volunteers)" on its own line). The y axis is the distance below the best likelihood any method reached,
on a log scale, so that the last digits of a converging search stay visible; a method's last point is marked.

In the report (Figure R4, chapter 'Fitting the real stripes'): `make(facts, out_dir)` draws the study's
fit_search_methods_progress.csv, with MilkyWay@Home's likelihood (the runs' reference_likelihood, by the same
integrator as the search) as a dotted line; figures/make_figures.py calls it, and a GPU without that result gets an
image saying so. Standalone: `draw_file(source, out_path, title=None)` takes a progress CSV's path (or its rows, as
dicts of strings; rows of several work units or starts are refused: one figure compares methods on one problem)
and writes one image; `python3 fig_search_methods.py PROGRESS.csv OUT.png [TITLE]` does the same from the command
line.
"""
import csv
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The thesis's methods drawn solid, pagmo's dashed.
THESIS = ("cgd", "line", "async-ga")
COLORS = {"pso": "#7570b3", "de": "#e7298a", "cmaes": "#66a61e", "cgd": "#1b6ca8", "line": "#d95f02",
          "async-ga": "#1a9850"}


def _rows(source):
    if isinstance(source, (str, pathlib.Path)):
        with open(source, newline="") as f:
            return list(csv.DictReader(f))
    return list(source)


def series(rows):
    """{method: [(evaluations, best likelihood), ...]} in generation order; refuses rows of several problems."""
    problems = {(r.get("work_unit", ""), r.get("start", "")) for r in rows}
    if len(problems) != 1:
        raise ValueError(f"the rows belong to {len(problems)} problems (work unit, start): {sorted(problems)}; "
                         "one figure compares the methods on one")
    out = {}
    for r in sorted(rows, key=lambda r: (r["algorithm"], int(r["generation"]))):
        out.setdefault(r["algorithm"], []).append((int(r["evaluations"]), float(r["best_likelihood"])))
    return out


def figure(rows, title=None, reference=None):
    """The figure of the progress rows @p rows (dicts of strings); @p reference: MilkyWay@Home's likelihood, drawn
    as a line where it lies below the best of all."""
    if not rows:
        raise ValueError("no progress rows")
    lines = series(rows)
    best = max(l for points in lines.values() for _, l in points)
    # The smallest gap drawn: below it a method is at the best likelihood (drawn on the floor).
    floor = 1e-9
    fig, ax = plt.subplots(figsize=(8, 5))
    for method, points in sorted(lines.items()):
        base = method.split(" ")[0]
        color = COLORS.get(base, "#4d4d4d")
        style = "-" if base in THESIS else "--"
        if "(" in method:
            style = ":"
        x = [e for e, _ in points]
        y = [max(best - l, floor) for _, l in points]
        ax.plot(x, y, linestyle=style, color=color, linewidth=1.5,
                label=f"{method}: {points[-1][1]:.10f} after {x[-1]} evaluations")
        ax.plot([x[-1]], [y[-1]], marker="o", color=color)
    if reference is not None and best - reference > floor:
        ax.axhline(best - reference, color="#000000", linestyle=":", linewidth=1,
                   label=f"MilkyWay@Home's vector: {reference:.10f}")
    ax.set_yscale("log")
    ax.set_xlabel("evaluations of the likelihood")
    ax.set_ylabel(f"best L reached, below the best of all ({best:.10f})")
    ax.set_title(title or "Search methods on one stripe")
    ax.legend(fontsize=7, loc="upper right")
    return fig


def draw_file(source, out_path, title=None):
    """Draws the progress rows of @p source (a CSV path or its rows) into @p out_path; returns the path written."""
    fig = figure(_rows(source), title)
    out = pathlib.Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return out


def make(facts, out_dir):
    """Figure R4 of the report from the study's facts: fit_search_methods_progress.csv (MissingData when this GPU
    did not record it), with MilkyWay@Home's likelihood from fit_search_methods.csv."""
    from figures import common as c
    rows = facts.files.rows("fit_search_methods_progress")
    runs = facts.files.rows("fit_search_methods")
    references = {float(r["reference_likelihood"]) for r in runs}
    unit = runs[0]["work_unit"].replace("-2009", "").replace("stripe", "stripe ")
    fig = figure(rows, f"Search methods on {unit} from MilkyWay@Home's vector, {facts.files.results.parent.name}",
                 reference=references.pop() if len(references) == 1 else None)
    return c.save(fig, out_dir, "fig_search_methods")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: fig_search_methods.py PROGRESS.csv OUT.png [TITLE]")
    print(draw_file(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None))
