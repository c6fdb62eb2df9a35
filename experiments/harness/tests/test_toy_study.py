"""A new study is its folders and one declaration: in a temporary copy of the tree, the toy CPU-only study of
experiments/harness/tests/toy_study/ (the one docs/extending.md walks through) is added, run by the runner,
checked by the results check, compared, and written up by the report generator through its facts
(paper/toy/facts.py) and its chapter module, with no other edit; every step runs through the project's package
tree (python -m ..., or the entry points the README names by path)."""
import csv
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]
ROOT = EXPERIMENTS.parent
TOY = pathlib.Path(__file__).resolve().parent / "toy_study"

IGNORE = shutil.ignore_patterns("results", "__pycache__", "_build", "_generated", "_preview", "out",
                                "toy_study", "*.png", "*.svg")


class ToyStudy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = pathlib.Path(tempfile.mkdtemp())
        cls.root = cls.tmp / "tree"
        for folder in ("experiments", "paper", "figures", "tools"):
            shutil.copytree(ROOT / folder, cls.root / folder, ignore=IGNORE)
        shutil.copytree(TOY, cls.root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("entry.json", "__pycache__"))
        # The one declaration: the toy's entry in experiments/studies.json.
        decl = cls.root / "experiments" / "studies.json"
        data = json.loads(decl.read_text())
        data["studies"].append(json.loads((TOY / "entry.json").read_text()))
        decl.write_text(json.dumps(data, indent=1, ensure_ascii=False))
        cls.build = cls.root / "build"
        (cls.build / "build_info.json").write_text('{"build_type": "toy", "cuda": "OFF"}')
        # A copy without .git names its commit in a source manifest (the copy lacks most of the tree, so its
        # recordings are marked dirty: measured, not declared).
        subprocess.run([sys.executable, str(ROOT / "tools" / "source_manifest.py"), "--out",
                        str(cls.root / ".source-manifest.json")], check=True, capture_output=True)
        cls.env = dict(os.environ, COMPARE="")
        cls.env.pop("MWSEP_GIT_STATE", None)
        cls.results = cls.root / "experiments" / "results"

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def py(self, *args, ok=True):
        r = subprocess.run([sys.executable, *map(str, args)], cwd=self.root, env=self.env, capture_output=True, text=True)
        if ok:
            self.assertEqual(r.returncode, 0, f"{args}: {r.stdout[-1500:]}\n{r.stderr[-1500:]}")
        return r

    def run_toy(self, name):
        out = self.results / name
        self.py("experiments/run.py", "--study", "toy", "--only", "sums", "--build", self.build, "--out", out)
        return out

    def test_the_runner_compare_results_check_and_report(self):
        first = self.run_toy("toy-host")
        with (first / "toy" / "sums.csv").open() as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 9)
        for r in rows:  # the program against Gauss's closed form
            n = int(r["n"])
            self.assertEqual(int(r["sum"]), n * (n + 1) // 2)
        meta = json.loads((first / "toy" / "sums.meta.json").read_text())
        self.assertEqual(meta["command"], "python3 experiments/run.py --study toy --only sums")

        # The results check knows the toy's kind from its declaration.
        check = self.py("-m", "tools.check_results", self.results)
        self.assertIn("0 problems", check.stdout)

        # A second recording agrees; a changed sum differs; a folder against itself agrees.
        second = self.run_toy("toy-again")
        try:
            r = self.py("experiments/compare.py", second, first)
            self.assertIn("| toy/sums.csv | agrees |", r.stdout)
            self.assertIn("3 configurations, columns sum; 0 differ", r.stdout)
            path = second / "toy" / "sums.csv"
            path.write_text(path.read_text().replace(",500500,", ",500501,"))
            # A file edited after the runner wrote it is refused as data ...
            r = self.py("experiments/compare.py", second, first, ok=False)
            self.assertEqual(r.returncode, 1)
            self.assertIn("| toy/sums.csv | unreadable |", r.stdout)
            self.assertIn("changed since the runner wrote it", r.stdout)
            # ... and a recording whose sum differs (its manifest records the file as written) differs.
            manifest = json.loads((second / "manifest.json").read_text())
            manifest["files"]["toy/sums.csv"]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
            (second / "manifest.json").write_text(json.dumps(manifest))
            r = self.py("experiments/compare.py", second, first, ok=False)
            self.assertEqual(r.returncode, 1)
            self.assertIn("| toy/sums.csv | differs |", r.stdout)
        finally:
            shutil.rmtree(second)

        # The toy's facts, built through the package from the folder: numbers, and the sums of Gauss's closed form.
        r = self.py("-c", "import json, sys; from experiments.harness.results import ResultFolder; "
                    "from paper.toy import facts; "
                    "f = facts.build(ResultFolder(sys.argv[1]), json.load(open('paper/toy/published.json'))); "
                    "print(json.dumps({'largest': f.sums.largest, 'sums': dict(f.sums.sums)}))", first)
        built = json.loads(r.stdout)
        self.assertEqual(built["largest"], 100000)
        self.assertEqual({int(n): s for n, s in built["sums"].items()}, {n: n * (n + 1) // 2 for n in (10, 1000, 100000)})

        # The report: the toy's chapter alone, its table numbered with the toy's letter.
        r = self.py("-m", "paper.report_data", first, "--study", "toy")
        self.assertIn("report_data: toy:", r.stdout)
        generated = self.root / "paper" / "toy" / "_generated"
        self.assertIn("Table T1: the sums", (generated / "table_toy.md").read_text())
        numbers = json.loads((self.root / "paper" / "_generated" / "numbers.json").read_text())
        self.assertEqual(numbers["toy_sum"], "5000050000")
        self.assertEqual(numbers["toy_verdict"], "equal to")
        self.assertEqual((generated / "status.md").read_text(), "")
        self.assertEqual(json.loads((generated / "fallbacks.json").read_text()), [])
        self.assertIn("/toy/[0-9]*", (self.root / "paper" / "_preview" / "index.md").read_text())
        r = self.py("-m", "tools.check_report", self.root / "paper" / "toy")
        self.assertIn("0 problems", r.stdout)

    def test_a_folder_without_the_study_reports_it_not_measured(self):
        empty = self.tmp / "elsewhere"
        empty.mkdir()
        (empty / "manifest.json").write_text('{"files": {}, "experiments": {}}')
        r = self.py("-m", "paper.report_data", empty, "--study", "toy")
        self.assertIn("not measured on this GPU", r.stdout)
        generated = self.root / "paper" / "toy" / "_generated"
        self.assertIn("Not measured on this GPU (elsewhere)", (generated / "status.md").read_text())
        self.assertIn("Not measured on this GPU", (generated / "table_toy.md").read_text())
        numbers = json.loads((self.root / "paper" / "_generated" / "numbers.json").read_text())
        self.assertEqual(numbers["toy_sum"], "(not measured)")
        # The fallback is recorded with the folder it lacks, which is absent: the report check passes it.
        [fallback] = json.loads((generated / "fallbacks.json").read_text())
        self.assertEqual(fallback["what"], "the study")
        self.assertEqual(fallback["sources"], [str(empty / "toy")])
        r = self.py("-m", "tools.check_report", self.root / "paper" / "toy")
        self.assertIn("0 problems", r.stdout)

    def test_a_second_study_with_the_same_table_letter_is_refused(self):
        decl = self.root / "experiments" / "studies.json"
        saved = decl.read_text()
        try:
            data = json.loads(saved)
            data["studies"].append(dict(data["studies"][-1], name="toy_two"))
            decl.write_text(json.dumps(data))
            r = self.py("experiments/run.py", "--study", "toy", "--only", "sums", "--build", self.build,
                        "--out", self.tmp / "never", ok=False)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("table letter 'T' of 'toy_two' is already the letter of 'toy'", r.stderr)
            self.assertNotIn("Traceback", r.stderr)
        finally:
            decl.write_text(saved)


if __name__ == "__main__":
    unittest.main()
