"""The toy study's facts: its one result file, read once, and what its chapter (and any figure)
needs, as numbers: per n the median seconds and the sum the program printed."""
import dataclasses
import statistics
from collections.abc import Mapping
from typing import Any

from paper.report import facts as F
from paper.report.facts import MissingData, ResultFiles, Unavailable, frozen, part

STUDY = "toy"


# [toy-facts-begin]
@dataclasses.dataclass(frozen=True)
class Sums(F.Facts):
    """sums.csv: per n, the program's sum and the median of its seconds."""
    sums: Mapping[int, int]
    seconds: Mapping[int, float]
    largest: int                    # the largest n recorded


@dataclasses.dataclass(frozen=True)
class Facts(F.Facts):
    published: Mapping[str, Any]    # paper/toy/published.json
    files: ResultFiles              # every result file its chapters and figures use, read once
    sums: Sums | Unavailable        # Unavailable (with the reason) when sums.csv cannot give them


def sums_facts(files):
    rows = files.rows("sums")
    seconds = {}
    for r in rows:
        seconds.setdefault(int(r["n"]), []).append(float(r["seconds"]))
    sums = {int(r["n"]): int(r["sum"]) for r in rows}
    if not sums:
        raise MissingData("sums.csv: no n recorded", [files.path("sums")])
    medians = {n: statistics.median(v) for n, v in seconds.items()}
    return Sums(sums=frozen(sums), seconds=frozen(medians), largest=max(sums))


def build(folder, published, compare=()):
    """The study's facts from a GPU folder (a ResultFolder) and the study's published numbers."""
    files = ResultFiles(folder.path / STUDY)
    part(files.load, "sums")
    files.close()
    return Facts(published=frozen(published), files=files,
                 sums=part(sums_facts, files))
# [toy-facts-end]
