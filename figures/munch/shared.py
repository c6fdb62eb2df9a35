"""What the study's figures share: the thesis's numbers and the medians of a result keyed by size."""
import json

from figures import common as c

PUBLISHED = c.ROOT / "paper" / "munch" / "published.json"
THESIS_LABEL = "thesis (Quadro FX 3700, Xeon E5430, 2009)"


def published():
    if not PUBLISHED.exists():
        raise c.MissingData(f"{PUBLISHED} is missing")
    return json.loads(PUBLISHED.read_text())


def by_size(rows, name_key, value):
    """{(name, signal, filter): median} over the valid rows."""
    return {(k[0], int(k[1]), int(k[2])): v for k, v in c.medians(rows, (name_key, "signal", "filter"), value).items()}
