"""What the ryoo data modules share: the study's published numbers and the medians of its timings."""
import json
import pathlib
import statistics

from paper.report.common import MissingData, groups, rel

PUBLISHED = pathlib.Path(__file__).resolve().parent.parent / "published.json"


def published():
    """paper/ryoo/published.json (the study's own published numbers)."""
    if not PUBLISHED.exists():
        raise MissingData(f"{rel(PUBLISHED)}: the study's published numbers are missing")
    return json.loads(PUBLISHED.read_text())


def median_by(rows, value, *key):
    """{key tuple (or the single key's value): median of value} over the rows."""
    out = {k: statistics.median(v) for k, v in groups(rows, value, key).items()}
    return {k[0]: v for k, v in out.items()} if len(key) == 1 else out


def by_variant(rows):
    """{variant: row} for a file with one row per variant; a repeated variant is an error."""
    out = {}
    for r in rows:
        if r["variant"] in out:
            raise MissingData(f"variant {r['variant']} appears twice in a one-row-per-variant result")
        out[r["variant"]] = r
    return out
