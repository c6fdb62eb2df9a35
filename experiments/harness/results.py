"""One way to read a results folder: its manifest, the kinds' declarations and one rule for invalid rows.

    folder = ResultFolder("experiments/results/nvidia-h200")
    folder.files                       {"mwsep/memory_spaces.csv": manifest entry, ...}
    folder.kind("mwsep/memory_spaces.csv")   the Kind declared for it (experiments/studies/<study>.py)
    folder.rows(rel, invalid="refuse")       its rows; "refuse" raises InvalidRows, "skip" drops them, "keep"
    folder.medians(rel)                      {configuration (the kind's key): median of its value}
    folder.meta(rel)                         its provenance (<file>.meta.json)
    folder.gpu_count, folder.gpu_name        from the manifest (one folder per host, single- and multi-GPU)

The rule for invalid rows, in one place: a row is invalid when it has a `valid` or a `pass` column that is
not "true" (a timed output that disagreed with its reference, a failed comparison). The report, the
figures, the comparison and the results check all read through this module.
"""
import csv
import importlib
import json
import pathlib
import statistics

from .kinds import key_value


class InvalidRows(ValueError):
    """A file holds rows marked invalid and its reader refuses them."""


class NotAResultFolder(ValueError):
    pass


def invalid(row):
    """The one rule: a row whose `valid` or `pass` column is present and not "true"."""
    return row.get("valid", "true") != "true" or row.get("pass", "true") != "true"


def number(text):
    """A CSV cell as a number; profiler cells may group digits with commas ("1,979,147"). None when empty or
    not a number."""
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def study_class(study):
    """The Study class of experiments/studies/<study>.py, or None when there is no such module."""
    try:
        module = importlib.import_module(f"experiments.studies.{study}")
    except ModuleNotFoundError as e:
        if e.name in (f"experiments.studies.{study}", "experiments.studies"):
            return None
        raise
    return getattr(module, "Study", None)


def declared_kind(study, kind, relpath):
    """The Kind declared for a file of @p kind in @p study, or None when no declaration covers it."""
    cls = study_class(study)
    kinds = cls.kinds() if cls is not None and hasattr(cls, "kinds") else {}
    k = kinds.get(kind)
    return k.for_file(relpath) if k is not None else None


def read_csv(path):
    with pathlib.Path(path).open(newline="") as f:
        return list(csv.DictReader(f))


def medians(rows, key, value):
    """{tuple of the key columns (empty where a row lacks one, or its default: kinds.KEY_DEFAULTS): median of
    value} over rows with a number."""
    groups = {}
    for r in rows:
        v = number(r.get(value, ""))
        if v is not None:
            groups.setdefault(tuple(key_value(r, k) for k in key), []).append(v)
    return {k: statistics.median(v) for k, v in groups.items()}


class ResultFolder:
    def __init__(self, path):
        self.path = pathlib.Path(path)
        manifest = self.path / "manifest.json"
        if not manifest.is_file():
            raise NotAResultFolder(f"{self.path}: no manifest.json (not a folder written by experiments/run.py)")
        try:
            self.manifest = json.loads(manifest.read_text())
        except ValueError as e:
            raise NotAResultFolder(f"{manifest}: not JSON: {e}") from None
        self.files = self.manifest.get("files", {})
        self.experiments = self.manifest.get("experiments", {})
        self.host = self.manifest.get("host", {})

    @property
    def gpu_count(self):
        """How many GPUs the host had: the manifest's gpu_count (written since the multi-GPU results share the
        folder), else the host's."""
        if "gpu_count" in self.manifest:
            return int(self.manifest["gpu_count"])
        return int(self.host.get("gpu_count", len(self.host.get("gpus", []))))

    @property
    def gpu_name(self):
        gpus = self.host.get("gpus") or [{}]
        return gpus[0].get("gpu_name", "no GPU")

    def studies(self):
        return sorted({rel.split("/")[0] for rel in self.files})

    def has(self, rel):
        return rel in self.files and (self.path / rel).is_file()

    def entry(self, rel):
        return self.files[rel]

    def study_of(self, rel):
        return rel.split("/")[0]

    def kind(self, rel):
        """The Kind declared for @p rel (None when its study declares no such kind)."""
        return declared_kind(self.study_of(rel), self.files[rel]["kind"], rel)

    def status(self, rel):
        entry = self.files[rel]
        exp = self.experiments.get(entry["experiment"], {})
        return exp.get("status", entry.get("status", "unknown"))

    def rows(self, rel, invalid_rows="refuse"):
        rows = read_csv(self.path / rel)
        bad = [i for i, r in enumerate(rows, start=2) if invalid(r)]
        if bad and invalid_rows == "refuse":
            raise InvalidRows(f"{self.path / rel}: {len(bad)} rows marked invalid (first on line {bad[0]})")
        if invalid_rows == "skip":
            rows = [r for r in rows if not invalid(r)]
        return rows

    def medians(self, rel, key=None, value=None, invalid_rows="skip"):
        k = self.kind(rel)
        key = key if key is not None else (k.key if k else ())
        value = value or (k.value if k else "")
        return medians(self.rows(rel, invalid_rows), key, value)

    def meta(self, rel):
        path = self.path / rel
        meta = path.with_name(path.name.rsplit(".", 1)[0] + ".meta.json")
        return json.loads(meta.read_text()) if meta.is_file() else {}
