"""One way to read a results folder: its manifest, the kinds' declarations, one check of every file it reads
and one rule for invalid rows.

    folder = ResultFolder("experiments/results/nvidia-h200")
    folder.files                       {"mwsep/memory_spaces.csv": manifest entry, ...}
    folder.kind("mwsep/memory_spaces.csv")   the Kind declared for it (experiments/studies/<study>.py)
    folder.problems(rel)                     what is wrong with the file as data (check_file), [] when nothing
    folder.rows(rel, invalid="refuse")       its rows, once the file is checked and complete; "refuse" raises
                                             InvalidRows, "skip" drops them, "keep"
    folder.medians(rel)                      {configuration (the kind's key): median of its value}
    folder.meta(rel)                         its provenance (<file>.meta.json)
    folder.gpu_count, folder.gpu_name        from the manifest (one folder per host, single- and multi-GPU)

Results are data and are checked like data before anything reads a number from them. A file is read only
when the manifest lists it and its experiment as done (IncompleteFile otherwise: a killed or failed run's
file never turns into a number) and when it passes check_file (BadResultFile otherwise, with the file, the
line and the column): the columns its kind declares, a number (never NaN) in every numeric cell, a finite
positive number in every duration or rate (the kind's `times`), every line whole (a truncated last line is
refused), no configuration twice where a configuration is one row and no row twice where rows are samples,
the `experiment` column naming the experiment its .meta.json names, the .meta.json naming the file's
experiment, kind and a commit the manifest lists, and, where the manifest recorded it, the file's size in rows
and its SHA-256 (a file edited after the runner wrote it is refused). Whether a correctness row passes is
worked out from its values and its kind's declared checks (failed_checks), never read from its `pass` column;
the results check reports a `pass` column that says otherwise (pass_disagreements).

The rule for invalid rows, in one place: a row is invalid when it has a `valid` or a `pass` column that is
not "true" (a timed output that disagreed with its reference, a failed comparison). The report, the
figures, the comparison and the results check all read through this module.

FORMAT is the results-folder format this tree writes and reads (the manifest's "format"; a folder written
before the format was kept is format 1); a folder of a newer format is refused, never half understood.
"""
import csv
import hashlib
import importlib
import io
import json
import math
import pathlib
import re
import statistics

from .kinds import key_value

# The results-folder format this tree writes and reads: 1, the folders written before the manifest named
# its format; 2, the manifest names it and records each file's SHA-256 and rows, and each job's rows.
FORMAT = 2
ROOT = pathlib.Path(__file__).resolve().parents[2]


class NotAResultFolder(ValueError):
    """A folder that is not a results folder this tree can read: no manifest, a damaged or foreign one, a newer
    format, a folder whose files disagree with it. Its message names the file and what to do."""


class BadResultFile(ValueError):
    """A result file that is not what its kind declares (check_file); `problems` lists every finding."""

    def __init__(self, problems):
        self.problems = list(problems)
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        super().__init__(self.problems[0] + more)


class InvalidRows(ValueError):
    """A file holds rows marked invalid and its reader refuses them."""


class IncompleteFile(ValueError):
    """A file whose experiment the manifest does not list as done: nothing reads it."""


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
    groups = samples(rows, key, value)
    return {k: statistics.median(v) for k, v in groups.items()}


def samples(rows, key, value):
    """{tuple of the key columns: [the value of every row with a number]} (medians' groups)."""
    groups = {}
    for r in rows:
        v = number(r.get(value, ""))
        if v is not None:
            groups.setdefault(tuple(key_value(r, k) for k in key), []).append(v)
    return groups


def sha256(path):
    h = hashlib.sha256()
    with pathlib.Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def meta_path(path):
    path = pathlib.Path(path)
    return path.with_name(path.name.rsplit(".", 1)[0] + ".meta.json")


def committed_folder(path):
    """The committed folder @p path lies in (experiments/results/<host>/ other than local/, or
    experiments/records/<record>/), or None: nothing but the runner recording a host's results writes there."""
    p = pathlib.Path(path).resolve()
    for base in (ROOT / "experiments" / "results", ROOT / "experiments" / "records"):
        base = base.resolve()
        if p == base:
            return p
        if p.is_relative_to(base):
            top = base / p.relative_to(base).parts[0]
            if not (base.name == "results" and top.name == "local"):
                return top
    return None


def at(path, line=None, column=None):
    """Where a problem is: `<file>:<line>: column <c>:`."""
    return f"{path}" + (f":{line}" if line else "") + (f": column {column}" if column else "") + ":"


def check_rule(row, rule):
    """Whether @p row passes one declared correctness check (column, op, bound): its `column` is <= (or >) the
    bound, a number or a column (the larger of several); (True, "") where the row lacks the column; (False, why)."""
    column, op, bound = rule
    if column not in row:
        return True, ""
    x = number(row[column])
    bounds = [bound] if isinstance(bound, (int, float, str)) else list(bound)
    values = [b if isinstance(b, (int, float)) else number(row.get(b, "")) for b in bounds
              if isinstance(b, (int, float)) or b in row]
    if x is None or not values or any(v is None for v in values):
        return False, f"{column} {row[column]!r} against {bound!r}: not a number"
    limit = max(values)
    ok = x <= limit if op == "<=" else x > limit
    named = "" if isinstance(bound, (int, float)) else f" ({bound if isinstance(bound, str) else ' or '.join(bound)})"
    return ok, "" if ok else f"{column} {row[column]} is not {op} {limit:g}{named}"


def check_table(path, kind, extra_columns=(), experiment=None, text=None):
    """(problems, rows) of the CSV file @p path as @p kind declares it (see the module's description); each
    problem names the file, the line and the column. @p experiment: the experiment its .meta.json names."""
    path = pathlib.Path(path)
    problems = []
    if text is None:
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as e:
            return [f"{at(path)} cannot be read: {e}"], []
    if not text:
        return [f"{at(path)} empty"], []
    if not text.endswith("\n"):
        problems.append(f"{at(path, text.count(chr(10)) + 1)} the last line has no end: the file was cut short "
                        "(a run killed while it wrote?); record it again")
    reader = csv.reader(io.StringIO(text))
    header = next(reader, [])
    if len(set(header)) != len(header):
        problems.append(f"{at(path, 1)} a column named twice in the header")
    missing = [c for c in list(kind.columns) + list(extra_columns) if c not in header]
    if missing:
        problems.append(f"{at(path, 1)} missing columns {missing} (the kind declares {list(kind.columns)})")
    rows, lines = [], []
    one_row = kind.compare.method in ("correctness", "points")  # compared one row to one row
    for fields in reader:
        line = reader.line_num
        if len(fields) != len(header):
            problems.append(f"{at(path, line)} {len(fields)} fields, the header has {len(header)} (a line cut short "
                            "or damaged)")
            continue
        row = dict(zip(header, fields))
        for c in header:
            v = row[c]
            if c not in kind.numeric or v == "":
                continue
            x = number(v)
            if x is None:
                problems.append(f"{at(path, line, c)} not a number: {v!r}")
            elif math.isnan(x):
                problems.append(f"{at(path, line, c)} NaN")
            elif c in kind.times and not (math.isfinite(x) and (x > 0 or (x == 0 and c in kind.may_be_zero))):
                problems.append(f"{at(path, line, c)} a time or rate must be a finite positive number, not {v!r}")
        if "cache" in row and row["cache"] not in ("cold", "warm", ""):
            problems.append(f"{at(path, line, 'cache')} {row['cache']!r}, expected cold or warm")
        if experiment and row.get("experiment", experiment) != experiment:
            problems.append(f"{at(path, line, 'experiment')} {row['experiment']!r}, but its .meta.json names "
                            f"experiment {experiment!r}")
        rows.append(row)
        lines.append(line)
    if not rows and not problems:
        problems.append(f"{at(path)} no rows")
    if one_row:
        seen = {}
        for row, line in zip(rows, lines):
            k = tuple(key_value(row, c) for c in kind.key)
            if k in seen:
                problems.append(f"{at(path, line)} configuration {'/'.join(x for x in k if x) or '()'} again (first "
                                f"on line {seen[k]}): one row per configuration")
            seen.setdefault(k, line)
    else:
        seen = {}
        for row, line in zip(rows, lines):
            k = tuple(row.values())
            if k in seen:
                problems.append(f"{at(path, line)} the same row as line {seen[k]} (rows appended twice?)")
            seen.setdefault(k, line)
    return problems, rows


def failed_checks(row, kind):
    """Why @p row of a correctness kind fails its declared checks (Compare.checks), worked out from its values
    alone: [] when it passes."""
    return [why for ok, why in (check_rule(row, r) for r in kind.compare.checks) if not ok]


def pass_disagreements(path, kind, rows):
    """A problem for each row of a correctness kind whose `pass` column says otherwise than its values and the
    declared tolerance (a row edited by hand, or a program whose rule and the declaration differ)."""
    out = []
    if not kind.compare.checks:
        return out
    for line, row in enumerate(rows, start=2):
        if "pass" not in row:
            continue
        fails = failed_checks(row, kind)
        if (row["pass"] == "true") == bool(fails):
            out.append(f"{at(path, line, 'pass')} says {row['pass']}, but its values and the declared tolerance "
                       f"say {'false: ' + fails[0] if fails else 'true'}")
    return out


def check_text(path, kind):
    """Problems of a text or JSON result: empty, without its kind's marker, not JSON, a JSON value that is no
    finite number."""
    path = pathlib.Path(path)
    try:
        text = path.read_text(errors="replace")
    except OSError as e:
        return [f"{at(path)} cannot be read: {e}"]
    problems = []
    if not text.strip() or (kind.marker and not re.search(kind.marker, text, re.M)):
        problems.append(f"{at(path)} incomplete output (no match for {kind.marker!r})")
    if kind.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError as e:
            return problems + [f"{at(path)} not JSON: {e}"]
        if kind.compare.method == "json_value":
            v = data.get(kind.value) if isinstance(data, dict) else None
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
                problems.append(f"{at(path)} field {kind.value!r} is {v!r}, not a finite number")
    return problems


def _definition_columns(study, experiment, kind_name):
    """Columns a definition adds to its kind's: the metric columns of an ncu_metrics definition."""
    if kind_name != "ncu_metrics":
        return []
    path = ROOT / "experiments" / "definitions" / study / f"{experiment}.json"
    try:
        return list(json.loads(path.read_text()).get("metrics", {}))
    except (OSError, ValueError):
        return []


def read_manifest(path):
    """The manifest at @p path, refused (NotAResultFolder, naming the file and what to do) when it is damaged
    (not JSON), foreign (not the runner's tables, a file outside its folder, an entry without its experiment,
    kind or commits) or of a newer format than FORMAT."""
    path = pathlib.Path(path)
    try:
        m = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise NotAResultFolder(f"{path}: damaged (not JSON: {e}); the runner writes it whole, so it was changed "
                               "by something else: restore it from version control, or record the folder again "
                               "into a fresh --out") from None
    _check_manifest(m, path)
    return m


def _check_manifest(m, where):
    """Refuses a manifest this tree cannot read as the runner's: another format, a foreign structure, a file
    outside the folder."""
    if not isinstance(m, dict) or not isinstance(m.get("files"), dict) or not isinstance(m.get("experiments"), dict):
        raise NotAResultFolder(f"{where}: not a manifest of experiments/run.py (it has no files and experiments "
                               "tables): a foreign file; use a folder the runner wrote")
    fmt = m.get("format", 1)
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
        raise NotAResultFolder(f"{where}: format {fmt!r} is not a results-folder format")
    if fmt > FORMAT:
        raise NotAResultFolder(f"{where}: a results folder of format {fmt}, written by a newer runner; this tree "
                               f"reads formats up to {FORMAT}: read it with the tree that wrote it (its commit is in "
                               "every .meta.json), or update this one")
    for rel, entry in m["files"].items():
        parts = pathlib.PurePosixPath(rel).parts
        if pathlib.PurePosixPath(rel).is_absolute() or ".." in parts or len(parts) != 2:
            raise NotAResultFolder(f"{where}: file {rel!r} is not <study>/<file> inside the folder: a damaged or "
                                   "foreign manifest")
        if not isinstance(entry, dict) or not all(k in entry for k in ("experiment", "kind", "commits")):
            raise NotAResultFolder(f"{where}: the entry of {rel} lacks its experiment, kind or commits: a damaged "
                                   "or foreign manifest")
        if entry["experiment"] not in m["experiments"] and "/" in entry["experiment"]:
            raise NotAResultFolder(f"{where}: {rel} names experiment {entry['experiment']!r}, which the manifest "
                                   "does not list: a damaged manifest")


class ResultFolder:
    def __init__(self, path):
        self.path = pathlib.Path(path)
        manifest = self.path / "manifest.json"
        if not manifest.is_file():
            raise NotAResultFolder(f"{self.path}: no manifest.json (not a folder written by experiments/run.py)")
        self.manifest = read_manifest(manifest)
        self.manifest_path = manifest
        if self.manifest.get("pending"):
            raise NotAResultFolder(f"{manifest}: a run was stopped while it committed a job "
                                   f"({self.manifest['pending'].get('experiment')}, {self.manifest['pending'].get('job')}): "
                                   "run the runner on the folder again (its --out) to finish the commit before "
                                   "anything reads it")
        self.files = self.manifest["files"]
        self.experiments = self.manifest["experiments"]
        self.host = self.manifest.get("host", {})
        self._problems = {}

    @property
    def format(self):
        return self.manifest.get("format", 1)

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

    def complete(self, rel):
        """Whether the manifest lists @p rel and its experiment as done (every job done or skipped): the only
        files anything reads."""
        return rel in self.files and self.status(rel) == "done"

    def meta(self, rel):
        path = meta_path(self.path / rel)
        return json.loads(path.read_text()) if path.is_file() else {}

    def problems(self, rel):
        """What is wrong with @p rel as data (see the module's description): [] when nothing."""
        if rel not in self._problems:
            self._problems[rel] = self._check(rel)
        return self._problems[rel][0]

    def integrity_problems(self, rel):
        """Whether @p rel is as the runner left it, whatever its kind: listed, present, its SHA-256 the one the
        manifest recorded, its .meta.json there and naming it, its experiment, kind and a listed commit.
        (problems, meta)."""
        path = self.path / rel
        entry = self.files.get(rel)
        if entry is None:
            return [f"{at(path)} not in {self.manifest_path.name}"], None
        if not path.is_file():
            return [f"{at(path)} in {self.manifest_path.name} but missing"], None
        problems = []
        recorded = entry.get("sha256")
        if recorded and sha256(path) != recorded:
            problems.append(f"{at(path)} changed since the runner wrote it (its SHA-256 is not the one "
                            f"{self.manifest_path.name} recorded): a result file is never edited; record it again")
        mpath = meta_path(path)
        meta = None
        try:
            meta = json.loads(mpath.read_text())
        except FileNotFoundError:
            problems.append(f"{at(path)} no provenance file {mpath.name}")
        except (OSError, UnicodeDecodeError, ValueError) as e:
            problems.append(f"{at(mpath)} damaged (not JSON: {e})")
        if meta is not None:
            problems += self._check_meta(rel, mpath, meta, entry)
        problems += self._check_origins(rel, mpath, meta, entry)
        return problems, meta

    def _check_origins(self, rel, mpath, meta, entry):
        """A file whose rows the manifest says came from two hosts, boots or source trees (the origins of the jobs
        whose rows it holds), or whose .meta.json names another host than they ran on."""
        exp = self.experiments.get(entry["experiment"], {})
        origins = exp.get("origins", {})
        kept = [k for k, _ in entry.get("parts", [])] or \
            [k for k, s in exp.get("jobs", {}).items() if s == "done" or str(s).startswith("verify failed")]
        seen = {}
        for key in kept:
            o = origins.get(key)
            if o is not None:
                seen.setdefault((o.get("hostname"), o.get("boot_id"), o.get("commit"), o.get("dirty"),
                                 o.get("source_hash")), key)
        out = []
        if len(seen) > 1:
            (a, ka), (b, kb) = list(seen.items())[:2]
            out.append(f"{at(self.path / rel)} its rows come from jobs of two hosts or source trees (job {ka} on "
                       f"{a[0]} at {str(a[2])[:7]}, job {kb} on {b[0]} at {str(b[2])[:7]}): a file's rows come from one "
                       "host and one tree; record it again")
        hosts = {h for h, *_ in seen}
        if meta is not None and meta.get("host_name") and hosts and meta["host_name"] not in hosts:
            out.append(f"{at(mpath)} names host {meta['host_name']}, but its jobs ran on {', '.join(sorted(map(str, hosts)))}")
        return out

    def _check(self, rel):
        path = self.path / rel
        problems, meta = self.integrity_problems(rel)
        entry = self.files.get(rel)
        if entry is None or not path.is_file():
            return problems, None
        kind = self.kind(rel)
        if kind is None:
            return problems + [f"{at(path)} the study {self.study_of(rel)} declares no kind '{entry['kind']}' "
                               "covering this file"], None
        if kind.suffix != ".csv":
            return problems + check_text(path, kind), None
        experiment = (meta or {}).get("experiment") or entry["experiment"].split("/", 1)[-1]
        table_problems, rows = check_table(path, kind, _definition_columns(self.study_of(rel), experiment,
                                                                              entry["kind"]), experiment)
        problems += table_problems
        if "rows" in entry and len(rows) != entry["rows"] and not table_problems:
            problems.append(f"{at(path)} {len(rows)} rows, {self.manifest_path.name} recorded {entry['rows']}")
        return problems, rows

    def _check_meta(self, rel, mpath, meta, entry):
        """A .meta.json that names another file, experiment, kind or commit than the manifest's entry."""
        out = []
        if not isinstance(meta, dict):
            return [f"{at(mpath)} not a provenance record (a JSON object)"]
        named = f"{meta.get('study', self.study_of(rel))}/{meta.get('experiment')}"
        # One .meta.json may serve the files of one stem (a table and its log), naming them all in "files".
        if meta.get("file") not in (None, rel) and rel not in (meta.get("files") or []):
            out.append(f"{at(mpath)} names file {meta['file']!r}, not {rel}: the provenance of another file")
        if named != entry["experiment"]:
            out.append(f"{at(mpath)} names experiment {named}, the manifest {entry['experiment']}")
        if meta.get("kind") != entry["kind"]:
            out.append(f"{at(mpath)} names kind {meta.get('kind')!r}, the manifest {entry['kind']!r}")
        commits = [meta.get("git_commit")] + list(meta.get("git_commits") or [])
        foreign = [c for c in commits if c not in entry["commits"]]
        if foreign:
            out.append(f"{at(mpath)} names commit {foreign[0]}, which the manifest does not list for {rel} "
                       f"({', '.join(entry['commits']) or 'none'})")
        return out

    def rows(self, rel, invalid_rows="refuse", incomplete="refuse"):
        """The rows of @p rel once it is checked: BadResultFile when check_file finds a problem, IncompleteFile
        when the manifest does not list it as done (@p incomplete "refuse"; "read" for the results check, which
        reports such files), then the rule for invalid rows."""
        if incomplete == "refuse" and not self.complete(rel):
            raise IncompleteFile(f"{self.path / rel}: its experiment is {self.status(rel) if rel in self.files else 'not in the manifest'}, "
                                 "not done: nothing reads a file the manifest does not list as complete")
        if self.problems(rel):
            raise BadResultFile(self.problems(rel))
        rows = self._problems[rel][1]
        if rows is None:
            raise BadResultFile([f"{at(self.path / rel)} not a table ({self.kind(rel).suffix} result)"])
        bad = [i for i, r in enumerate(rows, start=2) if invalid(r)]
        if bad and invalid_rows == "refuse":
            raise InvalidRows(f"{self.path / rel}: {len(bad)} rows marked invalid (first on line {bad[0]})")
        if invalid_rows == "skip":
            rows = [r for r in rows if not invalid(r)]
        return rows

    def text(self, rel, incomplete="refuse"):
        """The text of a non-CSV result @p rel once it is checked (as rows())."""
        if incomplete == "refuse" and not self.complete(rel):
            raise IncompleteFile(f"{self.path / rel}: its experiment is not done: nothing reads it")
        if self.problems(rel):
            raise BadResultFile(self.problems(rel))
        return (self.path / rel).read_text(errors="replace")

    def medians(self, rel, key=None, value=None, invalid_rows="skip"):
        k = self.kind(rel)
        key = key if key is not None else (k.key if k else ())
        value = value or (k.value if k else "")
        return medians(self.rows(rel, invalid_rows), key, value)
