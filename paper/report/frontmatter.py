"""What no one study writes: the report's front matter, the counts of its abstract and its appendix on provenance.

python3 -m paper.report_data writes, for every study it builds, two records into paper/<study>/_generated/:
provenance.json (every result file its chapters read, with what its provenance file says) and verdicts.json
(the verdict of every claim its claims tables judge, Output.judged). From those records of every declared study,
and from the state of the checkout, write() makes into paper/_generated/:

- frontmatter.md: the first page of the HTML report (paper/index.md includes it): the authors (CITATION.cff),
  the documents the report rebuilds (paper/documents.json), the commit it is built from and whether the tree was
  clean, the results folder and its GPU, the folders compared with, and the date;
- verdicts.md: the abstract's table of verdicts per document; documents.md: the reference list of the documents;
- provenance_*.md: the tables of the provenance appendix (paper/provenance.md): per study and results folder the
  files read, the commits they were recorded at, the dirty and those without a provenance file; the code that
  makes numbers changed since each recording commit, with why no recorded number depends on it
  (tools/release_check.py and experiments/records/code-changes-since-recording.json); the files without a
  provenance file;
- and the numbers the text cites (report_*, verdicts_<study>_*), returned to be added to numbers.json.

The PDF's title page (titlepage_latex, read by paper/conf.py) is set from the same numbers.

The date of the build is reproducible: SOURCE_DATE_EPOCH when it is set (seconds since 1970, UTC), else the date
of the commit the report is built from; the front matter says which.
"""
import collections
import datetime
import json
import os
import pathlib
import re
import subprocess

from paper.report.common import VERDICT_KINDS, provenance_counts, table
from paper.report.facts import ROOT, folder_facts, rel
from tools import release_check

PAPER = ROOT / "paper"
GENERATED = PAPER / "_generated"
DOCUMENTS = PAPER / "documents.json"
CITATION = ROOT / "CITATION.cff"
# The letter of the provenance appendix's tables (Table C1, ...): the appendix is the report's third, after the
# likelihood study's A and B; report_data refuses a study that declares the same table letter.
APPENDIX_LETTER = "C"
# The provenance fields a study's record keeps of each result file.
KEPT = ("git_commit", "git_commits", "git_dirty", "gpu_name", "host_cpu", "experiment", "date_utc")


class FrontMatterError(RuntimeError):
    """A value the front matter needs is wrong (SOURCE_DATE_EPOCH, paper/documents.json): says which and why."""


# --- the checkout ---------------------------------------------------------------------------------------------

def _git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout.strip()


def build_state(env=None):
    """{commit (full hash or None outside a git checkout), dirty (tracked files differ from it), date (YYYY-MM-DD
    or None), date_source ('SOURCE_DATE_EPOCH', 'commit' or None)}. A SOURCE_DATE_EPOCH that is not a whole number
    of seconds raises FrontMatterError."""
    env = os.environ if env is None else env
    try:
        commit = _git("rev-parse", "HEAD")
        dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
        committed = int(_git("log", "-1", "--format=%ct", "HEAD"))
    except (OSError, subprocess.CalledProcessError, ValueError):
        commit, dirty, committed = None, False, None
    epoch = env.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        if not re.fullmatch(r"\d+", epoch):
            raise FrontMatterError(f"SOURCE_DATE_EPOCH={epoch!r}: expected a whole number of seconds since 1970-01-01 UTC")
        stamp, source = int(epoch), "SOURCE_DATE_EPOCH"
    elif committed is not None:
        stamp, source = committed, "commit"
    else:
        stamp, source = None, None
    date = None if stamp is None else datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).strftime("%Y-%m-%d")
    return {"commit": commit, "dirty": dirty, "date": date, "date_source": source}


def citation_authors(path=CITATION):
    """The authors CITATION.cff names (name, or given and family names), joined with commas and "and"; a tree
    without CITATION.cff (a copy of the report's folders alone) says so instead."""
    if not pathlib.Path(path).exists():
        return "the authors (no CITATION.cff in this tree)"
    names, block, person = [], False, {}

    def flush():
        if person:
            names.append(person.get("name") or " ".join(x for x in (person.get("given-names"), person.get("family-names")) if x))
            person.clear()
    for line in pathlib.Path(path).read_text().splitlines():
        if re.match(r"^\S", line):
            if block:
                break
            block = line.startswith("authors:")
            continue
        if not block:
            continue
        m = re.match(r"^\s*(-\s*)?([\w-]+):\s*\"?(.*?)\"?\s*$", line)
        if m:
            if m.group(1):
                flush()
            person[m.group(2)] = m.group(3)
    flush()
    if not names:
        raise FrontMatterError(f"{rel(path)}: no authors")
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def documents():
    """The documents of paper/documents.json, in order, each a dict with key, studies, rebuilt, short, reference."""
    try:
        docs = json.loads(DOCUMENTS.read_text())["documents"]
    except (OSError, ValueError, KeyError) as e:
        raise FrontMatterError(f"{rel(DOCUMENTS)}: cannot read the documents: {e}") from None
    for i, d in enumerate(docs):
        missing = [k for k in ("key", "studies", "rebuilt", "short", "reference") if k not in d]
        if missing:
            raise FrontMatterError(f"{rel(DOCUMENTS)}: documents[{i}]: missing key(s) {', '.join(missing)}")
    return docs


# --- the records of each study --------------------------------------------------------------------------------

def provenance_record(files):
    """The record of a study's provenance: every result file its chapters read (its facts' ResultFiles, or None
    when no facts were built), with the provenance fields KEPT (an empty dict: no provenance file)."""
    if files is None:
        return []
    out = []
    for path in sorted(files.read, key=str):
        meta = files.provenance(path)
        out.append({"path": rel(path), "provenance": {k: meta[k] for k in KEPT if k in meta}})
    return out


def _record(study, name):
    path = PAPER / study / "_generated" / name
    return json.loads(path.read_text()) if path.exists() else None


# --- the numbers and texts ------------------------------------------------------------------------------------

def _plural(kind, n):
    return {"differs": "differ"}.get(kind, kind) if n != 1 else kind


def summary(counts):
    """'4 reproduced, 1 reproduced qualitatively and 2 differ' for {kind: count}; 'none' when all are 0."""
    parts = [f"{counts[k]} {_plural(k, counts[k])}" for k in VERDICT_KINDS if counts.get(k)]
    return (", ".join(parts[:-1]) + " and " + parts[-1]) if len(parts) > 1 else (parts[0] if parts else "none")


def verdict_numbers(study, records):
    """The numbers of one study's verdicts: verdicts_<study>_judged (claims with a verdict), _<kind> for each kind,
    _summary and _unjudged (published values set beside ours without a verdict)."""
    counts = collections.Counter(r["kind"] for r in records)
    n = {f"verdicts_{study}_judged": str(sum(counts[k] for k in VERDICT_KINDS)),
         f"verdicts_{study}_summary": summary(counts), f"verdicts_{study}_unjudged": str(counts[None])}
    for k in VERDICT_KINDS:
        n[f"verdicts_{study}_{k.replace(' ', '_')}"] = str(counts[k])
    return n


def _folder_of(path):
    """The results folder (experiments/results/<gpu>) of a result file <gpu>/<study>/<file>."""
    return pathlib.Path(path).parents[1]


def _gpu_words(folder):
    name, count = folder_facts(ROOT / folder)
    if not name:
        return "GPU not recorded in its manifest"
    return f"{count} × {name}" if count > 1 else f"one {name}"


def _folders(provenance, results_gpu):
    """The results folders the studies read, as [(folder, role, files)], role 'results', 'multi-GPU' (a host with
    several GPUs) or 'compared'; the main folder first."""
    per = collections.Counter(str(_folder_of(f["path"])) for recs in provenance.values() for f in recs)
    main = rel(results_gpu)
    out = [(main, "results", per.get(main, 0))]
    for folder in sorted(per):
        if folder != main:
            out.append((folder, "multi-GPU" if folder_facts(ROOT / folder)[1] > 1 else "compared", per[folder]))
    return out


def state_numbers(state, results_gpu, provenance):
    """The numbers of the front matter: where and when the report was built, from what."""
    commit = state["commit"]
    short = commit[:12] if commit else None
    folders = _folders(provenance, results_gpu)
    compared = [f"`{f}` ({_gpu_words(f)}{', its multi-GPU runs' if role == 'multi-GPU' else ''})"
                for f, role, _ in folders[1:]]
    if state["date_source"] == "SOURCE_DATE_EPOCH":
        source = "from SOURCE_DATE_EPOCH"
    elif state["date_source"] == "commit":
        source = f"the date of commit {commit[:7]}; SOURCE_DATE_EPOCH, when set, gives the date instead"
    else:
        source = "no commit and no SOURCE_DATE_EPOCH to date it by"
    return {
        "report_commit": short or "unknown (not built from a git checkout)",
        "report_source": (f"commit `{short}`, " + ("a tree with uncommitted changes" if state["dirty"] else "a clean tree"))
        if commit else "an unknown commit (not built from a git checkout)",
        "report_built_from": (f"built from commit {short}" + (" (uncommitted changes)" if state["dirty"] else ""))
        if commit else "built from an unknown commit",
        "report_date": state["date"] or "undated",
        "report_date_source": source,
        "report_results": rel(results_gpu),
        "report_gpu": _gpu_words(rel(results_gpu)),
        "report_compared": ", ".join(compared) if compared else "no other GPU",
        "report_authors": citation_authors(),
    }


def frontmatter_md(n, docs):
    """The HTML front page's fields (a MyST field list)."""
    rebuilt = [d for d in docs if d["rebuilt"]]
    others = [d for d in docs if not d["rebuilt"]]
    lines = [f":Authors: {n['report_authors']}",
             f":Rebuilds: {len(rebuilt)} documents, cited by the keys the chapters use:", ""]
    lines += [f"  - [{d['key']}] {d['reference']}" for d in rebuilt]
    if others:
        lines += ["", "  Also compared: " + "; ".join(f"[{d['key']}] {d['reference']}" for d in others)]
    lines += ["",
              f":Built from: {n['report_source']}",
              f":Results: `{n['report_results']}`, recorded on {n['report_gpu']}",
              f":Compared with: {n['report_compared']}",
              f":Date: {n['report_date']} ({n['report_date_source']})", ""]
    return "\n".join(lines)


def documents_md(docs):
    """The reference list of the documents the report rebuilds and compares with."""
    return "\n".join(f"- [{d['key']}] {d['reference']}" for d in docs) + "\n"


def verdicts_md(docs, verdicts):
    """The abstract's table: per document, the claims its study's chapters judge, by kind of verdict, and the
    published values set beside ours without one."""
    by_doc = collections.defaultdict(collections.Counter)
    for study, records in verdicts.items():
        for r in records:
            by_doc[r["document"]][r["kind"]] += 1
    body = []
    for d in docs:
        c = by_doc.get(d["key"])
        label = f"[{d['key']}] {d['short']}"
        if c is None:
            body.append([label, "—"] + ["—"] * len(VERDICT_KINDS) + ["—"])
            continue
        body.append([label, str(sum(c[k] for k in VERDICT_KINDS))] + [str(c[k]) for k in VERDICT_KINDS] + [str(c[None])])
    unknown = sorted(set(by_doc) - {d["key"] for d in docs}, key=str)
    if unknown:
        raise FrontMatterError(f"verdicts recorded for documents {', '.join(map(str, unknown))}, which "
                               f"{rel(DOCUMENTS)} does not list")
    return table("The claims each document makes that the chapters judge, by verdict, and the published values "
                 "they set beside a measurement without a verdict (—: compared table by table, no claim judged)",
                 ["document", "claims judged"] + list(VERDICT_KINDS) + ["without a verdict"], body)


# --- the provenance appendix ----------------------------------------------------------------------------------

def path_cell(path):
    """A file's path for a narrow table cell: free to break after each slash (a code span would not break)."""
    return path.replace("/", "/\u200b")


def appendix(studies, provenance):
    """The appendix's generated parts: {name: MyST text} (recording, studies, changes, without) and the numbers
    naming its tables (ref_provenance_studies, ref_provenance_changes, ref_provenance_without)."""
    label = iter(f"Table {APPENDIX_LETTER}{i}" for i in range(1, 100))
    tables, numbers = {}, {}
    rows, commits, without = [], collections.Counter(), []
    for study in studies:
        records = provenance.get(study)
        if records is None:
            rows.append([study, "not built", "", "", "", ""])
            continue
        by_folder = collections.defaultdict(list)
        for f in records:
            by_folder[str(_folder_of(f["path"]))].append(f)
        if not by_folder:
            rows.append([study, "no result read", "0", "", "", ""])
        for folder, files in sorted(by_folder.items()):
            metas = [f["provenance"] for f in files]
            c = provenance_counts(metas)
            per_commit = collections.Counter(m["git_commit"] for m in metas if m.get("git_commit"))
            commits.update(per_commit)
            at = ", ".join(f"{k[:7]} ({v})" for k, v in per_commit.most_common()) or "none named"
            rows.append([study, folder.replace("experiments/results/", ""), str(c["files"]), at, str(c["dirty"]),
                         str(c["without"])])
            without += [(study, f["path"]) for f in files if not f["provenance"]]
    total = sum(commits.values())
    if commits:
        listed = "; ".join(f"{k[:7]} ({v} of the {total} files that name a commit)" for k, v in commits.most_common())
        tables["recording"] = (f"The result files the report reads were recorded at {'commit' if len(commits) == 1 else 'the commits'} "
                               f"{listed}. A file recorded from a tree with uncommitted changes is marked dirty in "
                               "its chapter's table; the changes themselves were not kept.\n")
    else:
        tables["recording"] = "No result file the report reads names the commit it was recorded at.\n"
    numbers["ref_provenance_studies"] = ref = next(label)
    tables["studies"] = table(
        f"{ref}: the result files each study's chapters read, per results folder (under experiments/results/): how "
        "many, the commits they were recorded at (with how many files each), how many from a tree with uncommitted "
        "changes, how many without a provenance file.",
        ["study", "results folder", "files", "recorded at (files)", "dirty", "no provenance file"], rows,
        widths=[12, 28, 8, 28, 10, 14])
    tables["changes"], refs = changes_md(commits, label)
    numbers["ref_provenance_changes"] = " and ".join(refs) or "no table"
    if without:
        numbers["ref_provenance_without"] = ref = next(label)
        tables["without"] = table(
            f"{ref}: the result files without a provenance file beside them; their rows in their chapters' "
            "provenance tables are empty.", ["study", "result file"], [[s, path_cell(p)] for s, p in without],
            widths=[20, 80])
    else:
        tables["without"] = "Every result file the report reads has its provenance file beside it.\n"
        numbers["ref_provenance_without"] = "no table"
    return tables, numbers


def changes_md(commits, label):
    """Per recording commit (most files first): the code that makes numbers and changed between it and the commit
    the report is built from, each file with the commit that changed it, what changed and why no recorded number
    depends on it (declared in experiments/records/code-changes-since-recording.json and accepted by
    tools/release_check.py), or why it may (undeclared). Returns the MyST text and the labels of its tables (taken
    from @p label)."""
    if not commits:
        return "No recording commit to compare with.\n", []
    out, refs = [], []
    for commit, _ in commits.most_common():
        try:
            declared, undeclared = release_check.changes_since(commit)
        except RuntimeError:
            out.append(f"Whether code changed since {commit[:7]} was not compared (no git history of it here).\n")
            continue
        if not declared and not undeclared:
            out.append(f"Between {commit[:7]} and the commit the report is built from, no code that makes a number "
                       "changed (only results, records, the report, documentation and tests).\n")
            continue
        body = [[path_cell(c["path"]), c["commit"][:7], c["what"], c["why_no_recorded_number_changes"]] for c in declared]
        body += [[path_cell(p), "", why, "none given: a number recorded at this commit may not be what this tree makes"]
                 for p, why in undeclared]
        refs.append(next(label))
        out.append(table(
            f"{refs[-1]}: code that makes numbers and changed between the recording commit {commit[:7]} and the "
            f"commit the report is built from: {len(declared)} declared, each with what changed and why no recorded "
            f"number depends on it; {len(undeclared)} undeclared, each with why it is not accepted.",
            ["file", "changed in", "what changed, or why the change is not accepted",
             "why no recorded number depends on it"], body, widths=[22, 9, 34, 35]))
    return "\n".join(out), refs


# --- the PDF's title page -------------------------------------------------------------------------------------

_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def tex(text):
    """@p text (MyST: `code` and *emphasis* only) as LaTeX."""
    out = "".join(_TEX.get(ch, ch) for ch in text)
    out = re.sub(r"`([^`]*)`", r"\\sphinxcode{\\sphinxupquote{\1}}", out)
    return re.sub(r"\*([^*]+)\*", r"\\emph{\1}", out)


def titlepage_latex(title, numbers, docs):
    """The PDF's title page: the title, the documents rebuilt, the authors, and a block with the commit, the
    results, the GPUs compared with and the date (the numbers of state_numbers, from numbers.json)."""
    needed = ("report_source", "report_results", "report_gpu", "report_compared", "report_date", "report_date_source",
              "report_authors")
    if any(k not in numbers for k in needed):
        return r"\sphinxmaketitle"  # numbers.json of an older report generator: Sphinx's own title page
    rebuilt = [d for d in docs if d["rebuilt"]]
    cites = ", ".join(f"{tex(d['short'])} [{d['key']}]" for d in rebuilt)
    rows = [("Built from", tex(numbers["report_source"])),
            ("Results", f"{tex(numbers['report_results'])}, recorded on {tex(numbers['report_gpu'])}"),
            ("Compared with", tex(numbers["report_compared"])),
            ("Date", f"{tex(numbers['report_date'])} ({tex(numbers['report_date_source'])})")]
    block = "\n".join(f"\\textbf{{{k}}} & {v}\\\\[0.4ex]" for k, v in rows)
    return rf"""\begin{{titlepage}}
\begin{{flushright}}
\sffamily\bfseries
{{\Huge {tex(title)}\par}}
\vspace{{2em}}
{{\Large A rebuild, on today's GPUs, of {cites}\par}}
\vspace{{2em}}
{{\LARGE {tex(numbers['report_authors'])}\par}}
\end{{flushright}}
\vfill
\begin{{flushleft}}
\begin{{tabular}}{{@{{}}>{{\raggedright\arraybackslash}}p{{0.2\linewidth}}>{{\raggedright\arraybackslash}}p{{0.76\linewidth}}@{{}}}}
{block}
\end{{tabular}}
\end{{flushleft}}
\end{{titlepage}}
"""


# --- everything -----------------------------------------------------------------------------------------------

def write(studies, results_gpu, env=None):
    """Writes the front matter, the abstract's table, the reference list and the appendix's tables into
    paper/_generated/ from the records of every study in @p studies (names; a study never built has none) and
    returns the numbers they cite."""
    docs = documents()
    provenance = {s: _record(s, "provenance.json") for s in studies}
    verdicts = {s: _record(s, "verdicts.json") or [] for s in studies}
    numbers = state_numbers(build_state(env), results_gpu, {s: r for s, r in provenance.items() if r})
    for s in studies:
        numbers.update(verdict_numbers(s, verdicts[s]))
    GENERATED.mkdir(parents=True, exist_ok=True)
    parts = {"frontmatter": frontmatter_md(numbers, docs), "documents": documents_md(docs),
             "verdicts": verdicts_md(docs, verdicts)}
    tables, refs = appendix(studies, provenance)
    numbers.update(refs)
    parts.update({f"provenance_{k}": v for k, v in tables.items()})
    for name, text in parts.items():
        (GENERATED / f"{name}.md").write_text(text)
    return numbers
