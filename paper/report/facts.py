"""The facts layer every study shares. Each study's paper/<study>/facts.py reads the study's result files once,
through this module, and builds from them and the study's published numbers one frozen, typed Facts; the
chapters (paper/<study>/data/) and the figures (figures/<study>/) read that object and nothing else:

    experiments/results/<gpu>/<study>/*.csv  ──►  paper/<study>/facts.py  ──►  chapters: numbers and tables
    paper/<study>/published.json             ──►   (Facts, built once)   ──►  figures: SVG and PNG

- ResultFiles: every result file a study uses, read once through experiments.harness.results.ResultFolder
  (one rule for invalid rows), kept with its provenance; the set of files read is what the provenance tables
  list. A chapter that asks for a file its facts did not read is a fault of the code, not missing data.
- Facts: the base of the studies' Facts classes, frozen dataclasses whose fields are checked against their
  declared types when built: a number stored as formatted text fails there, not as a blank paragraph later.
- Unavailable / part / available: a part of the facts its results cannot give (a file missing, a measurement
  absent) is kept as Unavailable with the reason; a chapter or figure that needs it raises MissingData then, and
  only that chapter or figure says "not measured".
"""
import collections.abc
import csv
import dataclasses
import json
import os
import pathlib
import types
import typing

from experiments.harness.results import NotAResultFolder, ResultFolder, invalid

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS_ROOT = ROOT / "experiments" / "results"


class MissingData(RuntimeError):
    """A result the report needs is missing, empty or holds invalid rows, or lacks what a part needs. `sources`:
    the result files the part rests on; the report check fails a part left out while its sources are there
    (tools/check_report.py)."""

    def __init__(self, message, sources=()):
        super().__init__(message)
        self.sources = tuple(str(s) for s in sources)


def rel(path):
    """A path as the report prints it: relative to the repository where it lies inside."""
    path = pathlib.Path(path).resolve()
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


# --- parts that a results folder may not give ---------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Unavailable:
    """A part of a study's facts that its results cannot give, and why."""
    reason: str
    sources: tuple = ()


def part(build, *args, **kwargs):
    """build(*args, **kwargs), or Unavailable with the reason when it raises MissingData."""
    try:
        return build(*args, **kwargs)
    except MissingData as e:
        return Unavailable(str(e), e.sources)


def available(value):
    """@p value, or MissingData (its reason and sources) when it is Unavailable."""
    if isinstance(value, Unavailable):
        raise MissingData(value.reason, value.sources)
    return value


def frozen(mapping):
    """A read-only view of @p mapping (facts are shared by every chapter and figure: none may change them)."""
    return types.MappingProxyType(dict(mapping))


# --- typed, frozen facts ------------------------------------------------------------------------------------

def _conforms(value, hint):
    if hint is typing.Any or hint is object:
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, h) for h in args)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is None:
        return isinstance(value, hint)
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(v, args[0]) for v in value)
        return len(args) == len(value) and all(_conforms(v, h) for v, h in zip(value, args))
    if origin in (collections.abc.Mapping, dict):
        return isinstance(value, collections.abc.Mapping) and all(
            _conforms(k, args[0]) and _conforms(v, args[1]) for k, v in value.items()) if args else True
    if origin in (collections.abc.Sequence, list):
        return isinstance(value, (list, tuple)) and all(_conforms(v, args[0]) for v in value)
    if origin is typing.Literal:
        return value in args
    return isinstance(value, origin)


def check_types(obj):
    """Raises TypeError naming the field when a field of the dataclass @p obj does not hold its declared type."""
    hints = typing.get_type_hints(type(obj))
    for field in dataclasses.fields(obj):
        value = getattr(obj, field.name)
        if not _conforms(value, hints[field.name]):
            raise TypeError(f"{type(obj).__qualname__}.{field.name}: {value!r} is not {hints[field.name]}")


@dataclasses.dataclass(frozen=True)
class Facts:
    """The base of every frozen, typed facts class: its fields are checked against their types when it is built."""

    def __post_init__(self):
        check_types(self)


# --- the result files, read once -----------------------------------------------------------------------------

def _key(folder, name, check_valid):
    return str(pathlib.Path(folder).resolve()), name, bool(check_valid)


class ResultFiles:
    """The result files of one study, read once by its facts.build (load, load_meta, load_file) and then read by
    its chapters and figures (rows, optional, meta, path). `read` lists every file the chapters use, for the
    provenance tables; a file loaded with for_chapters=False (a figure's alone) is read but not listed there.
    `provenance(path)` is the provenance file beside each file read, found by the study's rule `meta_path`."""

    def __init__(self, results, meta_path=None):
        self.results = pathlib.Path(results)      # experiments/results/<gpu>/<study>
        self._rows, self._meta, self._files, self._header = {}, {}, {}, {}
        self._read, self._provenance, self._folders = {}, {}, {}
        self._meta_path = meta_path or meta_path_of
        self._closed = False

    # reading, while the facts are built
    def _folder_of(self, gpu_folder):
        """The ResultFolder of a GPU folder (its manifest read once)."""
        key = str(pathlib.Path(gpu_folder).resolve())
        if key not in self._folders:
            self._folders[key] = ResultFolder(gpu_folder)
        return self._folders[key]

    def _folder(self, folder):
        return pathlib.Path(folder) if folder is not None else self.results

    def _note(self, path, for_chapters):
        if for_chapters:
            self._read[str(path)] = path
        if path not in self._provenance:
            meta = self._meta_path(path)
            self._provenance[path] = json.loads(meta.read_text()) if meta.exists() else {}

    def load(self, name, folder=None, check_valid=True, for_chapters=True):
        """Reads <folder>/<name>.csv (folder: the study's own by default) through ResultFolder; keeps its rows,
        or the MissingData that says why there are none. Returns the rows or raises that MissingData."""
        assert not self._closed, "result files are read only while the facts are built"
        folder = self._folder(folder)
        key = _key(folder, name, check_valid)
        if key not in self._rows:
            self._rows[key] = self._read_rows(folder, name, check_valid)
            if not isinstance(self._rows[key], MissingData):
                self._note(folder / f"{name}.csv", for_chapters)
        got = self._rows[key]
        if isinstance(got, MissingData):
            raise got
        return list(got)

    def _read_rows(self, folder, name, check_valid):
        path = folder / f"{name}.csv"
        if not path.exists() or path.stat().st_size == 0:
            return MissingData(f"{rel(path)}: the report needs this result file", [path])
        try:
            data = self._folder_of(folder.parent).rows(f"{folder.name}/{name}.csv", invalid_rows="keep")
        except NotAResultFolder as e:
            return MissingData(str(e), [path])
        if not data:
            return MissingData(f"{rel(path)}: no rows", [path])
        if check_valid:
            bad = [r for r in data if invalid(r)]
            if bad:
                return MissingData(f"{rel(path)}: {len(bad)} invalid rows; the report uses only valid results", [path])
        with path.open(newline="") as f:
            self._header[str(path.resolve())] = tuple(next(csv.reader(f), []))
        return tuple(types.MappingProxyType(r) for r in data)

    def load_meta(self, name, folder=None, for_chapters=True):
        """The provenance of <folder>/<name>: its .meta.json (MissingData when absent); the result it describes
        counts as read."""
        assert not self._closed, "result files are read only while the facts are built"
        folder = self._folder(folder)
        key = _key(folder, name, True)
        if key not in self._meta:
            path = folder / f"{name}.meta.json"
            if not path.exists():
                self._meta[key] = MissingData(f"{rel(path)}: the report needs this provenance file", [path])
            else:
                csv_path = path.with_name(f"{name}.csv")
                self._meta[key] = frozen(json.loads(path.read_text()))
                self._note(csv_path if csv_path.exists() else path, for_chapters)
        got = self._meta[key]
        if isinstance(got, MissingData):
            raise got
        return got

    def load_file(self, path, for_chapters=True, parse=json.loads):
        """A result that is not a table (a JSON report, a text listing), read whole; parsed by @p parse."""
        assert not self._closed, "result files are read only while the facts are built"
        path = pathlib.Path(path)
        key = str(path.resolve())
        if key not in self._files:
            if not path.exists():
                self._files[key] = MissingData(f"{rel(path)}: the report needs this result file", [path])
            else:
                self._files[key] = parse(path.read_text())
                self._note(path, for_chapters)
        got = self._files[key]
        if isinstance(got, MissingData):
            raise got
        return got

    def close(self):
        self._closed = True
        return self

    # reading, in chapters and figures
    def _get(self, store, key, what):
        if key not in store:
            raise LookupError(f"{what} was not read by the study's facts (paper/<study>/facts.py reads every result "
                              "file a chapter or figure uses)")
        got = store[key]
        if isinstance(got, MissingData):
            raise got
        return got

    def rows(self, name, folder=None, check_valid=True):
        """The rows of <folder>/<name>.csv, or MissingData (missing, empty, invalid rows)."""
        folder = self._folder(folder)
        return list(self._get(self._rows, _key(folder, name, check_valid), f"{rel(folder / name)}.csv"))

    def optional(self, name, folder=None, check_valid=True):
        """The rows of an optional result, or None when the file is absent (the chapter then says in its text that
        it was not recorded); MissingData when it is there but unreadable."""
        if not (self._folder(folder) / f"{name}.csv").exists():
            return None
        return self.rows(name, folder, check_valid)

    def meta(self, name, folder=None):
        folder = self._folder(folder)
        return self._get(self._meta, _key(folder, name, True), f"{rel(folder / name)}.meta.json")

    def file(self, path):
        return self._get(self._files, str(pathlib.Path(path).resolve()), rel(path))

    def header(self, path):
        """The column names of a CSV file read."""
        return self._header.get(str(pathlib.Path(path).resolve()), ())

    def rows_of(self, path):
        """Every row of the CSV file @p path as read (whatever the reason it was read for)."""
        path = pathlib.Path(path)
        for check_valid in (True, False):
            got = self._rows.get(_key(path.parent, path.stem, check_valid))
            if got is not None and not isinstance(got, MissingData):
                return list(got)
        raise LookupError(f"{rel(path)} was not read by the study's facts")

    def path(self, name, folder=None, suffix=".csv"):
        return self._folder(folder) / f"{name}{suffix}"

    @property
    def read(self):
        """Every result file the chapters use (absolute paths), for the provenance tables."""
        return list(self._read.values())

    def provenance(self, path):
        """The provenance file of @p path (a file read), as a dict; empty when it has none."""
        return self._provenance.get(pathlib.Path(path), {})


def meta_path_of(path):
    """The provenance file the runner writes beside a result: <name>.meta.json for <name>.<suffix>."""
    path = pathlib.Path(path)
    return path.with_name(path.name.rsplit(".", 1)[0] + ".meta.json")


# --- the folders a study's facts read ---------------------------------------------------------------------

def folder_facts(folder):
    """(GPU name, GPU count) of a results folder, from its manifest (experiments/harness/results.py)."""
    try:
        f = ResultFolder(folder)
    except NotAResultFolder:
        return None, 0
    return f.gpu_name, f.gpu_count


def gpu_folders_with_manifest(exclude):
    """Every single-GPU host's folder with a manifest.json, except `exclude` (the main GPU). A folder whose
    manifest says its host had several GPUs is read for the multi-GPU results (multi_gpu_folder), not set
    beside the main GPU as another GPU."""
    out = []
    for d in sorted(RESULTS_ROOT.iterdir()) if RESULTS_ROOT.exists() else []:
        if d.is_dir() and (d / "manifest.json").exists() and d.resolve() != pathlib.Path(exclude).resolve():
            if folder_facts(d)[1] <= 1:
                out.append(d)
    return out


def multi_gpu_folder(results_gpu, study):
    """The folder of <study>'s multi-GPU results for the main GPU: RESULTS itself when its host had several
    GPUs (single- and multi-GPU results of one host share one folder), else $MULTI when set, else a folder of
    experiments/results recorded on a host with several GPUs of the same model. None when there is none."""
    results_gpu = pathlib.Path(results_gpu)
    name, count = folder_facts(results_gpu)
    if count > 1:
        return results_gpu / study
    env = os.environ.get("MULTI", "").strip()
    if env:
        folder = pathlib.Path(env) if pathlib.Path(env).is_absolute() else ROOT / env
        if not (folder / "manifest.json").exists():
            raise MissingData(f"{env}: MULTI names no results folder")
        return folder / study
    for _, d in other_multi_gpu_hosts(results_gpu, name):
        return d / study
    return None


def other_multi_gpu_hosts(results_gpu, name):
    """(GPU count, folder) of every folder of experiments/results other than @p results_gpu recorded on a host
    with several GPUs named @p name, in folder-name order."""
    for d in sorted(RESULTS_ROOT.iterdir()) if RESULTS_ROOT.exists() else []:
        other_name, other_count = folder_facts(d) if d.is_dir() else (None, 0)
        if other_count > 1 and other_name == name and d.resolve() != pathlib.Path(results_gpu).resolve():
            yield other_count, d


def multi_gpu_folders(results_gpu, study):
    """Every folder of <study>'s results recorded on a host with several GPUs of the main GPU's model, fewest GPUs
    first: RESULTS itself when its host had several, and each such folder of experiments/results (the fit's
    scaling table sets the hosts of two and of four GPUs side by side). Empty when there is none."""
    results_gpu = pathlib.Path(results_gpu)
    name, count = folder_facts(results_gpu)
    found = ([(count, results_gpu)] if count > 1 else []) + list(other_multi_gpu_hosts(results_gpu, name))
    return [d / study for _, d in sorted(found, key=lambda cd: (cd[0], cd[1].name))]


def compare_folders(results_gpu):
    """The GPU folders to set beside the main one: $COMPARE (space- or comma-separated) if set, else every
    other folder of experiments/results with a manifest.json."""
    env = os.environ.get("COMPARE", "").replace(",", " ").split()
    if env:
        folders = [pathlib.Path(p) if pathlib.Path(p).is_absolute() else ROOT / p for p in env]
        for f in folders:
            if not f.is_dir():
                raise MissingData(f"{f}: COMPARE names a folder that does not exist")
        main = pathlib.Path(results_gpu).resolve()
        return [f for f in folders if f.resolve() != main]
    return gpu_folders_with_manifest(results_gpu)


def study_compare_folders(study, results_gpu):
    """The <gpu>/<study> folders to set beside the main GPU's: by default every other GPU that has recorded the
    study (a GPU folder made before the study existed is left out of its comparisons, not an error); a folder
    that $COMPARE names must hold the study."""
    compare = [f / study for f in compare_folders(results_gpu)]
    if os.environ.get("COMPARE", "").strip():
        for f in compare:
            if not f.is_dir():
                raise MissingData(f"{rel(f)}: COMPARE names a GPU without results of the study {study}")
        return compare
    return [f for f in compare if f.is_dir() and any(p.suffix == ".csv" for p in f.iterdir())]


def published(study):
    """The study's published numbers: paper/<study>/published.json."""
    path = ROOT / "paper" / study / "published.json"
    if not path.exists():
        raise MissingData(f"{rel(path)}: every study keeps its published numbers there (an empty object when none)")
    return json.loads(path.read_text())
