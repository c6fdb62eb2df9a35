"""Results are data, checked like data: the results layer refuses a damaged file with its file, line and column
(a line cut short, a NaN, a negative time, a configuration or a row twice, a column missing, an `experiment`
column or a .meta.json naming something else, a file edited after the runner wrote it), reads no file whose
experiment the manifest does not list as done, and the comparison works out whether a correctness row passes
from its values, never from its `pass` column. No comparison writes into a compared or a committed folder."""
import csv
import hashlib
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]
ROOT = EXPERIMENTS.parent
H200 = EXPERIMENTS / "results" / "nvidia-h200"
H100 = EXPERIMENTS / "results" / "nvidia-h100-80gb-hbm3"

from tools import check_results  # noqa: E402
from experiments import compare  # noqa: E402
from experiments.harness import results  # noqa: E402
from experiments.harness.results import BadResultFile, IncompleteFile, ResultFolder  # noqa: E402


def folder_of(dest, rels, source=H200):
    """A results folder holding copies of @p rels (and their .meta.json) of the committed @p source alone."""
    manifest = json.loads((source / "manifest.json").read_text())
    manifest["files"] = {rel: manifest["files"][rel] for rel in rels}
    experiments = {e["experiment"] for e in manifest["files"].values()}
    manifest["experiments"] = {e: manifest["experiments"][e] for e in experiments}
    for rel in rels:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / rel, dest / rel)
        shutil.copy(results.meta_path(source / rel), results.meta_path(dest / rel))
    (dest / "manifest.json").write_text(json.dumps(manifest))
    return dest


def unseal(folder, rels):
    """Makes the manifest entries of @p rels in @p folder ones of the earlier format, without the SHA-256 and row
    counts the runner records now: the line-by-line checks these tests exercise run only where a recorded SHA-256
    does not refuse an edited file first (test_a_file_edited_after_the_runner_wrote_it tests that)."""
    manifest = json.loads((folder / "manifest.json").read_text())
    for rel in rels:
        for key in ("sha256", "rows", "parts"):
            manifest["files"][rel].pop(key, None)
    (folder / "manifest.json").write_text(json.dumps(manifest))


def edit_rows(path, change):
    """Rewrites the CSV @p path with change(rows) (a list of dicts; returns the new list)."""
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    rows = change(rows)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


class DamagedFilesAreRefused(unittest.TestCase):
    REL = "munch/convolution_gpu.csv"

    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.folder = folder_of(self.tmp / "f", [self.REL, "mwsep/skipping.csv", "mwsep/gpu_correctness.csv"])
        self.path = self.folder / self.REL
        # These tests exercise the line-by-line checks, which a recorded SHA-256 would pre-empt: the copies' entries
        # are made ones of the earlier format (the SHA-256 test adds one back).
        unseal(self.folder, [self.REL, "mwsep/skipping.csv", "mwsep/gpu_correctness.csv"])

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def problems(self, rel=None):
        return ResultFolder(self.folder).problems(rel or self.REL)

    def refused(self, expected, rel=None):
        """The file is refused, by problems() and by rows(), with @p expected in the first finding."""
        problems = self.problems(rel)
        self.assertTrue(problems, "no problem found")
        self.assertIn(expected, problems[0])
        with self.assertRaises(BadResultFile):
            ResultFolder(self.folder).rows(rel or self.REL)
        return problems[0]

    def test_the_copies_are_whole(self):
        for rel in (self.REL, "mwsep/skipping.csv", "mwsep/gpu_correctness.csv"):
            self.assertEqual(self.problems(rel), [], rel)
        self.assertEqual(len(ResultFolder(self.folder).rows(self.REL)), len(results.read_csv(H200 / self.REL)))

    def test_a_line_cut_short(self):
        text = self.path.read_text()
        self.path.write_text(text[:-30])  # a kill in the middle of the last line
        lines = text[:-30].count("\n") + 1
        first = self.refused(f"{self.path}:{lines}: ")
        self.assertTrue("cut short" in first or "fields, the header has" in first, first)

    def test_a_nan_and_a_negative_time(self):
        edit_rows(self.path, lambda rows: [dict(r, kernel_ms="nan") if i == 3 else r for i, r in enumerate(rows)])
        self.refused(f"{self.path}:5: column kernel_ms: NaN")
        shutil.copy(H200 / self.REL, self.path)
        edit_rows(self.path, lambda rows: [dict(r, kernel_ms="-0.5") if i == 0 else r for i, r in enumerate(rows)])
        self.refused(f"{self.path}:2: column kernel_ms: a time or rate must be a finite positive number, not '-0.5'")
        shutil.copy(H200 / self.REL, self.path)
        edit_rows(self.path, lambda rows: [dict(r, gflops="inf") if i == 1 else r for i, r in enumerate(rows)])
        self.refused(f"{self.path}:3: column gflops:")

    def test_a_row_twice_and_a_configuration_twice(self):
        edit_rows(self.path, lambda rows: rows + rows[-1:])
        n = len(results.read_csv(H200 / self.REL)) + 2
        self.refused(f"{self.path}:{n}: the same row as line {n - 1}")
        # A comparison is one row per configuration: the same one again, with another difference, is refused.
        rel = "mwsep/gpu_correctness.csv"
        edit_rows(self.folder / rel, lambda rows: rows + [dict(rows[0], max_rel_diff="1.000e-15")])
        first = self.refused(f"{rel}:", rel)
        self.assertIn("configuration global-ieee-loop-f64/tiny/none/soa again (first on line 2)", first)

    def test_a_missing_column_and_a_foreign_experiment(self):
        text = self.path.read_text().splitlines()
        header = text[0].split(",")
        i = header.index("kernel_ms")
        self.path.write_text("\n".join(",".join(f for j, f in enumerate(line.split(",")) if j != i) for line in text) + "\n")
        self.refused(f"{self.path}:1: missing columns ['kernel_ms']")
        shutil.copy(H200 / self.REL, self.path)
        edit_rows(self.path, lambda rows: [dict(r, experiment="rolling_ball_gpu") if i == 2 else r
                                           for i, r in enumerate(rows)])
        self.refused(f"{self.path}:4: column experiment: 'rolling_ball_gpu', but its .meta.json names experiment "
                     "'convolution_gpu'")

    def test_a_meta_naming_another_file_experiment_or_commit(self):
        meta_path = results.meta_path(self.path)
        meta = json.loads(meta_path.read_text())
        for change, expected in (({"file": "munch/rolling_ball_gpu.csv"}, "names file 'munch/rolling_ball_gpu.csv'"),
                                 ({"experiment": "rolling_ball_gpu"}, "names experiment munch/rolling_ball_gpu"),
                                 ({"git_commit": "0" * 40}, f"names commit {'0' * 40}, which the manifest does not list")):
            with self.subTest(change=change):
                meta_path.write_text(json.dumps(dict(meta, **change)))
                self.assertIn(expected, self.refused(str(meta_path)))
        meta_path.unlink()
        self.refused(f"{self.path}: no provenance file convolution_gpu.meta.json")

    def test_a_file_edited_after_the_runner_wrote_it(self):
        """A folder of the current format records each file's SHA-256 and rows: a hand-edited row is refused."""
        m = json.loads((self.folder / "manifest.json").read_text())
        m["format"] = results.FORMAT
        m["files"][self.REL]["sha256"] = hashlib.sha256(self.path.read_bytes()).hexdigest()
        m["files"][self.REL]["rows"] = len(results.read_csv(self.path))
        (self.folder / "manifest.json").write_text(json.dumps(m))
        self.assertEqual(self.problems(), [])
        edit_rows(self.path, lambda rows: [dict(r, kernel_ms="0.02") if i == 0 else r for i, r in enumerate(rows)])
        self.refused(f"{self.path}: changed since the runner wrote it")

    def test_a_file_whose_experiment_is_not_done_is_not_read(self):
        m = json.loads((self.folder / "manifest.json").read_text())
        m["experiments"]["munch/convolution_gpu"]["status"] = "incomplete"
        (self.folder / "manifest.json").write_text(json.dumps(m))
        with self.assertRaisesRegex(IncompleteFile, "nothing reads a file the manifest does not list as complete"):
            ResultFolder(self.folder).rows(self.REL)
        # The comparison does not read it either: the new run's file differs unread.
        verdicts = {rel: (v, d) for rel, v, d in compare.compare(self.folder, H200)}
        self.assertEqual(verdicts[self.REL][0], "differs")
        self.assertIn("not done: its file is not read", verdicts[self.REL][1])

    def test_the_comparison_says_unreadable_with_the_line_and_column(self):
        edit_rows(self.path, lambda rows: [dict(r, kernel_ms="nan") if i == 3 else r for i, r in enumerate(rows)])
        verdict, detail = {rel: (v, d) for rel, v, d in compare.compare(self.folder, H200)}[self.REL]
        self.assertEqual(verdict, "unreadable")
        self.assertIn(f"the new file: {self.path}:5: column kernel_ms: NaN", detail)

    def test_the_results_check_names_a_pass_column_its_values_contradict(self):
        path = self.folder / "mwsep/gpu_correctness.csv"
        edit_rows(path, lambda rows: [dict(r, **{"pass": "false"}) if i == 0 else r for i, r in enumerate(rows)])
        errors, _ = check_results.check_folder(self.folder)
        self.assertTrue(any(f"{path}:2: column pass: says false, but its values and the declared tolerance say true"
                            in e for e in errors), errors)


class CorrectnessIsRecomputed(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_a_tenfold_max_rel_diff_in_mwsep_correctness_differs(self):
        """Every max_rel_diff x 10 with `pass` left true: the single-precision row whose difference was 1.24e-5
        passes its bound of 1e-4 (the larger of its integral's and its likelihood's tolerances) at 1.24e-4."""
        new = self.tmp / "new"
        shutil.copytree(H200, new)
        unseal(new, ["mwsep/gpu_correctness.csv"])
        edit_rows(new / "mwsep/gpu_correctness.csv",
                  lambda rows: [dict(r, max_rel_diff=repr(float(r["max_rel_diff"]) * 10)) for r in rows])
        verdict, detail = {rel: (v, d) for rel, v, d in compare.compare(new, H200)}["mwsep/gpu_correctness.csv"]
        self.assertEqual(verdict, "differs", detail)
        self.assertIn("comparisons fail", detail)
        self.assertIn("largest max_rel_diff 1.24e-04 (reference 1.24e-05)", detail)
        # The results check names the rows whose pass column the values contradict.
        errors = [e for e in check_results.check_folder(new)[0] if "gpu_correctness.csv" in e]
        self.assertTrue(errors and all("column pass: says true" in e for e in errors), errors[:3])

    def test_a_failing_row_made_to_say_pass_still_fails(self):
        new = self.tmp / "new"
        folder_of(new, ["kirk_hwu/gpu_correctness.csv"])
        unseal(new, ["kirk_hwu/gpu_correctness.csv"])
        ref = folder_of(self.tmp / "ref", ["kirk_hwu/gpu_correctness.csv"])
        edit_rows(new / "kirk_hwu/gpu_correctness.csv",
                  lambda rows: [dict(r, rel_l2_err="0.5") if i == 4 else r for i, r in enumerate(rows)])
        verdict, detail = {rel: (v, d) for rel, v, d in compare.compare(new, ref)}["kirk_hwu/gpu_correctness.csv"]
        self.assertEqual(verdict, "differs")
        self.assertIn("1 comparisons fail", detail)
        self.assertIn("rel_l2_err 0.5 is not <= 0.001 (tolerance)", detail)


class NoToolWritesIntoACommittedFolder(unittest.TestCase):
    def test_compare_refuses_a_report_inside_a_compared_or_committed_folder(self):
        before = sorted(p.name for p in H100.iterdir())
        with tempfile.TemporaryDirectory() as tmp:
            for out in (H100 / "compare.md", H200 / "x" / "compare.md", EXPERIMENTS / "records" / "x" / "c.md"):
                r = subprocess.run([sys.executable, str(EXPERIMENTS / "compare.py"), str(H100), str(H200), "--out",
                                    str(out)], capture_output=True, text=True)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("compare: ", r.stderr)
            # make compare NEW=<committed folder>: refused unless OUT= says where the report goes.
            r = subprocess.run(["make", "-s", "compare", f"NEW={H100}", f"REF={H200}"], cwd=ROOT, capture_output=True,
                               text=True)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("is a committed folder", r.stderr)
            r = subprocess.run(["make", "-s", "compare", f"NEW={H100}", f"REF={H200}", f"OUT={tmp}/c"], cwd=ROOT,
                               capture_output=True, text=True)
            self.assertNotIn("compare: ", r.stderr)  # the two GPUs differ (exit 1), but nothing is refused
            self.assertTrue((pathlib.Path(tmp) / "c" / "compare.json").exists())
        self.assertEqual(sorted(p.name for p in H100.iterdir()), before, "nothing was written into the folder")


if __name__ == "__main__":
    unittest.main()
