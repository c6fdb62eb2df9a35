"""The study declaration (experiments/studies.json): read by every tool, checked when read, and the tables
of contents of the docs and the report follow it."""
import json
import pathlib
import tempfile
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]
ROOT = EXPERIMENTS.parent

from experiments.harness import registry
from experiments.harness.results import study_class


class Declaration(unittest.TestCase):
    def write(self, studies):
        path = pathlib.Path(tempfile.mkdtemp()) / "studies.json"
        path.write_text(json.dumps({"studies": studies}))
        return path

    def entry(self, name, letter):
        return {"name": name, "title": name.title(), "table_letter": letter, "program": name,
                "chapters": [f"{name}/[0-9]*"], "docs": [f"{name}/index"]}

    def test_the_committed_declaration_reads(self):
        studies = registry.load()
        self.assertEqual([s.name for s in studies][:1], ["mwsep"])
        self.assertEqual(len({s.table_letter for s in studies}), len(studies))

    def test_a_duplicate_table_letter_is_refused(self):
        path = self.write([self.entry("one", "R"), self.entry("two", "R")])
        with self.assertRaisesRegex(registry.DeclarationError, "table letter 'R' of 'two' is already the letter of 'one'"):
            registry.load(path)

    def test_a_duplicate_name_a_missing_key_and_an_unknown_key_are_refused(self):
        with self.assertRaisesRegex(registry.DeclarationError, "declared twice"):
            registry.load(self.write([self.entry("one", "R"), self.entry("one", "S")]))
        broken = self.entry("one", "R")
        del broken["program"]
        with self.assertRaisesRegex(registry.DeclarationError, r"studies\[0\]: missing key\(s\) program"):
            registry.load(self.write([broken]))
        with self.assertRaisesRegex(registry.DeclarationError, "unknown key"):
            registry.load(self.write([dict(self.entry("one", "R"), prefix="R")]))
        with self.assertRaisesRegex(registry.DeclarationError, "not one capital letter"):
            registry.load(self.write([self.entry("one", "RR")]))

    def test_every_declared_study_has_its_folders_and_a_study_class(self):
        for s in registry.load():
            for folder in (ROOT / "experiments" / "definitions" / s.name, ROOT / "paper" / s.name,
                           ROOT / "figures" / s.name, ROOT / "src" / s.name, ROOT / "tests" / s.name):
                self.assertTrue(folder.is_dir(), f"{s.name}: no {folder.relative_to(ROOT)}")
            cls = study_class(s.name)
            self.assertIsNotNone(cls, s.name)
            self.assertEqual(cls.PROGRAM, s.program)

    def test_every_definition_is_of_a_declared_kind_the_study_can_run(self):
        from experiments.harness import runner
        for s in registry.load():
            cls = study_class(s.name)
            for d in runner.load_definitions(s.name):
                self.assertIn(d["kind"], cls.kinds(), f"{s.name}/{d['name']}")
                self.assertTrue(callable(getattr(cls, "kind_" + d["kind"], None)), f"{s.name}/{d['name']}")

    def test_the_docs_table_of_contents_names_every_study_entry(self):
        text = (ROOT / "docs" / "index.md").read_text()
        for entry in registry.docs_entries(registry.load()):
            self.assertRegex(text, rf"(?m)^{entry}$", f"docs/index.md lacks {entry}")

    def test_the_report_table_of_contents_is_the_declared_one(self):
        text = (ROOT / "paper" / "index.md").read_text()
        self.assertIn(registry.paper_toc(registry.load()), text,
                      "paper/index.md differs from the declaration: run `python3 -m paper.report_data --toc`")


if __name__ == "__main__":
    unittest.main()
