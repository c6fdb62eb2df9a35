"""tools/view.py (make view) on a checkout made up by the test: it serves the built report on a free local port and
a request for its first page comes back; without a built report it says which command builds it."""
import contextlib
import importlib
import io
import pathlib
import tempfile
import unittest



def load_tool():
    return importlib.import_module("tools.view")


class View(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.tool = load_tool()
        self.tool.ROOT = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def view(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = self.tool.main(list(args))
        return status, out.getvalue()

    def test_serves_the_report(self):
        report = self.tool.ROOT / "paper" / "_build" / "html"
        report.mkdir(parents=True)
        (report / "index.html").write_text("<!DOCTYPE html><html><body>report</body></html>\n")
        status, text = self.view("--check")
        self.assertEqual(status, 0, text)
        self.assertRegex(text, r"view: the report: http://127\.0\.0\.1:\d+/paper/_build/html/index\.html")
        self.assertIn("served the report's first page", text)

    def test_without_a_report_names_the_command(self):
        status, text = self.view("--check")
        self.assertEqual(status, 2, text)
        self.assertIn("run 'make paper PDF=0' first", text)


if __name__ == "__main__":
    unittest.main()
