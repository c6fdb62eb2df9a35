"""The one declaration of the studies: experiments/studies.json.

Every tool that goes over the studies reads them here (the runner, the figures, the report, the comparison,
the results check); CMake reads the same file (CMakeLists.txt). A study is declared by one entry; its
folders are found by its name. The declaration is checked when read: names and table letters are unique,
every entry has the keys below.
"""
import json
import pathlib
import re
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[2]
DECLARATION = ROOT / "experiments" / "studies.json"
REQUIRED = ("name", "title", "table_letter", "program", "chapters", "docs")


@dataclass(frozen=True)
class StudyEntry:
    name: str
    title: str
    table_letter: str
    program: str
    chapters: tuple
    docs: tuple
    appendices: tuple = ()


class DeclarationError(SystemExit):
    """A wrong declaration: ends a command with its message (as a wrong experiment definition does)."""

    def __str__(self):
        return str(self.code)


def load(path=None):
    """The declared studies, in order; a DeclarationError names the file and what is wrong."""
    path = pathlib.Path(path or DECLARATION)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise DeclarationError(f"{path}: cannot read the study declaration: {e}") from None
    entries = data.get("studies") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise DeclarationError(f"{path}: expected {{\"studies\": [ ... ]}} with one entry per study")
    studies, letters = [], {}
    for i, e in enumerate(entries):
        where = f"{path}: studies[{i}]"
        missing = [k for k in REQUIRED if k not in e]
        if missing:
            raise DeclarationError(f"{where}: missing key(s) {', '.join(missing)}")
        unknown = sorted(set(e) - set(REQUIRED) - {"appendices"})
        if unknown:
            raise DeclarationError(f"{where}: unknown key(s) {', '.join(unknown)}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", e["name"]):
            raise DeclarationError(f"{where}: name '{e['name']}' is not a lower-case identifier")
        if not re.fullmatch(r"[A-Z]", e["table_letter"]):
            raise DeclarationError(f"{where}: table_letter '{e['table_letter']}' is not one capital letter")
        if any(s.name == e["name"] for s in studies):
            raise DeclarationError(f"{where}: the study '{e['name']}' is declared twice")
        if e["table_letter"] in letters:
            raise DeclarationError(f"{where}: table letter '{e['table_letter']}' of '{e['name']}' is already "
                                   f"the letter of '{letters[e['table_letter']]}'")
        letters[e["table_letter"]] = e["name"]
        studies.append(StudyEntry(e["name"], e["title"], e["table_letter"], e["program"], tuple(e["chapters"]),
                                  tuple(e["docs"]), tuple(e.get("appendices", ()))))
    return studies


def names(path=None):
    return [s.name for s in load(path)]


def get(name, path=None):
    for s in load(path):
        if s.name == name:
            return s
    raise DeclarationError(f"no study '{name}' in {path or DECLARATION} (declared: {', '.join(names(path))})")


# The report's own appendices, after the studies': the provenance of every result (paper/provenance.md) and the
# references (paper/references.md).
REPORT_APPENDICES = ("provenance", "references")


def paper_toc(studies):
    """The report's table of contents (paper/index.md's toctree blocks), one block per study, then the
    appendices: the studies' and the report's own."""
    blocks = []
    for s in studies:
        blocks.append(_latex_part(s.title) + "```{toctree}\n:caption: " + s.title + "\n:maxdepth: 2\n:glob:\n\n"
                      + "\n".join(s.chapters) + "\n```\n")
    appendices = [a for s in studies for a in s.appendices] + list(REPORT_APPENDICES)
    blocks.append(_latex_part("Appendices") + "```{toctree}\n:caption: Appendices\n:maxdepth: 1\n:glob:\n\n"
                  + "\n".join(appendices) + "\n```\n")
    return "\n".join(blocks)


_LATEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}", "\\": " ", "~": " ", "^": " "}
# Where the generated part of paper/index.md begins (paper_toc's first line).
TOC_START = "```{raw} latex\n\\part{"


def _latex_part(title):
    """A part of the PDF (one per study, then the appendices), as the caption of a table of contents is in HTML."""
    return TOC_START + "".join(_LATEX.get(c, c) for c in title) + "}\n```\n\n"


def docs_entries(studies):
    return [d for s in studies for d in s.docs]
