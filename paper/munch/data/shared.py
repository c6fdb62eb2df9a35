"""What the study's data modules share: the published numbers of the thesis (paper/munch/published.json),
medians keyed by input size, and the cells of the thesis's tables."""
import json
import pathlib

from paper.report.common import MissingData, fmt, medians

PUBLISHED = pathlib.Path(__file__).resolve().parent.parent / "published.json"
SIGNALS = [10, 100, 1000, 10000, 100000, 1000000, 10000000]


def published():
    return json.loads(PUBLISHED.read_text())


def cell(pub, table, filt, signal):
    """A cell of an Appendix C table, or None where the thesis has none."""
    t = pub["appendix_c"][table]
    row = t["rows_by_filter"].get(str(filt))
    return None if row is None else row[t["signals"].index(signal)]


def by_size(rows, value, name_key):
    """Medians keyed (name, signal, filter) with integer sizes."""
    return {(k[0], int(k[1]), int(k[2])): v for k, v in medians(rows, value, (name_key, "signal", "filter")).items()}


def signal_text(n):
    """10^k for powers of ten from 100 on, else the whole number with thin-space thousands."""
    k = len(str(n)) - 1
    return f"10^{k}" if n == 10 ** k and k >= 2 else f"{n:,}".replace(",", "\u202f")


def cell_text(n, w):
    """A cell of the thesis's grid: signal length and filter width."""
    return f"signal {signal_text(n)}, filter {signal_text(w)}"


def ms(v):
    return "—" if v is None else fmt(v, 3)


def best(table, names, n, w):
    """(name, median) of the fastest of @p names measured at (n, w), or None."""
    found = [(table[(v, n, w)], v) for v in names if (v, n, w) in table]
    return None if not found else (min(found)[1], min(found)[0])


def need_fact(ctx, key):
    if key not in ctx.facts:
        raise MissingData(f"munch: {key} was not computed (module order)")
    return ctx.facts[key]
