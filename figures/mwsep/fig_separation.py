"""The separation of a stripe's stars (`mwsep separate --csv`): each star on the sky, in the stripe's own
coordinates (mu along the stripe, nu across it), and along the stripe against its distance, coloured by its most
likely component (background grey, each stream its own colour); the legend gives each component's stars by most
likely component and the number the model expects (the sum of the probabilities).

Standalone: `make(source, out_path, title=None)` takes the CSV's path (or its rows, as dicts of strings) and writes
one image; `python3 fig_separation.py SEPARATION.csv OUT.png [TITLE]` does the same from the command line.
"""
import csv
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

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


def make(source, out_path, title=None):
    """Draws the separation @p source (a CSV path or its rows) into @p out_path; returns the path written."""
    rows = _rows(source)
    names = components(rows)
    missing = [k for k in ("mu", "nu", "r", "most_likely") if k not in rows[0]]
    if missing:
        raise ValueError(f"the separation lacks the columns {', '.join(missing)}")
    expected = {n: sum(float(r["p_" + n]) for r in rows) for n in names}
    fig, (sky, depth) = plt.subplots(2, 1, figsize=(9, 7), sharex=True, gridspec_kw={"height_ratios": [1, 2]})
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
    # Below the axes: the stars fill the panels.
    legend = depth.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=min(3, len(names)),
                          markerscale=6,
                          title=f"{len(rows)} stars" + (f"; {none} explained by no component" if none else ""))
    for h in legend.legend_handles:
        h.set_alpha(1)
    sky.set_title(title or "Stars by their most likely component")
    out = pathlib.Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return out


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: fig_separation.py SEPARATION.csv OUT.png [TITLE]")
    print(make(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None))
