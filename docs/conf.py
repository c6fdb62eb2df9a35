"""Sphinx configuration of the reader's documentation (built by `make docs`)."""
import os
import pathlib
import re

from docutils import nodes

ROOT = pathlib.Path(__file__).resolve().parent.parent

project = "gpu_studies"
author = "the gpu_studies authors"
copyright = "2026, the gpu_studies authors"
# tools.sphinx_offline_mathjax: MathJax served from the build itself, so that the pages read offline.
extensions = ["myst_parser", "breathe", "sphinx.ext.graphviz", "tools.sphinx_offline_mathjax", "tools.sphinx_emphasis"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "README.md"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
breathe_projects = {"gpu_studies": str(ROOT / "docs" / "_build" / "doxygen" / "xml")}
breathe_default_project = "gpu_studies"
breathe_domain_by_extension = {"hpp": "cpp", "cuh": "cpp", "cu": "cpp"}
highlight_language = "cpp"
html_theme = "alabaster"
html_title = "gpu_studies: the MilkyWay@Home CUDA study and three GPU case studies, rebuilt"
html_short_title = "gpu_studies"
graphviz_output_format = "svg"
nitpicky = False
# C++ declarations that Sphinx's parser cannot resolve (CUDA keywords, standard types) are not errors of ours.
cpp_id_attributes = ["__host__", "__device__", "__global__", "__forceinline__", "__constant__"]
cpp_paren_attributes = ["__maxnreg__"]
# Wide enough for 120-column source listings without scrolling: the page, and the body inside it, whose width
# the basic theme otherwise caps at 800 px (body_max_width), cutting listings off.
html_theme_options = {"page_width": "96%", "sidebar_width": "230px", "body_max_width": "none",
                      "code_font_size": "0.8em"}


# The report's chapters, linked from these pages: {report}`text <mwsep/50-cuda-application#anchor>` names a
# chapter by its source under paper/ (without .md). A chapter that does not exist is an error of this build
# (under -W), so a renamed chapter cannot leave a dead link; the link is relative, from this page's place in the
# build to the report's place in the checkout (paper/_build/html, built by `make paper`), and its anchor is
# checked by tools/check_links.py once both are built (make linkcheck).
REPORT_HTML = ROOT / "paper" / "_build" / "html"
_outdir = []  # the HTML build's output folder, set when the builder starts


def report_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    m = re.fullmatch(r"\s*(.+?)\s*<([^<>#]+)(#[^<>]*)?>\s*", text, re.S)
    if not m:
        msg = inliner.reporter.error(f"{{report}}: expected 'text <chapter>' or 'text <chapter#anchor>', found "
                                     f"'{text}'", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    title, chapter, anchor = m.group(1), m.group(2).strip(), m.group(3) or ""
    if not (ROOT / "paper" / f"{chapter}.md").is_file():
        msg = inliner.reporter.error(f"{{report}}: the report has no chapter '{chapter}' (no paper/{chapter}.md)",
                                     line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    docname = inliner.document.settings.env.docname
    page_dir = (pathlib.Path(_outdir[0] if _outdir else ROOT / "docs" / "_build" / "html") / docname).parent
    uri = os.path.relpath(REPORT_HTML / f"{chapter}.html", page_dir) + anchor
    return [nodes.reference(rawtext, title, refuri=uri)], []


def setup(app):
    app.add_role("report", report_role)
    app.connect("builder-inited", lambda app: _outdir.append(str(app.outdir)))
