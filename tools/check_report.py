#!/usr/bin/env python3
"""Checks that the report cites only generated numbers and that every table and figure has its source.

    python3 -m tools.check_report [FOLDER] [--numbers-only]   (default folder: paper/)

- Every chapter (*.md under FOLDER, study folders included; README.md, _build and _generated excluded)
  is checked; a folder with no chapter at all is an error.
- Every number in the chapters' prose must come through a MyST substitution ({{ name }}, filled from
  paper/_generated/numbers.json); references such as "Table 4.2" or "Table R3", years, GPU model names,
  SDSS stripe names and code are exempt, and so is the list of references. A digit anywhere else is
  reported with its file and line.
- A substitution inside a code span (`{{ name }}` between backticks) is an error: MyST does not fill it.
- Every included table (_generated/*.md) and every figure (figures/out/<name>.*) must exist, that is, must
  have been generated from recorded results.
- Every figure's caption starts with its number: the thesis's ("Figure 4.3 (thesis)") or the report's own
  ("Figure R1", the study's letter), and a study's own figures are numbered 1, 2, 3, ... in the order its
  chapters show them (the report does not number figures automatically).
- Every line a listing quotes (literalinclude) is at most LISTING_WIDTH characters, so that it fits the PDF's
  text width without wrapping.
- Every published value a study compares with carries the section of its document it comes from: each number
  in <study>/published.json lies in an object that has a "source" (a section, table or figure), itself or one
  of the objects around it below the file's top (the top names the documents, not the sections).
- No part of the report says "not measured" (or "not recorded") while the results it rests on are there: every
  such fallback is recorded with its reason and its result files in <study>/_generated/fallbacks.json
  (python3 -m paper.report_data writes it), and a fallback whose files all exist is reported; a study folder
  with generated tables and no such record was built by an older generator.
"""
import json
import pathlib
import re
import sys

from experiments.harness import registry

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAPER = ROOT / "paper"

# The letters of the report's own tables, one per declared study (experiments/studies.json).
LETTERS = "".join(s.table_letter for s in registry.load())
# The keys the report cites its documents by ([T], [S1], ...; paper/documents.json).
DOCUMENT_KEYS = [d["key"] for d in json.loads((PAPER / "documents.json").read_text())["documents"]] \
    if (PAPER / "documents.json").exists() else []
EXEMPT = [
    r"\{\{[^}]*\}\}",                       # substitutions: generated numbers
    r"`[^`]*`",                              # code and file names
    r"\{doc\}`[^`]*`",
    r"\b(Tables?|Figures?|Fig\.|Sections?|section|sections|chapter|Chapter|Appendix|Algorithm|Listing)\s+[\d.]+(\s*(and|to|-)\s*[\d.]+)?",
    rf"\b(Table|Figure) [{LETTERS}]\d+\b",      # the report's own tables and figures (a letter per study)
    r"\b\d\d-[a-z-]+\b|\ba\d-[a-z-]+\b",       # chapter document names in {doc} links
    r"\b(19|20)\d\d\b",                      # years
    r"\bstripe[- ]\d+\b",                     # names of SDSS stripes
    r"\b(GTX \d+|\d+ GTX|GT200|H200|H100|HD \d+|Athlon64 X2 \d+\+?|sm_\d+|CUDA \d+)\b",
    r"\b[23]-(S|stream)\b",                  # work-unit names
    r"\[(" + "|".join(map(re.escape, DOCUMENT_KEYS or ["-"])) + r")\]",  # a document's key: [S1]
    r"\bf(32|64)\b", r"\bbase-10\b", r"\blog10\b", r"\b(FP64|FP32|L1|L2)\b",
]


# The widest line a listing may quote: footnote-size monospace on the A4 page's text width holds a little more.
LISTING_WIDTH = 100


def figure_captions(text):
    """The first caption line of every {figure} block of a chapter, with its line number."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"\s*```\{figure\}", line):
            for j in range(i + 1, len(lines)):
                body = lines[j].strip()
                if body.startswith("```"):
                    yield i + 1, ""
                    break
                if body and not body.startswith(":"):
                    yield j + 1, body
                    break


def listing_problems(md, text):
    """Lines wider than LISTING_WIDTH in the ranges the chapter quotes with literalinclude."""
    out = []
    for block in re.findall(r"```\{literalinclude\}\s+(\S+)\n(.*?)```", text, flags=re.S):
        path, options = block
        source = (md.parent / path).resolve()
        if not source.exists():
            out.append(f"{md}: listing {path} does not exist")
            continue
        opts = dict(re.findall(r":([\w-]+):\s*(.*)", options))
        lines = source.read_text().splitlines()
        start, end = 0, len(lines)
        after, before = opts.get("start-after", "").strip('"'), opts.get("end-before", "").strip('"')
        if after:
            start = next((i + 1 for i, x in enumerate(lines) if after in x), None)
        if before:
            end = next((i for i, x in enumerate(lines) if before in x and (start is None or i >= start)), None)
        if start is None or end is None:
            out.append(f"{md}: listing {path}: marker {after or before} not found")
            continue
        for i in range(start, end):
            if len(lines[i]) > LISTING_WIDTH:
                out.append(f"{md}: listing {path}:{i + 1} is {len(lines[i])} characters wide, more than "
                           f"{LISTING_WIDTH}: it would wrap in the PDF")
    return out


def fallback_problems(folder):
    """The fallbacks recorded under @p folder (<study>/_generated/fallbacks.json) that fired while every result
    file they name exists: the report would hide data it has."""
    out = []
    for generated in sorted(pathlib.Path(folder).rglob("_generated")):
        if (generated / "numbers.json").exists() or "_build" in generated.parts:
            continue  # the report's own numbers, not a study's
        record = generated / "fallbacks.json"
        if not record.exists():
            out.append(f"{generated}: no fallbacks.json (generated by an older report generator: run "
                       "python3 -m paper.report_data)")
            continue
        for f in json.loads(record.read_text()):
            sources = [ROOT / s if not pathlib.Path(s).is_absolute() else pathlib.Path(s) for s in f["sources"]]
            if sources and all(s.exists() for s in sources):
                out.append(f"{record}: {f['what']} is printed as not measured ({f['reason']}), but "
                           + ", ".join(str(s.relative_to(ROOT)) if s.is_relative_to(ROOT) else str(s) for s in sources)
                           + (" is" if len(sources) == 1 else " are") + " there")
    return out


def unsourced_values(node, path="", sourced=False, top=True):
    """The paths of the numbers in a published.json @p node that no "source" names a section for: a number is
    sourced when its own object or one around it, below the top, has a non-empty "source" string."""
    out = []
    if isinstance(node, dict):
        here = sourced or (not top and isinstance(node.get("source"), str) and bool(node["source"].strip()))
        for key, value in node.items():
            if key == "source":
                continue
            out += unsourced_values(value, f"{path}.{key}" if path else key, here, top=False)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += unsourced_values(value, f"{path}[{i}]", sourced, top=False)
    elif isinstance(node, (int, float)) and not isinstance(node, bool) and not sourced:
        out.append(path)
    return out


def published_problems(folder):
    """Every number of a study's published.json (<study>/published.json under @p folder) without its source."""
    out = []
    for path in sorted(pathlib.Path(folder).glob("*/published.json")):
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            out.append(f"{path}: not JSON ({e})")
            continue
        for value in unsourced_values(data):
            out.append(f"{path}: the published value {value} has no source section (a \"source\" in its object or one "
                       "around it)")
    return out


def prose_lines(text):
    in_fence = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or line.lstrip().startswith(":"):
            continue
        yield number, line


def main():
    numbers_only = "--numbers-only" in sys.argv
    folder = pathlib.Path(next((a for a in sys.argv[1:] if not a.startswith("--")), PAPER))
    problems = []
    chapters = [md for md in sorted(folder.rglob("*.md")) if md.name != "README.md"
                and not {"_build", "_generated"} & set(md.relative_to(folder).parts)]
    if not chapters:
        print(f"report check: {folder}: no chapters (*.md) to check")
        return 1
    own = {}  # study folder -> the numbers of its own figures, in chapter order
    for md in chapters:
        if md.name.endswith("references.md"):
            continue  # bibliographic data: volumes, pages and years, not results
        text = md.read_text()
        for number, caption in figure_captions(text):
            mine = re.match(rf"Figure ([{LETTERS}])(\d+)\b", caption)
            if mine:
                own.setdefault((md.parent, mine.group(1)), []).append((int(mine.group(2)), md, number))
            elif not re.match(r"Figure \d+\.\d+ \(thesis\)", caption):
                problems.append(f"{md}:{number}: a figure caption without its number (\"Figure {LETTERS[0]}1: ...\" or "
                                f"\"Figure 4.3 (thesis): ...\"): {caption[:60]}")
        problems += listing_problems(md, text)
        for number, line in prose_lines(text):
            # MyST leaves a substitution inside a code span as it is: the reader would see the braces.
            if re.search(r"`[^`]*\{\{[^`]*`", line):
                problems.append(f"{md}:{number}: a substitution inside a code span is never filled: {line.strip()}")
            stripped = line
            for pattern in EXEMPT:
                stripped = re.sub(pattern, " ", stripped)
            if re.search(r"\d", stripped):
                problems.append(f"{md}:{number}: a number not generated from results: {line.strip()}")
        if numbers_only:
            continue
        for include in re.findall(r"\{include\}\s+(\S+)", text):
            if not (md.parent / include).exists():
                problems.append(f"{md}: table {include} was not generated")
        for figure in re.findall(r"\{figure\}\s+(\S+)", text):
            stem = (md.parent / figure).with_suffix("")
            found = list(stem.parent.glob(stem.name + ".*")) if stem.parent.exists() else []
            if not found:
                problems.append(f"{md}: figure {figure} has no generated file (no source data?)")
    if not numbers_only:
        problems += fallback_problems(folder)
        problems += published_problems(folder)
    for (_, letter), found in own.items():
        for expected, (got, md, number) in enumerate(found, start=1):
            if got != expected:
                problems.append(f"{md}:{number}: Figure {letter}{got} where the chapters' order gives Figure "
                                f"{letter}{expected}")
                break
    for p in problems:
        print("report check:", p)
    print(f"report check: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
