"""What the study's chapter modules share: the cells of the thesis's tables and how sizes are written."""
from paper.report.common import fmt


def cell(pub, table, filt, signal):
    """A cell of an Appendix C table, or None where the thesis has none."""
    t = pub["appendix_c"][table]
    row = t["rows_by_filter"].get(str(filt))
    return None if row is None else row[t["signals"].index(signal)]


def signal_text(n):
    """10^k for powers of ten from 100 on, else the whole number with thin-space thousands."""
    k = len(str(n)) - 1
    return f"10^{k}" if n == 10 ** k and k >= 2 else f"{n:,}".replace(",", "\u202f")


def cell_text(n, w):
    """A cell of the thesis's grid: signal length and filter width."""
    return f"signal {signal_text(n)}, filter {signal_text(w)}"


def work_ratio(n, w):
    """The thesis's rolling-ball CPU work over its GPU work: n + w - 1 positions per pass against n."""
    return (n + w - 1) / n


def ms(v):
    return "—" if v is None else fmt(v, 3)
