"""What the study's figures share: the medians of a result keyed by size, and how the thesis is named."""
from figures import common as c

THESIS_LABEL = "thesis (Quadro FX 3700, Xeon E5430, 2009)"


def by_size(rows, name_key, value):
    """{(name, signal, filter): median} over the valid rows."""
    return {(k[0], int(k[1]), int(k[2])): v for k, v in c.medians(rows, (name_key, "signal", "filter"), value).items()}
