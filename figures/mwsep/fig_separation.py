"""The separation of a stripe's stars (`mwsep separate --csv`): each star on the sky, in the stripe's own
coordinates (mu along the stripe, nu across it), and along the stripe against its distance, coloured by its most
likely component (background grey, each stream its own colour); the legend gives each component's stars by most
likely component and the number the model expects (the sum of the probabilities).

In the report (Figure R5, chapter 'Fitting the real stripes'): `make(facts, out_dir)` draws every separation the
study's fit_stripes recorded (fit_stripes_separation_<fit>.csv), one column per stripe; figures/make_figures.py calls
it, and a GPU without those results gets an image saying so. Standalone: `draw_file(source, out_path, title=None)`
takes the CSV's path (or its rows, as dicts of strings) and writes one image; `python3 fig_separation.py
SEPARATION.csv OUT.png [TITLE]` does the same from the command line.
"""
import csv
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

BACKGROUND_COLOR = "#9e9e9e"
STREAM_COLORS = ["#1b6ca8", "#d95f02", "#1a9850", "#7b3294", "#e7298a"]


def _rows(source):
    if isinstance(source, (str, pathlib.Path)):
        with open(source, newline="") as f:
            return list(csv.DictReader(f))
    return list(source)


def components(rows):
    """The components a separation's rows name, background first (from the p_<component> columns)."""
    if not rows:
        raise ValueError("the separation has no stars")
    names = [k[2:] for k in rows[0] if k.startswith("p_")]
    if not names or names[0] != "background":
        raise ValueError("the separation's columns do not begin with p_background (a file of mwsep separate --csv?)")
    return names


def draw(sky, depth, rows, title=None):
    """Draws the separation @p rows (dicts of strings) into the axes @p sky (mu, nu) and @p depth (mu, r)."""
    names = components(rows)
    missing = [k for k in ("mu", "nu", "r", "most_likely") if k not in rows[0]]
    if missing:
        raise ValueError(f"the separation lacks the columns {', '.join(missing)}")
    expected = {n: sum(float(r["p_" + n]) for r in rows) for n in names}
    # The background first and small, so that the streams' stars are drawn over it.
    for k, n in enumerate(names):
        mine = [r for r in rows if r["most_likely"] == n]
        color = BACKGROUND_COLOR if k == 0 else STREAM_COLORS[(k - 1) % len(STREAM_COLORS)]
        size, alpha = (1.0, 0.25) if k == 0 else (2.0, 0.6)
        mu = [float(r["mu"]) for r in mine]
        label = f"{n}: {len(mine)} most likely, {expected[n]:.0f} expected"
        sky.scatter(mu, [float(r["nu"]) for r in mine], s=size, color=color, alpha=alpha, linewidths=0, rasterized=True)
        depth.scatter(mu, [float(r["r"]) for r in mine], s=size, color=color, alpha=alpha, linewidths=0,
                      rasterized=True, label=label)
    none = sum(r["most_likely"] == "none" for r in rows)
    sky.set_ylabel("nu [deg]")
    depth.set_ylabel("distance [kpc]")
    depth.set_xlabel("mu [deg] (along the stripe)")
    depth.set_yscale("log")
    depth.xaxis.set_major_locator(MaxNLocator(5))
    # Below the axes: the stars fill the panels.
    legend = depth.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1 if len(names) > 3 else
                          min(3, len(names)), markerscale=6,
                          title=f"{len(rows)} stars" + (f"; {none} explained by no component" if none else ""))
    for h in legend.legend_handles:
        h.set_alpha(1)
    sky.set_title(title or "Stars by their most likely component")


def draw_file(source, out_path, title=None):
    """Draws the separation @p source (a CSV path or its rows) into @p out_path; returns the path written."""
    rows = _rows(source)
    components(rows)
    fig, (sky, depth) = plt.subplots(2, 1, figsize=(9, 7), sharex=True, gridspec_kw={"height_ratios": [1, 2]})
    draw(sky, depth, rows, title)
    out = pathlib.Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return out


def make(facts, out_dir):
    """Figure R5 of the report from the study's facts: the separation of every fit of fit_stripes.csv that has one,
    one column per fit (MissingData when this GPU recorded none)."""
    from figures import common as c
    from paper.mwsep.facts import stripe_fit_tag
    fits = facts.files.rows("fit_stripes")
    found = [(r, f"fit_stripes_separation_{stripe_fit_tag(r)}") for r in fits
             if facts.reports.get(("fit_stripes_separation", stripe_fit_tag(r)))]
    if not found:
        raise c.MissingData(f"{facts.files.path('fit_stripes')}: no fit with a separation", [facts.files.path("fit_stripes")])
    fig, axes = plt.subplots(2, len(found), figsize=(5 * len(found), 7), squeeze=False, sharex="col",
                             gridspec_kw={"height_ratios": [1, 2]})
    for k, (r, name) in enumerate(found):
        rows = facts.files.rows(name)
        streams = len(components(rows)) - 1
        unit = r["work_unit"].replace("-2009", "").replace("stripe", "stripe ")
        draw(axes[0][k], axes[1][k], rows, f"{unit}, {streams} stream{'s' if streams != 1 else ''}")
    return c.save(fig, out_dir, "fig_separation")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: fig_separation.py SEPARATION.csv OUT.png [TITLE]")
    print(draw_file(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None))
