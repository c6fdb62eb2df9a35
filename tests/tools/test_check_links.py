"""tools/check_links.py on two small HTML trees made up by the test: a link to a missing page or anchor is dead, a
link from one tree into the other is checked there, a link into a tree that is not built says which command
builds it, a page that loads a script from the network is refused, and links to other sites are not followed."""
import contextlib
import importlib
import io
import pathlib
import tempfile
import unittest



def load_tool():
    return importlib.import_module("tools.check_links")


def page(body, head=""):
    return f"<!DOCTYPE html><html><head>{head}</head><body>\n{body}\n</body></html>\n"


class CheckLinks(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.tool = load_tool()
        self.docs = self.root / "docs" / "_build" / "html"
        self.paper = self.root / "paper" / "_build" / "html"
        (self.docs / "guide").mkdir(parents=True)
        (self.paper / "study").mkdir(parents=True)
        (self.docs / "_static").mkdir()
        (self.docs / "_static" / "style.css").write_text("body {}\n")
        (self.paper / "study" / "chapter.html").write_text(page('<h1 id="top">C</h1><section id="memory">M</section>'))
        (self.paper / "index.html").write_text(page('<a href="study/chapter.html#memory">m</a>'))

    def tearDown(self):
        self.tmp.cleanup()

    def write_docs(self, body, head='<link rel="stylesheet" href="../_static/style.css">'):
        (self.docs / "index.html").write_text(page('<a href="guide/walk.html#step-2">walk</a>'))
        (self.docs / "guide" / "walk.html").write_text(page('<h2 id="step-2">2</h2>\n' + body, head))

    def check(self, *trees):
        self.tool.ROOT = self.root  # the trees' checkout
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = self.tool.main([str(t) for t in trees])
        return status, out.getvalue()

    def test_resolving_links_pass_across_both_trees(self):
        self.write_docs('<a href="../../../../paper/_build/html/study/chapter.html#memory">report</a>\n'
                        '<a href="#step-2">here</a> <a href="https://example.org/x">away</a> <a href="mailto:a@b">m</a>\n'
                        '<a href="../index.html">up</a> <a href="../guide/">folder</a>')
        (self.docs / "guide" / "index.html").write_text(page(""))
        status, text = self.check(self.docs, self.paper)
        self.assertEqual(status, 0, text)
        self.assertIn("every local link resolves", text)

    def test_a_missing_page_is_dead_with_its_line(self):
        # The walkthrough's old links: one ../ too many and a chapter name that no longer exists.
        self.write_docs('<p>x</p>\n<a href="../../../../../paper/_build/html/precision.html">the chapter</a>')
        status, text = self.check(self.docs, self.paper)
        self.assertEqual(status, 1, text)
        self.assertIn("docs/_build/html/guide/walk.html:4: ../../../../../paper/_build/html/precision.html: no such file", text)
        self.assertIn("1 dead", text)

    def test_a_missing_anchor_is_dead_in_either_tree(self):
        self.write_docs('<a href="../../../../paper/_build/html/study/chapter.html#registers">report</a>\n'
                        '<a href="#step-3">here</a>')
        status, text = self.check(self.docs, self.paper)
        self.assertEqual(status, 1, text)
        self.assertIn("no anchor #registers in paper/_build/html/study/chapter.html", text)
        self.assertIn("no anchor #step-3 in docs/_build/html/guide/walk.html", text)

    def test_a_link_into_an_unbuilt_tree_names_the_command(self):
        self.write_docs('<a href="../../../../paper/_build/html/study/chapter.html">report</a>')
        for p in sorted(self.paper.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
        self.paper.rmdir()
        status, text = self.check(self.docs)
        self.assertEqual(status, 1, text)
        self.assertIn("paper/_build/html is not built (make paper PDF=0)", text)

    def test_a_script_from_the_network_is_refused(self):
        self.write_docs("", head='<script defer src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>')
        status, text = self.check(self.docs, self.paper)
        self.assertEqual(status, 1, text)
        self.assertIn("loads https://cdn.jsdelivr.net/... from the network", text)

    def test_a_missing_style_sheet_is_dead(self):
        self.write_docs("", head='<link rel="stylesheet" href="../_static/missing.css">')
        status, text = self.check(self.docs, self.paper)
        self.assertEqual(status, 1, text)
        self.assertIn("../_static/missing.css: no such file", text)

    def test_a_tree_that_does_not_exist_is_a_usage_error(self):
        status, text = self.check(self.root / "nowhere")
        self.assertEqual(status, 2, text)


if __name__ == "__main__":
    unittest.main()
