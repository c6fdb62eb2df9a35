"""What the study's data modules share: its published numbers, the median rate of a variant, and the sizes."""
import json
import pathlib
import statistics

from report.common import MissingData, rel

PUBLISHED = pathlib.Path(__file__).resolve().parent.parent / "published.json"

# Sample-voxel (atom-point) pairs of each input size (src/kirk_hwu/inputs.cpp; the bench rows carry them
# too, and setup.py checks that they agree).
MRI_VOXELS = {"tiny": 8 ** 3, "small": 32 ** 3, "medium": 64 ** 3, "full": 128 ** 3}
MRI_SAMPLES = {"tiny": 300, "small": 3072, "medium": 20000, "full": 100000}


def published():
    if not PUBLISHED.exists():
        raise MissingData(f"{rel(PUBLISHED)}: the study's published numbers are missing")
    return json.loads(PUBLISHED.read_text())


def rates(rows, key=("variant", "size")):
    """Median pairs per second of each (variant, size) over its samples."""
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in key), []).append(float(r["pairs_per_second"]))
    return {k: statistics.median(v) for k, v in out.items()}


def need(table, key, source):
    if key not in table:
        raise MissingData(f"{source}: no rows for {key}")
    return table[key]


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
