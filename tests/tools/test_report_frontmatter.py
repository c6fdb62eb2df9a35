"""The report's front matter, its counts of verdicts, its provenance appendix and its tables' alignment:

- the date of the build is SOURCE_DATE_EPOCH's when set, else the commit's (as git itself prints it in UTC); a
  SOURCE_DATE_EPOCH that is no number of seconds is refused with its name;
- a chapter's verdicts are counted by the kinds its own words give them; a study whose every row must be judged
  fails on a verdict its words do not cover; every verdict of the committed H200's Münch claims tables has a
  kind, and there are as many as the tables have rows;
- nothing the provenance captions reported is lost by moving it to the appendix: each chapter's provenance table
  keeps a short caption and a line pointing to the appendix, the appendix names every file and reason of the
  sentence the captions used to end with (tools/release_check.py, describe_changes), and its count of files per
  study is the number of rows of that study's provenance table;
- a table's columns of numbers are set flush right, its columns of words are not;
- the report check lets a declared document key ([S1]) pass and still catches a number typed in a bracket.

Run from the checkout's root: python3 -m unittest tests/tools/test_report_frontmatter.py
"""
import collections
import importlib
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

from experiments.harness.results import ResultFolder
from paper.report import facts as facts_layer
from paper.report import frontmatter
from paper.report.common import DIFFERS, NOT_TESTABLE, QUALITATIVE, REPRODUCED, Output, read_with_provenance, table
from tools import release_check

ROOT = pathlib.Path(__file__).resolve().parents[2]
H200 = ROOT / "experiments" / "results" / "nvidia-h200"
H100 = ROOT / "experiments" / "results" / "nvidia-h100-80gb-hbm3"
STUDIES = ("mwsep", "ryoo", "kirk_hwu", "munch")


def facts_of(study):
    return importlib.import_module(f"paper.{study}.facts").build(
        ResultFolder(H200), facts_layer.published(study), [H100 / study])


def body_rows(md):
    """The body rows of the MyST tables in @p md (lines between the alignment row and the closing fence)."""
    rows, inside = [], False
    for line in md.splitlines():
        if re.fullmatch(r"\|(-+:?\|)+", line):
            inside = True
        elif line.startswith("~~~"):
            inside = False
        elif inside and line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows


class BuildDate(unittest.TestCase):
    def test_source_date_epoch_dates_the_build(self):
        state = frontmatter.build_state({"SOURCE_DATE_EPOCH": "86400"})  # one day after 1970-01-01, by hand
        self.assertEqual((state["date"], state["date_source"]), ("1970-01-02", "SOURCE_DATE_EPOCH"))

    def test_without_it_the_commit_dates_the_build(self):
        state = frontmatter.build_state({})
        if state["commit"] is None:
            self.skipTest("not a git checkout")
        git = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--date=format-local:%Y-%m-%d", "--format=%cd"],
                             capture_output=True, text=True, check=True, env=dict(os.environ, TZ="UTC")).stdout.strip()
        self.assertEqual((state["date"], state["date_source"]), (git, "commit"))
        numbers = frontmatter.state_numbers(state, H200, {})
        self.assertIn(f"the date of commit {state['commit'][:7]}", numbers["report_date_source"])

    def test_a_date_that_is_no_number_is_refused(self):
        with self.assertRaisesRegex(frontmatter.FrontMatterError, r"SOURCE_DATE_EPOCH='yesterday'"):
            frontmatter.build_state({"SOURCE_DATE_EPOCH": "yesterday"})


class Verdicts(unittest.TestCase):
    def test_the_chapters_words_give_the_kinds(self):
        from paper.ryoo.data.claims import VERDICT_WORDS
        out = Output()
        out.judged([["R1", "a", "not confirmed: x"], ["R2", "b", "confirmed: y"], ["R3", "c", "refuted for 16 x 16"],
                    ["R5", "d", "here without a block lost"]], "S1", VERDICT_WORDS)
        self.assertEqual([v["kind"] for v in out.verdicts], [DIFFERS, REPRODUCED, DIFFERS, None])
        n = frontmatter.verdict_numbers("ryoo", out.verdicts)
        self.assertEqual((n["verdicts_ryoo_judged"], n["verdicts_ryoo_unjudged"]), ("3", "1"))
        self.assertEqual(n["verdicts_ryoo_summary"], "1 reproduced and 2 differ")

    def test_a_verdict_its_words_do_not_cover_fails_a_strict_table(self):
        from paper.munch.data.verdicts import VERDICT_WORDS
        with self.assertRaisesRegex(ValueError, r"'a claim': the verdict 'maybe' matches none"):
            Output().judged([["a claim", "S4", "1", "2", "maybe"]], "S4", VERDICT_WORDS, strict=True)

    def test_every_munch_verdict_of_the_committed_h200_has_a_kind(self):
        facts = facts_of("munch")
        out = Output()
        for chapter in ("verdicts", "appendix_b"):
            importlib.import_module(f"paper.munch.data.{chapter}").build(out, facts)
        rows = body_rows(out.tables["table_munch_claims"]) + body_rows(out.tables["table_munch_appendix_b"])
        self.assertEqual(len(out.verdicts), len(rows))
        kinds = collections.Counter(v["kind"] for v in out.verdicts)
        self.assertEqual(sum(kinds[k] for k in (REPRODUCED, QUALITATIVE, DIFFERS, NOT_TESTABLE, None)), len(rows))
        # The watchdog cannot be tested without a display: the one claim of that kind in the chapter's words.
        self.assertEqual([v["claim"] for v in out.verdicts if v["kind"] == NOT_TESTABLE][:1],
                         ["The display driver's watchdog ends kernels after 2-5 s (TDR)"])


class ProvenanceMoved(unittest.TestCase):
    """What the four chapters' provenance captions said now stands in the appendix; the chapters keep a short
    caption and a pointer."""

    @classmethod
    def setUpClass(cls):
        cls.tables, cls.records, cls.metas = {}, {}, {}
        for study in STUDIES:
            facts = facts_of(study)
            out = Output()
            importlib.import_module(f"paper.{study}.data.provenance").build(out, facts)
            cls.tables[study] = next(v for k, v in out.tables.items() if k != "para_cache")
            cls.records[study] = frontmatter.provenance_record(facts.files)
            cls.metas[study] = [m for _, m in read_with_provenance(facts.files)]
        cls.appendix, cls.numbers = frontmatter.appendix(list(STUDIES), cls.records)

    def test_each_chapter_keeps_a_short_caption_and_a_pointer(self):
        for study, md in self.tables.items():
            caption = re.search(r"^~~~\{table\} (.*)$", md, re.M).group(1)
            self.assertLess(len(caption.split()), 45, f"{study}: {caption}")
            self.assertNotIn("changed between", caption)
            self.assertRegex(md.split("~~~")[0], r"recorded at commit [0-9a-f]{7}\b.*\{doc\}`/provenance`")

    def test_the_appendix_names_every_change_the_captions_named(self):
        changes = self.appendix["changes"].replace("\u200b", "")
        commits = {m["git_commit"] for metas in self.metas.values() for m in metas if m.get("git_commit")}
        self.assertTrue(commits)
        for commit in commits:
            sentence = release_check.describe_changes(commit)  # what the captions ended with
            if "was not compared" in sentence or "no code that makes a number changed" in sentence:
                self.assertIn(sentence.split(" (")[0].rstrip("."), changes)
                continue
            named = re.findall(r"`([^`]+)` \(", sentence)
            self.assertTrue(named)
            for path in named:
                self.assertIn(f"| {path} |", changes, path)
            for declared in release_check.changes_since(commit)[0]:
                self.assertIn(declared["why_no_recorded_number_changes"], changes)
                self.assertIn(declared["what"], changes)

    def test_the_appendix_counts_the_rows_of_each_chapters_table(self):
        rows = {r[0]: 0 for r in body_rows(self.appendix["studies"])}
        for r in body_rows(self.appendix["studies"]):
            rows[r[0]] += int(r[2])
        for study, md in self.tables.items():
            self.assertEqual(rows[study], len(body_rows(md)), study)
            dirty = sum(1 for r in body_rows(md) if "(dirty)" in " ".join(r))
            counted = sum(int(r[4]) for r in body_rows(self.appendix["studies"]) if r[0] == study)
            self.assertEqual(counted, dirty, study)


class Alignment(unittest.TestCase):
    def test_columns_of_numbers_are_flush_right(self):
        md = table("Table R@: made up", ["name", "ms", "gain", "published / here", "date", "with a unit"],
                   [["a", "1\u202f234.5", "3.2x", "4 / 5.0", "2026-01-01", "12 ms"],
                    ["b", "not recorded", "\u22124.1%", "10 / 16", "2026-02-01", "3"]])
        self.assertIn("\n|---|---:|---:|---:|---|---|\n", md)


class CheckReportKeys(unittest.TestCase):
    def check(self, text):
        with tempfile.TemporaryDirectory() as tmp:
            (pathlib.Path(tmp) / "chapter.md").write_text(text)
            return subprocess.run([sys.executable, "-m", "tools.check_report", tmp, "--numbers-only"], cwd=ROOT,
                                  capture_output=True, text=True)

    def test_a_document_key_passes_and_a_typed_number_does_not(self):
        self.assertEqual(self.check("# A chapter\n\nAs Ryoo et al. show [S1], tiling pays.\n").returncode, 0)
        r = self.check("# A chapter\n\nAs the slides show [S9], tiling pays 4x.\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("chapter.md:3: a number not generated from results", r.stdout)


if __name__ == "__main__":
    unittest.main()
