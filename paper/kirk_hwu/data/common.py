"""What the study's chapter modules share: the median rate of a variant, a row by its columns, the word a
ratio earns and the repeats of a result, in words."""
import statistics

from paper.report.facts import MissingData



def first_row(rows, **match):
    """The first row whose columns equal @p match (the error columns repeat on every sample row)."""
    for r in rows:
        if all(r[k] == v for k, v in match.items()):
            return r
    raise MissingData(f"no row with {match}")


def comparative(ratio, more="faster", less="slower"):
    """The word a rate ratio (new / old) earns: @p more above one, @p less below, "as fast as" at one."""
    if ratio > 1:
        return more
    if ratio < 1:
        return less
    return "as fast as"


def repeat_note(rows, key=("problem", "precision"), value="pairs_per_second"):
    """How many runs each cell of a result holds and the widest spread among them, in words for a caption or
    a sentence ("median of 2 runs each; the widest spread, max - min over the median, 12% (mri-fhd, f32)").
    Read from the rows, so a recording with more repeats says so by itself."""
    cells = {}
    for r in rows:
        cells.setdefault(tuple(r[k] for k in key), []).append(float(r[value]))
    if not cells:
        raise MissingData("no rows to count repeats in")
    counts = sorted({len(v) for v in cells.values()})
    runs = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    spread = {k: (max(v) - min(v)) / statistics.median(v) for k, v in cells.items()}
    widest = max(spread, key=spread.get)
    return (f"median of {runs} run{'s' if counts[-1] > 1 else ''} each; the widest spread, max - min over the median, "
            f"{100 * spread[widest]:.0f}% ({', '.join(widest)})")
