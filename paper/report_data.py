#!/usr/bin/env python3
"""Generates every number and table of the report from the recorded results and the published numbers.

    python3 -m paper.report_data [RESULTS] [--study NAME ...] [--toc]
        RESULTS: a results folder (default experiments/results/nvidia-h200; $RESULTS also works)
        --study: build only these studies (a chapter previewed alone); the others are left as they were
        --toc:   rewrite the report's table of contents (paper/index.md) from experiments/studies.json and stop
    COMPARE="experiments/results/<other gpu> ..." python3 -m paper.report_data ...

The studies and their table letters are declared once, in experiments/studies.json. For each study (a folder
paper/<study>/ with chapters, facts.py and a data package) it builds the study's facts once from RESULTS/<study>/
and the folders of the GPUs to compare with (COMPARE, default every other single-host folder with a
manifest.json), runs each chapter module on them into its own output (a number or table written by two chapters
is refused), numbers the report's own tables (Table R1, R2, ... with the study's letter, in the order the
chapters include them) and writes paper/_generated/numbers.json and paper/<study>/_generated/*.md.

A results folder need not hold every study: a chapter module whose results are missing is reported, its
tables become a stated "not measured on this GPU" paragraph, its numbers read "not measured", and the
study's first chapter says what is missing (_generated/status.md). No table or number is built without
its data. Every such part, and every part a chapter prints as not measured or not recorded, is recorded with
its reason and the result files it rests on in paper/<study>/_generated/fallbacks.json, which
tools/check_report.py reads: a part left out while its files are there fails the report.
"""
import argparse
import importlib
import json
import os
import pathlib
import re
import sys

from experiments.harness import registry
from experiments.harness.results import ResultFolder
from paper.report import facts as facts_layer
from paper.report import frontmatter
from paper.report.common import ROOT, MissingData, Output, rel

HERE = pathlib.Path(__file__).resolve().parent

NOT_MEASURED = "(not measured)"


def chapters(study):
    return sorted(p for p in (HERE / study).glob("*.md") if p.name != "README.md")


def number_tables(study, tables, letter):
    """Replaces 'Table R@' by the next number with the study's letter, in the order the chapters include
    the tables."""
    order = []
    for md in chapters(study):
        order += re.findall(r"_generated/(\w+)\.md", md.read_text())
    counter, refs = 0, {}
    for name in order:
        if name in tables and "Table R@" in tables[name]:
            counter += 1
            label = f"Table {letter}{counter}"
            tables[name] = tables[name].replace("Table R@", label)
            refs[f"ref_{name}"] = label
    left = [k for k, v in tables.items() if "Table R@" in v]
    if left:
        raise MissingData(f"tables generated but included by no chapter of paper/{study}: {', '.join(left)}")
    return refs


class Built:
    """One study's generated output: numbers, tables, the result folder it read, the fallbacks taken, the verdicts
    of its claims and the provenance of every result file its chapters read (for the front matter and the
    provenance appendix: paper/report/frontmatter.py)."""

    def __init__(self, results, compare):
        self.results, self.compare = results, compare
        self.n, self.tables, self.fallbacks, self.verdicts, self.provenance = {}, {}, [], [], []

    def add(self, name, out):
        """Takes a chapter's Output; a number or table written by two chapters is a fault of the code."""
        for kind, mine, theirs in (("number", self.n, out.n), ("table", self.tables, out.tables)):
            twice = sorted(set(mine) & set(theirs))
            if twice:
                raise RuntimeError(f"paper/{self.results.name}/data/{name}.py writes the {kind}(s) {', '.join(twice)}, "
                                   "which another chapter writes too")
            mine.update(theirs)
        self.fallbacks += out.fallbacks
        self.verdicts += [dict(v, part=name) for v in out.verdicts]  # the chapter module that judged it


def build_study(entry, results_gpu):
    """Builds the study's facts from RESULTS (paper/<study>/facts.py, read once) and runs each of its chapter
    modules on them, each into its own Output; returns what was built and the parts that could not be built
    ("chapter: why")."""
    study = entry.name
    results = results_gpu / study
    compare = facts_layer.study_compare_folders(study, results_gpu)
    published = facts_layer.published(study)
    built = Built(results, compare)
    built.n["results_dir"] = rel(results_gpu)
    missing = []
    if not results.is_dir():
        missing.append((None, MissingData(f"{rel(results)}: no results of the study in this folder", [results])))
    else:
        facts = importlib.import_module(f"paper.{study}.facts").build(ResultFolder(results_gpu), published, compare)
        built.provenance = frontmatter.provenance_record(getattr(facts, "files", None))
        for name in importlib.import_module(f"paper.{study}.data").CHAPTERS:
            out = Output()
            try:
                importlib.import_module(f"paper.{study}.data.{name}").build(out, facts)
            except MissingData as e:
                missing.append((name, e))
            built.add(name, out)
    if missing:
        fill_not_measured(entry, built, results_gpu, [f"{name}: {e}" if name else str(e) for name, e in missing])
        built.fallbacks += [{"what": f"the part {name}" if name else "the study", "reason": str(e),
                             "sources": [rel(s) for s in dict.fromkeys(e.sources)]} for name, e in missing]
    else:
        built.tables["status"] = ""
    built.n.update(number_tables(study, built.tables, entry.table_letter))
    return built, [f"{name}: {e}" if name else str(e) for name, e in missing]


def fill_not_measured(entry, built, results_gpu, missing):
    """What the chapters of a study cite but could not be built from RESULTS: each included table becomes a
    paragraph saying it was not measured on this GPU, each number reads NOT_MEASURED, and status.md (included
    at the top of the study's first chapter) lists what is missing."""
    texts = [md.read_text() for md in chapters(entry.name)]
    tables = {t for text in texts for t in re.findall(r"_generated/(\w+)\.md", text)}
    gpu = results_gpu.name
    for t in sorted(tables - set(built.tables) - {"status"}):
        built.tables[t] = f"*Not measured on this GPU ({gpu}): the results this table needs are not in {rel(results_gpu)}.*\n"
    cited = {n for text in texts + list(built.tables.values()) for n in re.findall(r"\{\{\s*(\w+)\s*\}\}", text)}
    for n in sorted(cited - set(built.n)):
        if not n.startswith("ref_"):
            built.n[n] = NOT_MEASURED
    built.n.setdefault("ref_status", "")
    lines = [f"```{{admonition}} Not measured on this GPU ({gpu})", "",
             f"Parts of this study could not be built from {rel(results_gpu)}; their tables say so and their "
             f"numbers read \"{NOT_MEASURED}\". What is missing:", ""]
    lines += [f"- {m}" for m in missing]
    lines.append("```")
    built.tables["status"] = "\n".join(lines) + "\n"


def write_toc():
    path = HERE / "index.md"
    text = path.read_text()
    start = min((text.index(m) for m in (registry.TOC_START, "```{toctree}") if m in text), default=None)
    head = text[:start] if start is not None else text + "\n"
    path.write_text(head + registry.paper_toc(registry.load()))
    print(f"report_data: wrote the table of contents of {rel(path)} from experiments/studies.json")


def write_preview(entries):
    """paper/_preview/index.md: the root of a report of these studies alone (conf.py reads $PAPER_STUDY)."""
    folder = HERE / "_preview"
    folder.mkdir(exist_ok=True)
    blocks = [f"# Preview: {', '.join(e.title for e in entries)}", ""]
    for e in entries:
        blocks += ["```{toctree}", f":caption: {e.title}", ":maxdepth: 2", ":glob:", ""]
        blocks += ["/" + c for c in e.chapters + e.appendices] + ["```", ""]
    blocks += ["```{toctree}", ":caption: Appendices", ":maxdepth: 1", ""] + ["/" + a for a in registry.REPORT_APPENDICES]
    blocks += ["```", ""]
    (folder / "index.md").write_text("\n".join(blocks))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="?", default=os.environ.get("RESULTS", "experiments/results/nvidia-h200"))
    ap.add_argument("--study", action="append", help="build only this study (repeatable)")
    ap.add_argument("--toc", action="store_true", help="write paper/index.md's table of contents and stop")
    args = ap.parse_args()
    studies = registry.load()
    if args.toc:
        write_toc()
        return 0
    known = [s.name for s in studies]
    taken = [s.name for s in studies if s.table_letter == frontmatter.APPENDIX_LETTER]
    if taken:
        print(f"report_data: the table letter {frontmatter.APPENDIX_LETTER} of {', '.join(taken)} is the letter of the "
              "report's provenance appendix (paper/report/frontmatter.py): declare another in experiments/studies.json",
              file=sys.stderr)
        return 2
    unknown = [s for s in args.study or [] if s not in known]
    if unknown:
        print(f"report_data: unknown study {', '.join(unknown)} (declared: {', '.join(known)})", file=sys.stderr)
        return 2
    try:
        frontmatter.build_state()  # a wrong SOURCE_DATE_EPOCH is refused before any study is built
    except frontmatter.FrontMatterError as e:
        print(f"report_data: {e}", file=sys.stderr)
        return 2
    results_gpu = pathlib.Path(args.results) if pathlib.Path(args.results).is_absolute() else ROOT / args.results
    if not results_gpu.is_dir():
        print(f"report_data: {args.results}: no such results folder", file=sys.stderr)
        return 1
    numbers_path = HERE / "_generated" / "numbers.json"
    numbers = {}
    if args.study and numbers_path.exists():
        # A preview of some studies keeps the numbers of the others from the last full build.
        numbers = {k: v for k, v in json.loads(numbers_path.read_text()).items()}
    not_measured = 0
    for entry in studies:
        if args.study and entry.name not in args.study:
            continue
        try:
            built, missing = build_study(entry, results_gpu)
        except MissingData as e:
            print(f"report_data: {e}", file=sys.stderr)
            return 1
        out = HERE / entry.name / "_generated"
        out.mkdir(parents=True, exist_ok=True)
        for name, text in built.tables.items():
            (out / f"{name}.md").write_text(text)
        # Every part printed as not measured, with why and the result files it rests on (tools/check_report.py
        # fails the report when those files are all there).
        (out / "fallbacks.json").write_text(json.dumps(built.fallbacks, indent=1, ensure_ascii=False) + "\n")
        # What the front matter and the provenance appendix gather from every study (paper/report/frontmatter.py).
        (out / "verdicts.json").write_text(json.dumps(built.verdicts, indent=1, ensure_ascii=False) + "\n")
        (out / "provenance.json").write_text(json.dumps(built.provenance, indent=1, ensure_ascii=False) + "\n")
        clash = {k for k in set(numbers) & set(built.n) if numbers[k] != built.n[k] and k != "results_dir"}
        if clash and not args.study:
            print(f"report_data: numbers named alike in two studies: {', '.join(sorted(clash))}", file=sys.stderr)
            return 1
        numbers.update(built.n)
        print(f"report_data: {entry.name}: {len(built.n)} numbers and {len(built.tables)} tables from {rel(built.results)}"
              + (f", compared with {', '.join(rel(f) for f in built.compare)}" if built.compare else ""))
        for m in missing:
            not_measured += 1
            print(f"report_data: {entry.name}: not measured on this GPU: {m}")
    if args.study:
        write_preview([e for e in studies if e.name in args.study])
    try:
        numbers.update(frontmatter.write([s.name for s in studies], results_gpu))
    except frontmatter.FrontMatterError as e:
        print(f"report_data: {e}", file=sys.stderr)
        return 1
    numbers_path.parent.mkdir(exist_ok=True)
    numbers_path.write_text(json.dumps(numbers, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    if not_measured:
        print(f"report_data: {not_measured} part(s) not measured in {rel(results_gpu)}; the report says so where they belong")
    return 0


if __name__ == "__main__":
    sys.exit(main())
