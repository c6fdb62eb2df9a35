"""tools/check_pdf.py on LaTeX sources and logs made up by the test: each kind of problem it names is caught, and a
clean source and log pass."""
import importlib
import pathlib
import tempfile
import unittest


def load_tool():
    """tools.check_pdf, loaded afresh (run from the checkout's root: python3 -m unittest tests/tools/...)."""
    return importlib.reload(importlib.import_module("tools.check_pdf"))


PREAMBLE = "\\DeclareUnicodeCharacter{2248}{\\ensuremath{\\approx}}\n\\begin{document}\n"
FIGURE = "\\begin{figure}[H]\n\\sphinxincludegraphics{a.png}\n\\caption{%s}\n\\end{figure}\n"
CODE = "\\begin{sphinxVerbatim}[commandchars=\\\\\\{\\}]\n%s\n\\end{sphinxVerbatim}\n"
LOG_BOX = "Overfull \\hbox (%spt too wide) in paragraph at lines 10--10\n[]\\T1/qtm/m/n/8 2.98531628\n\n"


class CheckPdf(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        self.tool = load_tool()

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, body, log=None):
        tex = self.dir / "r.tex"
        tex.write_text(PREAMBLE + body + "\\end{document}\n", encoding="utf-8")
        args = ["--tex", str(tex)]
        if log is not None:
            (self.dir / "r.log").write_text(log, encoding="latin-1")
            args += ["--log", str(self.dir / "r.log")]
        return self.tool.main(args)

    def test_clean_source_and_log_pass(self):
        body = ("Text with ’quotes’ — µs × 2, ≈ 3, Münch.\n" + FIGURE % "Figure R3: the best likelihood" +
                FIGURE % "Figure 4.6 (thesis), emulated: speed-up" + CODE % ("\\PYG{k}{int} x = 1;" + " " * 80))
        self.assertEqual(self.run_tool(body, LOG_BOX % "2.04" * 3), 0)

    def test_undeclared_character_is_caught(self):
        # U+1D34 (modifier letter capital H) stopped the PDF build: pdflatex has no mapping for it.
        self.assertEqual(self.run_tool("F\u1d34 d\n"), 1)
        # Declared in a style file beside the source, it passes.
        (self.dir / "extra.sty").write_text("\\DeclareUnicodeCharacter{1D34}{H}\n", encoding="utf-8")
        self.assertEqual(self.run_tool("F\u1d34 d\n"), 0)

    def test_unnumbered_figure_is_caught(self):
        self.assertEqual(self.run_tool(FIGURE % "the measured roofline"), 1)

    def test_long_code_line_is_caught(self):
        self.assertEqual(self.run_tool(CODE % ("x" * (self.tool.CODE_COLUMNS + 1))), 1)
        self.assertEqual(self.run_tool(CODE % ("x" * self.tool.CODE_COLUMNS)), 0)

    def test_directive_set_as_text_is_caught(self):
        # As LaTeX got it from a table whose caption held inline code after a fence of backticks: the fence was no
        # directive, and the table a paragraph of pipes.
        broken = ("\\textasciigrave{}\\textasciigrave{}\\textasciigrave{}\\{table\\} Table P10: provenance "
                  "(\\sphinxcode{\\sphinxupquote{Makefile}}) :align: center\n")
        self.assertEqual(self.run_tool(broken), 1)
        self.assertEqual(self.run_tool(broken.replace("textasciigrave", "textasciitilde")), 1)
        # Three backticks in running text that open no directive pass.
        self.assertEqual(self.run_tool("three \\textasciigrave{}\\textasciigrave{}\\textasciigrave{} marks\n"), 0)

    def test_overfull_limits(self):
        # Too many boxes, each small.
        self.assertEqual(self.run_tool("", LOG_BOX % "1.0" * (self.tool.MAX_OVERFULL + 1)), 1)
        self.assertEqual(self.run_tool("", LOG_BOX % "1.0" * self.tool.MAX_OVERFULL), 0)
        # One box too wide.
        self.assertEqual(self.run_tool("", LOG_BOX % "5.5"), 1)
        # Any overfull vertical box: a table running off the bottom of a page.
        vbox = "Overfull \\vbox (382.1pt too high) has occurred while \\output is active []\n"
        self.assertEqual(self.run_tool("", vbox), 1)
        # A character the font lacks.
        self.assertEqual(self.run_tool("", "Missing character: There is no ^^e2 in font cmr10!\n"), 1)

    def test_the_log_alone(self):
        # After LaTeX, make paper checks the log alone (the source was checked before).
        (self.dir / "r.log").write_text(LOG_BOX % "5.5", encoding="latin-1")
        self.assertEqual(self.tool.main(["--log", str(self.dir / "r.log")]), 1)
        (self.dir / "r.log").write_text(LOG_BOX % "2.0", encoding="latin-1")
        self.assertEqual(self.tool.main(["--log", str(self.dir / "r.log")]), 0)

    def test_missing_file_is_an_error(self):
        self.assertEqual(self.tool.main(["--tex", str(self.dir / "none.tex")]), 2)
        with self.assertRaises(SystemExit):
            self.tool.main([])


if __name__ == "__main__":
    unittest.main()
