"""Sphinx configuration of the thesis-style report (built by `make paper`)."""
import json
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
GENERATED = ROOT / "paper" / "_generated"


# The front matter: the title is index.md's first heading; the authors are those of CITATION.cff; the commit, its
# state and the date are those report_data worked out for the front matter (paper/report/frontmatter.py) and
# wrote into numbers.json, so that the title page, the running header and the first HTML page say the same.
from paper.report import frontmatter  # noqa: E402

NUMBERS = json.loads((GENERATED / "numbers.json").read_text())
TITLE = (ROOT / "paper" / "index.md").read_text().splitlines()[0].lstrip("# ").strip()
project = "gpu_studies report"
release = NUMBERS.get("report_built_from", "built from an unknown commit")
version = release
today = NUMBERS.get("report_date", "")
author = frontmatter.citation_authors()
copyright = f"{today[:4]}, {author}" if today[:4].isdigit() else author
# tools.sphinx_offline_mathjax: MathJax served from the build itself, so that the report reads offline.
extensions = ["myst_parser", "tools.sphinx_offline_mathjax"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "README.md", "_generated", "**/_generated", "**/data"]
# PAPER_STUDY=<name>[,<name>]: a preview of these studies' chapters alone (make paper STUDY=<name>), rooted at
# _preview/index.md, which `python3 -m paper.report_data --study` writes. The declaration is read through the
# project's package, installed editable into the environment Sphinx runs in (make venv).
from experiments.harness import registry  # noqa: E402

PREVIEW = [s for s in os.environ.get("PAPER_STUDY", "").replace(",", " ").split() if s]
if PREVIEW:
    root_doc = "_preview/index"
    exclude_patterns += ["index.md"] + [f"{e.name}/*" for e in registry.load() if e.name not in PREVIEW]
else:
    exclude_patterns.append("_preview")
myst_enable_extensions = ["substitution", "colon_fence", "dollarmath", "fieldlist"]
myst_heading_anchors = 3
myst_footnote_transition = False
# Every number the text cites comes from the recorded results through report_data.py.
myst_substitutions = NUMBERS
highlight_language = "cpp"
html_theme = "alabaster"
html_theme_options = {"page_width": "1320px", "sidebar_width": "230px"}
# Columns of numbers flush right (the table helper marks them: paper/report/common.py).
html_static_path = ["_static"]
html_css_files = ["report.css"]
html_title = f"{TITLE} ({release})"
# No automatic numbers: every caption carries its own, the thesis's ("Table 4.2 (thesis)") or the
# report's ("Table R1"), so that the report's numbers cannot pass for the thesis's.
numfig = False
latex_engine = "pdflatex"
latex_documents = [("index", "mwsep-report.tex", TITLE, author, "manual")]
latex_elements = {
    "papersize": "a4paper",
    "pointsize": "10pt",
    "figure_align": "H",
    # The title page carries the front matter (paper/report/frontmatter.py); the abstract follows it and the
    # table of contents follows the abstract (paper/index.md sets both).
    "maketitle": frontmatter.titlepage_latex(TITLE, NUMBERS, frontmatter.documents()),
    "tableofcontents": "",
    "extraclassoptions": "openany,oneside",
    "sphinxsetup": "hmargin={2cm,2cm}, vmargin={2.2cm,2.2cm}",
    "preamble": r"""
\DeclareUnicodeCharacter{202F}{\,}
\DeclareUnicodeCharacter{2212}{\ensuremath{-}}
\DeclareUnicodeCharacter{200B}{\hspace{0pt}}
% Symbols the case-study chapters use in prose and tables.
\DeclareUnicodeCharacter{03C6}{\ensuremath{\varphi}}
\DeclareUnicodeCharacter{03BC}{\ensuremath{\mu}}
\DeclareUnicodeCharacter{2192}{\ensuremath{\rightarrow}}
\DeclareUnicodeCharacter{2248}{\ensuremath{\approx}}
\DeclareUnicodeCharacter{2265}{\ensuremath{\geq}}
\DeclareUnicodeCharacter{2016}{\ensuremath{\Vert}}
\DeclareUnicodeCharacter{2082}{\ensuremath{_2}}
\DeclareUnicodeCharacter{00B9}{\ensuremath{^1}}
\DeclareUnicodeCharacter{03BB}{\ensuremath{\lambda}}
\DeclareUnicodeCharacter{03C1}{\ensuremath{\rho}}
\DeclareUnicodeCharacter{2264}{\ensuremath{\leq}}
\DeclareUnicodeCharacter{1D34}{\ensuremath{^{\mathrm{H}}}}
\DeclareUnicodeCharacter{03C3}{\ensuremath{\sigma}}
\DeclareUnicodeCharacter{207B}{\ensuremath{^{-}}}
\DeclareUnicodeCharacter{2076}{\ensuremath{^{6}}}
\DeclareUnicodeCharacter{2079}{\ensuremath{^{9}}}
% Inline code may break after a hyphen: variant names such as modern-rw-exp8-sub4log-uncapped-f64 sit in
% narrow table columns, and Sphinx's default keeps each one on one line.
\protected\def\mwsepInlineCodeHyphen#1{\mbox{-}\discretionary{}{}{}}
\renewcommand*{\sphinxhyphenininlineliteral}{\mwsepInlineCodeHyphen}
\makeatletter
% Text may break after an underscore: file names (rolling_ball_overhead.csv) and claim keys sit in table cells.
\DeclareRobustCommand{\_}{\ifmmode\nfss@text{\textunderscore}\else\textunderscore\discretionary{}{}{}\fi}
% Title page and running header read "built from commit ..." alone: Sphinx puts "Release" before the release
% whenever one is set, whatever "releasename" says.
\AtBeginDocument{\def\py@release{\version}}
\makeatother
\usepackage{etoolbox}
\usepackage{caption}
\captionsetup{labelformat=empty,labelsep=none}
% Captions carry their own numbers; LaTeX's counters must not show (continued long tables included).
\AtBeginDocument{\renewcommand{\thetable}{}\renewcommand{\tablename}{\unskip}}
\setcounter{secnumdepth}{-1}
\usepackage{float}
\usepackage{needspace}
% A table's caption never ends a page without its table.
\AtBeginDocument{\pretocmd{\sphinxattablestart}{\needspace{9\baselineskip}}{}{}}
\renewcommand{\arraystretch}{1.1}
\sloppy
\makeatletter
% Table columns set ragged right: narrow justified cells spread their words apart.
\newcolumntype{\X}[2]{>{\raggedright\arraybackslash}p{\dimexpr
      (\linewidth-\spx@arrayrulewidth)*#1/#2-\tw@\tabcolsep-\spx@arrayrulewidth\relax}}
\makeatother
% Table cells are varwidth boxes, which restore justified text: each cell's paragraph starts ragged right.
\let\mwsepAtStartPar\sphinxAtStartPar
\AtBeginEnvironment{longtable}{\def\sphinxAtStartPar{\raggedright\mwsepAtStartPar}}
\AtBeginEnvironment{tabulary}{\def\sphinxAtStartPar{\raggedright\mwsepAtStartPar}}
\setlength{\emergencystretch}{3em}
% No tabulary column narrower than a signed number of nine digits (a likelihood such as -2.98530991) or a unit
% such as GFLOP/s at the tables' font size.
\setlength{\tymin}{46pt}
% Tables of ten or more columns are set a size smaller, with narrower gaps between columns (paper/report/common.py wraps them in \mwsepWideTabletrue).
\newif\ifmwsepWideTable
\AtBeginEnvironment{tabulary}{\ifmwsepWideTable\scriptsize\setlength{\tabcolsep}{3pt}\else\footnotesize\fi}
\AtBeginEnvironment{longtable}{\ifmwsepWideTable\scriptsize\setlength{\tabcolsep}{3pt}\else\footnotesize\fi}
\AtBeginEnvironment{sphinxVerbatim}{\footnotesize}
""",
}
latex_table_style = ["booktabs", "colorrows"]


def setup(app):
    # Columns of numbers flush right in the PDF too (the HTML's come from report.css).
    from paper.report import sphinx_tables
    sphinx_tables.setup(app)
