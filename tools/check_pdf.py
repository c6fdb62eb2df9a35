#!/usr/bin/env python3
"""Checks the report's LaTeX source and, once LaTeX has run, its log.

  tools/check_pdf.py [--tex paper/_build/latex/mwsep-report.tex] [--log paper/_build/latex/mwsep-report.log]

The source (no LaTeX needed, so it runs where the PDF is not built):
  - every character outside ASCII is one pdflatex can set: one of the T1, TS1, OT1 and OMS encodings of the
    LaTeX kernel's UTF-8 support (UTF8_DEFAULT below) or one declared with \\DeclareUnicodeCharacter in the source
    or in the style files beside it (paper/conf.py's preamble, Sphinx's own). An undeclared one stops pdflatex;
  - every figure's caption carries its own number ("Figure R3: ...", "Figure 4.3 (thesis): ...");
  - no line of a code listing is longer than CODE_COLUMNS characters, which fit the page at the listings' size,
    so that no listing line is wrapped;
  - no MyST directive came out as text: a fence with {name} that the parser did not take for a directive (a
    caption with a backtick after a fence of backticks, say) is set as a paragraph, and its table is lost.
The log: at most MAX_OVERFULL overfull boxes, none over MAX_OVERFULL_PT points, no overfull vertical box (content
running off a page) and no missing character.

Exit status 0 when every check holds, 1 otherwise, with one line per problem (file, line, what)."""
import argparse
import pathlib
import re
import sys
import unicodedata

# Code points the LaTeX kernel's UTF-8 input maps for the T1, TS1, OT1 and OMS font encodings (the encodings the
# report loads), read from t1enc.dfu, ts1enc.dfu, ot1enc.dfu and omsenc.dfu of TeX Live 2022, as ranges.
UTF8_DEFAULT = [
    (0x00A0, 0x0125), (0x0128, 0x0137), (0x0139, 0x013E), (0x0141, 0x0148), (0x014A, 0x0165), (0x0168, 0x017E),
    (0x0192, 0x0192), (0x01C4, 0x01D4), (0x01E2, 0x01E3), (0x01E6, 0x01EB), (0x01F0, 0x01F0), (0x01F4, 0x01F5),
    (0x0218, 0x021B), (0x0232, 0x0233), (0x0237, 0x0237), (0x02C7, 0x02C7), (0x02D8, 0x02D9), (0x02DB, 0x02DB),
    (0x02DD, 0x02DD), (0x0E3F, 0x0E3F), (0x1E02, 0x1E03), (0x1E0D, 0x1E0D), (0x1E1E, 0x1E21), (0x1E25, 0x1E25),
    (0x1E30, 0x1E31), (0x1E37, 0x1E37), (0x1E43, 0x1E43), (0x1E45, 0x1E45), (0x1E47, 0x1E47), (0x1E5B, 0x1E5B),
    (0x1E63, 0x1E63), (0x1E6D, 0x1E6D), (0x1E8E, 0x1E91), (0x1E9E, 0x1E9E), (0x1EF2, 0x1EF3), (0x200C, 0x200C),
    (0x2010, 0x2016), (0x2018, 0x201A), (0x201C, 0x201E), (0x2020, 0x2022), (0x2030, 0x2031), (0x2039, 0x203B),
    (0x203D, 0x203D), (0x2044, 0x2044), (0x204E, 0x204E), (0x2052, 0x2052), (0x20A1, 0x20A1), (0x20A4, 0x20A4),
    (0x20A6, 0x20A6), (0x20A9, 0x20A9), (0x20AB, 0x20AC), (0x20B1, 0x20B1), (0x2103, 0x2103), (0x2116, 0x2117),
    (0x211E, 0x211E), (0x2120, 0x2120), (0x2122, 0x2122), (0x2126, 0x2127), (0x212E, 0x212E), (0x2190, 0x2193),
    (0x2329, 0x232A), (0x2422, 0x2423), (0x25E6, 0x25E6), (0x25EF, 0x25EF), (0x266A, 0x266A), (0x27E8, 0x27E9),
    (0x3008, 0x3009), (0xFB00, 0xFB06), (0xFEFF, 0xFEFF),
]
# The PDF targets of the report (issue: fewer than 20 overfull boxes, none above 5 pt).
MAX_OVERFULL = 19
MAX_OVERFULL_PT = 5.0
# Characters of the longest code line that fits the text width at the listings' size (\footnotesize monospace on
# A4 with 2 cm margins: about 115; kept below it).
CODE_COLUMNS = 110

DECLARED = re.compile(r"\\DeclareUnicodeCharacter\{([0-9A-Fa-f]{4,6})\}")
FIGURE_NUMBER = re.compile(r"^Figure [A-Z]*[0-9]+(\.[0-9]+)?( \(thesis\))?[,:]")


def in_default(cp):
    return any(lo <= cp <= hi for lo, hi in UTF8_DEFAULT)


def declared_in(paths):
    out = set()
    for p in paths:
        out |= {int(m.group(1), 16) for m in DECLARED.finditer(p.read_text(encoding="utf-8", errors="replace"))}
    return out


def check_characters(tex, text):
    """Problems for characters pdflatex cannot set: neither in UTF8_DEFAULT nor declared."""
    declared = declared_in([tex, *sorted(tex.parent.glob("*.sty"))])
    first = {}
    for n, line in enumerate(text.split("\n"), 1):
        for ch in line:
            cp = ord(ch)
            if cp > 127 and cp not in declared and not in_default(cp):
                first.setdefault(ch, [n, 0])[1] += 1
    return [f"{tex}:{n}: character U+{ord(ch):04X} ({unicodedata.name(ch, 'unnamed')}) is not set up for pdflatex "
            f"({count} in all): declare it in paper/conf.py's preamble or write it otherwise"
            for ch, (n, count) in first.items()]


def check_figures(tex, text):
    """Problems for figure captions without their own number."""
    problems = []
    for m in re.finditer(r"\\begin\{figure\}(.*?)\\end\{figure\}", text, re.S):
        line = text.count("\n", 0, m.start()) + 1
        cap = re.search(r"\\caption\{(.*)", m.group(1))
        if not cap:
            problems.append(f"{tex}:{line}: a figure without a caption")
        elif not FIGURE_NUMBER.match(cap.group(1)):
            problems.append(f"{tex}:{line}: a figure caption without its number: {cap.group(1)[:60]}")
    return problems


def plain_code(line):
    """A line of Sphinx's Pygments LaTeX as the characters it prints."""
    line = re.sub(r"\\PYGZ[a-z]+\{\}", "x", line)
    line = re.sub(r"\\PYG\{[^}]*\}\{", "", line)
    line = re.sub(r"\\sphinx[a-zA-Z]+\{\}", "x", line)
    return line.replace("}", "").replace("\\", "")


def check_code(tex, text):
    """Problems for code listing lines longer than CODE_COLUMNS characters."""
    problems = []
    for m in re.finditer(r"\\begin\{sphinxVerbatim\}[^\n]*\n(.*?)\\end\{sphinxVerbatim\}", text, re.S):
        first = text.count("\n", 0, m.start(1)) + 1
        for k, line in enumerate(m.group(1).split("\n")):
            width = len(plain_code(line))
            if width > CODE_COLUMNS:
                problems.append(f"{tex}:{first + k}: a code line of {width} characters (at most {CODE_COLUMNS} fit)")
    return problems


# A fence of three backticks or tildes and "{name}" as LaTeX writes them in running text.
UNPARSED_DIRECTIVE = re.compile(r"(?:\\textasciigrave\{\}|\\textasciitilde\{\}){3}\\\{([a-z-]+)\\\}")


def check_directives(tex, text):
    """Problems for MyST directives that reached the LaTeX source as text."""
    return [f"{tex}:{text.count(chr(10), 0, m.start()) + 1}: a {m.group(1)} directive came out as text "
            f"(its fence was not parsed): {text[m.end():m.end() + 60].strip()}"
            for m in UNPARSED_DIRECTIVE.finditer(text)]


OVERFULL = re.compile(r"^Overfull \\([hv])box \(([0-9.]+)pt too (?:wide|high)\)(.*)$", re.M)


def check_log(log):
    """Problems in a LaTeX log: overfull boxes past the limits, any overfull vertical box, missing characters."""
    text = log.read_text(encoding="latin-1")
    boxes = [(m.group(1), float(m.group(2)), m.group(3).strip()) for m in OVERFULL.finditer(text)]
    problems = []
    if len(boxes) > MAX_OVERFULL:
        problems.append(f"{log}: {len(boxes)} overfull boxes (at most {MAX_OVERFULL})")
    for kind, pt, where in boxes:
        if kind == "v":
            problems.append(f"{log}: an overfull vertical box ({pt:g} pt too high, {where}): content runs off a page")
        elif pt > MAX_OVERFULL_PT:
            problems.append(f"{log}: an overfull box of {pt:g} pt ({where}; at most {MAX_OVERFULL_PT:g} pt)")
    missing = re.findall(r"^Missing character: There is no (.*)$", text, re.M)
    if missing:
        problems.append(f"{log}: {len(missing)} missing characters, first: {missing[0]}")
    worst = max((pt for _, pt, _ in boxes), default=0.0)
    return problems, f"{len(boxes)} overfull boxes, the largest {worst:g} pt"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tex", type=pathlib.Path, help="the LaTeX source Sphinx wrote")
    ap.add_argument("--log", type=pathlib.Path, help="pdflatex's log of the last run, when the PDF was built")
    a = ap.parse_args(argv)
    if not a.tex and not a.log:
        ap.error("give --tex, --log or both")
    for p in [p for p in (a.tex, a.log) if p]:
        if not p.is_file():
            print(f"check_pdf: {p}: no such file", file=sys.stderr)
            return 2
    problems, done = [], []
    if a.tex:
        text = a.tex.read_text(encoding="utf-8")
        problems += check_characters(a.tex, text) + check_figures(a.tex, text) + check_code(a.tex, text)
        problems += check_directives(a.tex, text)
        done.append("LaTeX source checked")
    if a.log:
        log_problems, what = check_log(a.log)
        problems += log_problems
        done.append(f"log: {what}")
    for p in problems:
        print(p)
    print(f"pdf check: {'; '.join(done)}; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
