"""Sphinx configuration of the reader's documentation (built by `make docs`)."""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent

project = "mwsep"
author = "the mwsep authors"
copyright = "2026, the mwsep authors"
extensions = ["myst_parser", "breathe", "sphinx.ext.graphviz"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "README.md"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
breathe_projects = {"mwsep": str(ROOT / "docs" / "_build" / "doxygen" / "xml")}
breathe_default_project = "mwsep"
breathe_domain_by_extension = {"hpp": "cpp", "cuh": "cpp", "cu": "cpp"}
highlight_language = "cpp"
html_theme = "alabaster"
html_title = "mwsep: the MilkyWay@Home CUDA likelihood study, rebuilt"
graphviz_output_format = "svg"
nitpicky = False
# C++ declarations that Sphinx's parser cannot resolve (CUDA keywords, standard types) are not errors of ours.
cpp_id_attributes = ["__host__", "__device__", "__global__", "__forceinline__", "__constant__"]
cpp_paren_attributes = ["__maxnreg__"]
# Wide enough for 120-column source listings without scrolling.
html_theme_options = {"page_width": "1320px", "sidebar_width": "230px"}
