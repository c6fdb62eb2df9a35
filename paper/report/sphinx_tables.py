"""The report's tables in the PDF: a column the table helper marks as numbers (MyST's right alignment, the class
text-right on each of its cells; paper/report/common.py, numeric_columns) is set flush right.

Sphinx's LaTeX writer ignores a cell's alignment class and wraps every cell in a varwidth box as wide as its
content, set at the left of its column; for a cell of such a column the box is pushed right by glue of a higher
order of infinity (fill) than the ragged-right glue of the report's columns (fil), so that it ends at the column's
right edge, and its lines are set flush right inside it."""
from sphinx.writers.latex import LaTeXTranslator

PUSH_RIGHT = r"\hskip 0pt plus 1fill\relax" + "\n"
# Inside the box, each paragraph of the cell (a header of two lines) flush right too: Sphinx starts every paragraph
# with \sphinxAtStartPar, which the report's tables make ragged right (paper/conf.py); raggedleft comes after it.
LINES_RIGHT = r"\let\reportStartPar\sphinxAtStartPar\def\sphinxAtStartPar{\reportStartPar\raggedleft}%" + "\n"


class ReportLaTeXTranslator(LaTeXTranslator):
    def visit_entry(self, node):
        super().visit_entry(node)
        if "text-right" not in node.get("classes", []):
            return
        # super() wrote the cell's start into the enclosing body (the cell's own content goes into a new one).
        outer = self.bodystack[-1]
        for i in range(len(outer) - 1, -1, -1):
            if outer[i].startswith(r"\begin{varwidth}"):
                outer.insert(i, PUSH_RIGHT)
                self.body.append(LINES_RIGHT)
                return
        raise RuntimeError("a table cell without its varwidth box: Sphinx's LaTeX writer changed")


def setup(app):
    app.set_translator("latex", ReportLaTeXTranslator, override=True)
