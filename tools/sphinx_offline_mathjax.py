"""A Sphinx extension: HTML pages typeset their mathematics with a copy of MathJax served beside them, so the
documentation and the report read offline (Sphinx's default loads MathJax from a content delivery network,
and a reader without the network sees raw TeX).

MathJax 3 comes from the Python package sphinx-mathjax-offline (pinned in requirements.txt), which ships its
browser files; this extension copies the ones the pages use (the TeX-to-HTML bundle tex-chtml.js and the
components and fonts it loads on demand) into _static/mathjax of every HTML build and points the pages at it.
Used by docs/conf.py and paper/conf.py (extensions = [..., "tools.sphinx_offline_mathjax"], the project installed in the environment).
"""
import importlib.util
import pathlib
import shutil

from sphinx.errors import ExtensionError

PACKAGE = "sphinx-mathjax-offline"
ENTRY = "tex-chtml.js"
# The other ready-made bundles of the package (SVG output, MathML input, speech) are not used by the pages.
UNUSED_BUNDLES = {"tex-chtml-full.js", "tex-chtml-full-speech.js", "tex-mml-chtml.js", "tex-mml-svg.js",
                  "tex-svg.js", "tex-svg-full.js", "mml-chtml.js", "mml-svg.js", "node-main.js"}


def mathjax_dir():
    """The folder of MathJax's browser files inside the installed package; a clear error when it is missing."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ExtensionError(f"{PACKAGE} is not installed: the pages need its copy of MathJax to typeset "
                             "mathematics offline (make venv installs it, pinned in requirements.txt)")
    folder = pathlib.Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax"
    if not (folder / ENTRY).is_file():
        raise ExtensionError(f"{PACKAGE} has no {ENTRY} in {folder}")
    return folder


def use_local_mathjax(app, config):
    config.mathjax_path = f"mathjax/{ENTRY}"  # relative: Sphinx serves it from the build's _static/


def copy_mathjax(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    source = mathjax_dir()
    target = pathlib.Path(app.outdir) / "_static" / "mathjax"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=lambda d, names: [n for n in names
                                                             if pathlib.Path(d) == source and n in UNUSED_BUNDLES])


def setup(app):
    mathjax_dir()  # fail at the start of the build, not after it
    app.connect("config-inited", use_local_mathjax)
    app.connect("build-finished", copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
