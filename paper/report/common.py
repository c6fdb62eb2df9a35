"""What every study's chapter modules share: the output a chapter writes, medians, number formatting, captioned
tables, and the tables every study prints alike (provenance, cache states, cold against warm).

A study is a folder paper/<study>/ with chapters (*.md), its facts (facts.py: the one reader of its result files;
paper/report/facts.py) and a package paper/<study>/data/ whose modules each define build(ctx, facts) for one
chapter: ctx is that chapter's Output, facts the study's facts. paper/report_data.py runs them; their order
does not matter.
"""
import collections
import importlib
import json
import math
import pathlib
import re
import statistics
from collections import defaultdict

from paper.report.facts import ROOT, MissingData, rel  # noqa: F401 (the chapters' names for them)


class Output:
    """What one chapter writes, and nothing else: its numbers (substitution name -> text), its tables (name ->
    MyST text) and the fallbacks it took (a part it printed as not measured or not recorded, with why and the
    result files it rests on, for the report check). A chapter reads only its study's facts."""

    def __init__(self):
        self.n = {}
        self.tables = {}
        self.fallbacks = []
        self.verdicts = []

    def fallback(self, what, reason, sources=()):
        """Records that @p what (a number or table) fell back to a "not measured" text, because of @p reason
        (a MissingData or words), resting on the result files @p sources (absolute paths or paths relative to
        the repository). tools/check_report.py fails the report when every source of a fallback exists."""
        if isinstance(reason, MissingData):
            sources = tuple(sources) + reason.sources
        self.fallbacks.append({"what": what, "reason": str(reason), "sources": [rel(s) for s in dict.fromkeys(sources)]})

    def verdict(self, kind, claim, document, published=None, value=None, why=None):
        """Records the verdict of one claim of @p document (its key in paper/documents.json: T, P, S1, ...) for
        the report's abstract, which counts them per study (paper/report/frontmatter.py), and for the reviewer's
        kit, which reads the same records (experiments/claim_verdicts.py): @p kind is one of VERDICT_KINDS, or None
        for a published value compared without a verdict; @p published, @p value and @p why, the published value,
        the value measured here and the reason the table prints beside the verdict, as the table prints them."""
        if kind is not None and kind not in VERDICT_KINDS:
            raise ValueError(f"{claim!r}: verdict kind {kind!r} is none of {', '.join(VERDICT_KINDS)}")
        record = {"claim": str(claim), "document": document, "kind": kind}
        for key, text in (("published", published), ("value", value), ("why", why)):
            if text is not None and str(text):
                record[key] = str(text)
        self.verdicts.append(record)

    def judged(self, rows, document, words, column=-1, strict=False, published=None, value=None):
        """Records the verdicts of a claims table's rows (the rows given to table()), the claim being a row's first
        cell and its verdict cell (@p column) read by the chapter's own words: @p words, (pattern, kind) pairs, the
        first whose regular expression matches the cell's start giving the kind (None: a value compared without a
        verdict). A cell no pattern matches is compared without a verdict, or, with @p strict (a table whose every
        row is judged), a fault of the code: the chapter's words changed and its patterns did not. @p published
        and @p value: the columns of the published value and of the value measured here (the verdict cell when
        not given, where a table prints the value in its verdict)."""
        for row in rows:
            text = str(row[column])
            kinds = [kind for pattern, kind in words if re.match(pattern, text)][:1]
            if not kinds and strict:
                raise ValueError(f"{row[0]!r}: the verdict {text!r} matches none of the patterns its chapter "
                                 "declares for the kinds of its verdicts (Output.judged)")
            self.verdict(kinds[0] if kinds else None, row[0], document,
                         published=row[published] if published is not None else None,
                         value=row[value if value is not None else column], why=text if value is not None else None)


# The kinds of verdict a claim can get, in every study alike (the words the abstract counts them in).
REPRODUCED, QUALITATIVE, DIFFERS, NOT_TESTABLE = ("reproduced", "reproduced qualitatively", "differs",
                                                  "not testable here")
VERDICT_KINDS = (REPRODUCED, QUALITATIVE, DIFFERS, NOT_TESTABLE)


def groups(data, value="kernel_ms", key=("variant", "work_unit")):
    out = defaultdict(list)
    for r in data:
        out[tuple(r[k] for k in key)].append(float(r[value]))
    return out


def medians(data, value="kernel_ms", key=("variant", "work_unit")):
    return {k: statistics.median(v) for k, v in groups(data, value, key).items()}


def need(table, key, source):
    if key not in table:
        raise MissingData(f"{source}: no rows for {key}")
    return table[key]


def fmt(v, digits=3):
    """A number with `digits` significant digits, thousands separated by a thin space."""
    if v == 0 or not math.isfinite(v):
        return str(v)
    mag = math.floor(math.log10(abs(v)))
    decimals = max(0, digits - 1 - mag)
    return f"{v:,.{decimals}f}".replace(",", "\u202f")


def big(v, digits=3):
    """A large count or rate in words: 41.2 million, 92.5 billion, 1.2 trillion; fmt below a million."""
    for scale, word in [(1e12, "trillion"), (1e9, "billion"), (1e6, "million")]:
        if abs(v) >= scale:
            return f"{fmt(v / scale, digits)} {word}"
    return fmt(v, digits)


def num(text):
    """A number printed by fmt back to a float."""
    return float(str(text).replace("\u202f", "").replace(",", "").rstrip("x%"))


def pct(v, digits=1):
    """A signed percentage; the minus sign is the typographic one so that it never parts from its digits."""
    s = f"{v:+.{digits}f}%"
    return s.replace("-", "\u2212")


def signed(v, digits=1):
    return f"{v:+.{digits}f}".replace("-", "\u2212")


_BREAK_AFTER = {"/": re.compile(r"(?<=\w)/(?=\w)"), ".": re.compile(r"(?<=[A-Za-z0-9])\.(?=[A-Za-z])")}
# A hyphen that is a minus sign: before a digit, at the start or after a space or an opening bracket (not in a
# range such as 0.10-0.96, nor in a name such as r-16).
_MINUS = re.compile(r"(?:^|(?<=[\s(\[]))-(?=\d)")


def breakable(text, mark):
    """@p text with an invisible break opportunity (U+200B) after each @p mark between two word characters
    ("GFLOP/s" in a header, "stream1.sigma" in a cell; not a decimal point), and with the typographic minus sign,
    which never parts from its digits, for a hyphen that is one; both outside `code` spans, so that narrow PDF table
    columns wrap where they may and not after a minus; HTML shows the same text."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = _MINUS.sub("\u2212", _BREAK_AFTER[mark].sub(mark + "\u200b", parts[i]))
    return "`".join(parts)


WIDE_TABLE = 10  # columns from which the PDF sets a table in a smaller font

# A cell that is one number as fmt, pct, signed and the chapters print it: a sign, an approximation mark, digits
# grouped by thin spaces, a decimal part, an exponent, and a unit that is a ratio or a share ("x", "%"); or two
# such numbers set against each other ("published / here").
_ONE_NUMBER = r"[\u2212+-]?[≈~]?\s?\d[\d\u202f,]*(?:\.\d+)?(?:[eE][\u2212+-]?\d+)?\s?[x×%]?"
_NUMBER = re.compile(rf"{_ONE_NUMBER}(?:\s/\s{_ONE_NUMBER})?")
# Cells that stand for a missing number in a column of numbers, and do not make it a column of words.
_NO_NUMBER = {"", "-", "\u2212", "\u2014", "\u2013", "n/a", "not recorded", "not measured", "(not measured)"}


def numeric_columns(body):
    """The indices of the columns of @p body (rows of cells) that hold numbers: at least one cell is a number
    (_NUMBER) and every other stands for a missing one. Their cells are set flush right, so that digits align."""
    if not body:
        return set()
    out = set()
    for i in range(max(len(r) for r in body)):
        cells = [str(r[i]).strip() for r in body if i < len(r)]
        numbers = [c for c in cells if c not in _NO_NUMBER]
        if numbers and all(_NUMBER.fullmatch(c) for c in numbers):
            out.add(i)
    return out


def table(caption, header, body, name=None, widths=None):
    """A captioned MyST table. `caption` carries its own number ("Table 4.2 (thesis): ...", "Table R3: ...");
    the report does not number tables automatically, so that its numbers cannot pass for the thesis's. The fence is
    of tildes: after a fence of backticks, a caption with inline code (a backtick) is no directive, and the whole
    table would come out as text."""
    if "\n" in caption or "~~~" in caption:
        raise ValueError(f"a table caption must be one line without '~~~': {caption[:80]!r}")
    lines = [f"~~~{{table}} {caption}"]
    if name:
        lines.append(f":name: {name}")
    if widths:
        # Tables with set widths hold paragraphs (claims, verdicts): as LaTeX longtables they may break across pages
        # (a plain tabular taller than the page runs off its bottom).
        lines.append(":widths: " + " ".join(str(w) for w in widths))
        lines.append(":class: longtable")
    lines.append(":align: center")
    lines.append("")
    lines.append("| " + " | ".join(breakable(h, "/") for h in header) + " |")
    right = numeric_columns(body)
    # A column of numbers is set flush right (HTML: paper/_static/report.css; PDF: paper/report/sphinx.py).
    lines.append("|" + "".join("---:|" if i in right else "---|" for i in range(len(header))))
    lines += ["| " + " | ".join(breakable(str(c).replace("|", "/"), ".") for c in row) + " |" for row in body]
    lines.append("~~~")
    if len(header) >= WIDE_TABLE:
        # The PDF sets a table this wide a size smaller (paper/conf.py, \ifmwsepWideTable); HTML ignores raw LaTeX.
        lines = ["```{raw} latex", "\\mwsepWideTabletrue", "```", ""] + lines + ["", "```{raw} latex",
                                                                               "\\mwsepWideTablefalse", "```"]
    return "\n".join(lines) + "\n"


# The report's appendix on provenance (paper/provenance.md, its tables written by paper/report/frontmatter.py):
# the recording commits, the code changed since with why no recorded number depends on it, the files without a
# provenance file and the counts of every study. A chapter's provenance table points there in one line.
APPENDIX = "/provenance"


def provenance_counts(metas):
    """What the provenance files @p metas (one per result file, {} for a file without one) say together:
    {files, without (no provenance file), dirty (recorded from a tree with uncommitted changes), commit (the
    commit most name, or None), at_commit (how many name it)}."""
    commits = collections.Counter(m["git_commit"] for m in metas if m.get("git_commit"))
    commit, at = commits.most_common(1)[0] if commits else (None, 0)
    return {"files": len(metas), "without": sum(1 for m in metas if not m),
            "dirty": sum(1 for m in metas if m.get("git_dirty")), "commit": commit, "at_commit": at}


def provenance_pointer(metas):
    """The one line a chapter prints above its provenance table: the commit most of its result files were recorded
    at, how many were recorded from a tree with uncommitted changes or have no provenance file, and where the
    appendix lists the code changed since that commit with why no recorded number depends on it."""
    c = provenance_counts(metas)
    n = c["files"]
    if c["commit"]:
        at = "All" if c["at_commit"] == n else f"{c['at_commit']} of the"
        line = f"{at} {n} result files below were recorded at commit {c['commit'][:7]}"
    else:
        line = f"None of the {n} result files below names the commit it was recorded at"
    notes = []
    if c["dirty"]:
        notes.append(f"{c['dirty']} from a tree with uncommitted changes, marked dirty")
    if c["without"]:
        notes.append(f"{c['without']} without a provenance file, {'its row' if c['without'] == 1 else 'their rows'} empty")
    line += (f" ({'; '.join(notes)})" if notes else "")
    return f"{line}. The code changed since that commit, and whether a recorded number depends on it: {{doc}}`{APPENDIX}`.\n\n"


def read_with_provenance(files):
    """[(path, provenance dict)] of every result file a study's chapters read (its facts' ResultFiles, which read
    each file's provenance with it), in path order."""
    return [(p, files.provenance(p)) for p in sorted(files.read, key=str)]


def provenance_table(files, caption):
    """The provenance of every result file a study's chapters read (its facts' ResultFiles): its GPU or host, driver,
    CUDA, short commits and date, from the provenance file beside it, under a short @p caption; above it, one line
    with the commit most of them were recorded at and a pointer to the appendix (provenance_pointer)."""
    body, metas = [], []
    for path, m in read_with_provenance(files):
        metas.append(m)
        commits = m.get("git_commits") or [m.get("git_commit", "")]
        mark = " (dirty)" if m.get("git_dirty") else ""
        body.append([rel(path).replace("experiments/results/", "").replace("/", "/\u200b"),
                     (m.get("gpu_name") or m.get("host_cpu", "")).replace("NVIDIA ", ""), m.get("driver_version", ""),
                     m.get("cuda_version", ""), ", ".join(str(x)[:7] for x in commits) + mark, m.get("date_utc", "")[:10]])
    return provenance_pointer(metas) + table(caption, ["result", "GPU / host", "driver", "CUDA", "commits", "date"],
                                             body, widths=[34, 14, 12, 7, 18, 15])


def short_gpu(name):
    """'NVIDIA H100 80GB HBM3' -> 'H100 80GB HBM3'."""
    return name.replace("NVIDIA ", "")


def _host_only(meta):
    """Whether a result's kind is measured on the host alone (its study's kind declaration says so)."""
    try:
        study = importlib.import_module(f"experiments.studies.{meta['study']}").Study
        return study.kinds()[meta["kind"]].host_only
    except (KeyError, ImportError, AttributeError):
        return False


def cache_paragraph(files):
    """A generated paragraph: for every result of sampled timings (a `noise_pct` column) that the chapters read,
    whether its samples were taken cold (the L2 flushed before each, `--cold`) or warm (what the previous sample
    left in the L2 still there). Results recorded before the benches could flush have no `cache` column and
    were warm. An input smaller than the L2, timed warm, is read from the L2: its rates are no memory figures."""
    kinds = {"cold": [], "warm": [], "cold and warm": [], "unflushed": []}
    l2_bytes = set()
    for path in sorted((pathlib.Path(p) for p in files.read), key=str):
        if path.suffix != ".csv" or not path.exists():
            continue
        header, rows = files.header(path), files.rows_of(path)
        if "noise_pct" not in header:
            continue
        caches = {r.get("cache", "") for r in rows} if "cache" in header else None
        meta = files.provenance(path)
        if _host_only(meta):
            continue  # a host timing: no GPU cache to flush
        name = f"`{path.stem}`"
        if any(name in v for v in kinds.values()):
            continue  # the same experiment on another GPU: stated once
        if caches is None:
            kinds["unflushed"].append(name)
        else:
            kinds["cold and warm" if caches >= {"cold", "warm"} else "cold" if caches == {"cold"} else "warm"].append(name)
        if meta.get("l2_cache_bytes"):
            l2_bytes.add(int(meta["l2_cache_bytes"]))
    if not any(kinds.values()):
        return "No result these chapters read was timed by sampling: no cache state to state.\n"
    parts = []
    if kinds["unflushed"]:
        parts.append("warm, the L2 never flushed (recorded before the benches could flush it): " + ", ".join(kinds["unflushed"]))
    for k in ("warm", "cold", "cold and warm"):
        if kinds[k]:
            parts.append(f"{k}: " + ", ".join(kinds[k]))
    l2 = (f" ({fmt(max(l2_bytes) / 2**20, 3)} MiB on this GPU, as the device reports it)" if len(l2_bytes) == 1 else "")
    return ("Cache state of the timed inputs. " + "; ".join(parts)[0].upper() + "; ".join(parts)[1:] + ". A warm sample "
            f"finds in the L2{l2} what the sample before it left there: an input smaller than the L2 is then read from "
            "the L2, not from memory, so its rates are not memory-bandwidth figures; a cold sample starts after the L2 "
            "was flushed (`--cold`). Memory-bandwidth claims rest on cold runs or on inputs larger than the L2.\n")


def cold_warm_table(files, name, caption, key, value="kernel_ms", label=None, input_bytes=None, select=None):
    """A generated table of an experiment timed both ways (a run with "cache": ["warm", "cold"]): per
    configuration (@p key, without `cache`) the input, its bytes (@p input_bytes(rows of the configuration),
    None when the rows do not record them), the GPU's L2 as its provenance records it, the warm and the cold
    median of @p value and their ratio. A configuration with only one state is left out; @p select(key tuple)
    keeps a subset. Raises MissingData when the experiment was not recorded on this GPU, or not both ways."""
    data = files.rows(name)
    l2 = l2_bytes(files.meta(name))
    folder = files.results
    by = defaultdict(lambda: defaultdict(list))
    for r in data:
        by[tuple(r[k] for k in key)][r.get("cache") or "warm"].append(r)
    body = []
    for k in sorted(by, key=lambda k: tuple((0, float(x)) if _is_number(x) else (1, x) for x in k)):
        states = by[k]
        if "warm" not in states or "cold" not in states or (select and not select(k)):
            continue
        warm = statistics.median(float(r[value]) for r in states["warm"])
        cold = statistics.median(float(r[value]) for r in states["cold"])
        b = input_bytes(states["warm"]) if input_bytes else None
        fits = "" if b is None or not l2 else (" (fits)" if b <= int(l2) else " (larger)")
        body.append([label(k) if label else " / ".join(k), "not recorded" if b is None else f"{fmt(b / 1024, 3)} KiB{fits}",
                     f"{fmt(int(l2) / 2**20, 3)} MiB" if l2 else "not recorded", fmt(warm), fmt(cold), fmt(cold / warm)])
    if not body:
        raise MissingData(f"{rel(folder / (name + '.csv'))}: no configuration timed both warm and cold",
                          [folder / (name + ".csv")])
    return table(caption, ["input", "bytes", "L2", f"warm median ({value})", f"cold median ({value})", "cold / warm"], body)


def l2_bytes(meta):
    """The L2 size of the GPU a result was recorded on, in bytes: from its provenance (the device's attribute,
    recorded since the runner queries it), else from paper/hardware.json by GPU name; None when neither has it."""
    if meta.get("l2_cache_bytes"):
        return int(meta["l2_cache_bytes"])
    per_gpu = json.loads((ROOT / "paper" / "hardware.json").read_text())["per_gpu"].get(meta.get("gpu_name", ""), {})
    return int(per_gpu["l2_mb"] * 2**20) if per_gpu.get("l2_mb") else None


def against_l2(nbytes, meta):
    """'larger than the L2 (50 MiB)' or 'smaller than ...' for an input of @p nbytes on the GPU of @p meta."""
    l2 = l2_bytes(meta)
    if l2 is None:
        return "of a size this GPU's provenance does not compare with its L2"
    return f"{'larger' if nbytes > l2 else 'smaller'} than the L2 ({fmt(l2 / 2**20, 3)} MiB)"


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False
