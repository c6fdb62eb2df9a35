"""The ryoo study's published numbers (paper/ryoo/published.json)."""
import json

from figures import common as c

PATH = c.ROOT / "paper" / "ryoo" / "published.json"


def load():
    if not PATH.exists():
        raise c.MissingData(f"{PATH}: the ryoo study's published numbers are missing")
    return json.loads(PATH.read_text())
