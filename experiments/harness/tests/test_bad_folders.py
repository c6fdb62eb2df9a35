"""Bad folders are refused before any work: a damaged or foreign manifest, a folder of a newer format, a file not
as the runner left it (missing, edited, its .meta.json naming another file or commit), a folder of another GPU
model, and an experiment begun on another host; a run over several studies checks every study before any job of
any study runs. The readers (the comparison, the results check) refuse the same folders with the file named."""
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]
ROOT = EXPERIMENTS.parent

from tools import check_results  # noqa: E402
from experiments import compare  # noqa: E402
from experiments.harness import runner  # noqa: E402
from experiments.harness.kinds import Compare, Input, Kind  # noqa: E402
from experiments.harness.results import FORMAT, NotAResultFolder, ResultFolder  # noqa: E402
from experiments.harness.runner import Job  # noqa: E402


class CountingStudy:
    """Each job writes one row `key,1`; every run of a job is counted."""
    calls = []
    KINDS = {"rows": Kind(["key", "value"], key=["key"], value="value", numeric={"value"}, host_only=True,
                          compare=Compare("exact"), run_keys={"keys": Input("list[str]")})}

    def __init__(self, build, quick, devices, options):
        pass

    @classmethod
    def kinds(cls):
        return cls.KINDS

    def criterion_description(self, jobs=()):
        return {}

    def sm_count(self):
        return None

    def jobs(self, d):
        for run in d["runs"]:
            for key in run["keys"]:
                def job(tmp, key=key):
                    CountingStudy.calls.append((d["study"], key))
                    part = tmp / f"{d['name']}.csv"
                    part.write_text(f"key,value\n{key},1\n")
                    return {part.name: part}
                yield Job(key, job, [f"count {key}"])


class BadFolders(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.build = self.tmp / "build"
        self.build.mkdir()
        (self.build / "build_info.json").write_text("{}")
        self.old = runner.DEFINITIONS
        runner.DEFINITIONS = self.tmp / "definitions"
        for study in ("alpha", "beta"):
            (runner.DEFINITIONS / study).mkdir(parents=True)
            self.define(study, ["a", "b"])
            sys.modules[f"experiments.studies.{study}"] = types.SimpleNamespace(Study=CountingStudy)
        CountingStudy.calls = []
        self.out = self.tmp / "out"
        self.real_gpus = runner.prov.gpus
        runner.prov.gpus = lambda: []
        self.assertEqual(self.run_both(), 0)
        CountingStudy.calls = []

    def tearDown(self):
        runner.DEFINITIONS = self.old
        runner.prov.gpus = self.real_gpus
        for study in ("alpha", "beta"):
            del sys.modules[f"experiments.studies.{study}"]
        shutil.rmtree(self.tmp)

    def define(self, study, keys):
        (runner.DEFINITIONS / study / "counts.json").write_text(
            json.dumps({"name": "counts", "kind": "rows", "runs": [{"keys": keys}]}))

    def run_both(self):
        plans = [runner.plan_study(s, self.build, devices=[]) for s in ("alpha", "beta")]
        return runner.run_plans(plans, self.out, self.build, devices=[])

    def manifest(self):
        return json.loads((self.out / "manifest.json").read_text())

    def write_manifest(self, m):
        (self.out / "manifest.json").write_text(m if isinstance(m, str) else json.dumps(m))

    def refused(self, *expected):
        """The run over both studies stops before any job (alpha gained a job to run), naming @p expected."""
        self.define("alpha", ["a", "b", "c"])
        with self.assertRaises(SystemExit) as caught:
            self.run_both()
        for text in expected:
            self.assertIn(text, str(caught.exception))
        self.assertEqual(CountingStudy.calls, [], "no job of any study ran")
        return str(caught.exception)

    def test_a_damaged_a_foreign_and_a_newer_manifest(self):
        path = self.out / "manifest.json"
        saved = path.read_text()
        for text, expected in ((saved[: len(saved) // 2], "damaged (not JSON"),
                               (json.dumps({"results": []}), "not a manifest of experiments/run.py"),
                               (json.dumps(dict(json.loads(saved), format=FORMAT + 1)),
                                f"a results folder of format {FORMAT + 1}, written by a newer runner")):
            with self.subTest(expected=expected):
                self.write_manifest(text)
                self.refused(str(path), expected)
                # The readers refuse the folder too, naming the file.
                with self.assertRaisesRegex(NotAResultFolder, str(path).replace(".", r"\.")):
                    ResultFolder(self.out)
                r = subprocess.run([sys.executable, str(EXPERIMENTS / "compare.py"), str(self.out), str(self.out)],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 2)
                self.assertIn(str(path), r.stderr)
                errors, _ = check_results.check_folder(self.out)
                self.assertIn(str(path), errors[0])
        self.write_manifest(saved)

    def test_a_manifest_naming_a_file_outside_the_folder(self):
        m = self.manifest()
        m["files"]["../elsewhere.csv"] = dict(m["files"]["alpha/counts.csv"])
        self.write_manifest(m)
        self.refused("file '../elsewhere.csv' is not <study>/<file> inside the folder")

    def test_a_missing_or_edited_file(self):
        path = self.out / "beta" / "counts.csv"
        text = path.read_text()
        path.write_text(text.replace(",1\n", ",2\n", 1))
        self.refused(f"{path}: changed since the runner wrote it", "--redo <experiment>")
        path.unlink()
        self.refused(f"{path}: in manifest.json but missing")

    def test_a_meta_naming_another_file_or_commit(self):
        meta_path = self.out / "beta" / "counts.meta.json"
        meta = json.loads(meta_path.read_text())
        meta_path.write_text(json.dumps(dict(meta, file="alpha/counts.csv")))
        self.refused(f"{meta_path}: names file 'alpha/counts.csv', not beta/counts.csv")
        meta_path.write_text(json.dumps(dict(meta, git_commit="f" * 40)))
        self.refused(f"{meta_path}: names commit {'f' * 40}, which the manifest does not list")

    def test_a_folder_of_another_gpu_model(self):
        m = self.manifest()
        m["host"]["gpus"] = [{"gpu_name": "NVIDIA H100 80GB HBM3"}]
        self.write_manifest(m)
        self.refused("a folder of NVIDIA H100 80GB HBM3; this host has no GPU", "fresh --out")

    def test_every_study_is_checked_before_any_job_of_any_study(self):
        """beta's experiment ran on another host: the run over alpha and beta refuses before alpha's new job."""
        m = self.manifest()
        for key in ("a", "b"):
            m["experiments"]["beta/counts"]["origins"][key]["hostname"] = "elsewhere"
        self.write_manifest(m)
        meta_path = self.out / "beta" / "counts.meta.json"
        meta_path.write_text(json.dumps(dict(json.loads(meta_path.read_text()), host_name="elsewhere")))
        self.refused("beta/counts: 2 job(s) with rows in its file ran on host elsewhere")
        self.assertEqual(self.manifest(), m, "the folder is as it was")
        # Without beta, alpha resumes: its new job runs alone.
        self.assertEqual(runner.run_study("alpha", self.out, self.build), 0)
        self.assertEqual(CountingStudy.calls, [("alpha", "c")])

    def test_a_file_whose_rows_come_from_two_hosts_is_refused_by_the_readers(self):
        m = self.manifest()
        m["experiments"]["alpha/counts"]["origins"]["b"]["hostname"] = "elsewhere"
        self.write_manifest(m)
        problems = ResultFolder(self.out).problems("alpha/counts.csv")
        self.assertTrue(any("its rows come from jobs of two hosts or source trees" in p for p in problems), problems)
        self.assertTrue(any("names host" in p and "but its jobs ran on" in p for p in problems) or len(problems) == 1)
        verdicts = {rel: (v, d) for rel, v, d in compare.compare(self.out, self.out)}
        self.assertEqual(verdicts["alpha/counts.csv"][0], "unreadable")
        self.refused("alpha/counts: 1 job(s) with rows in its file ran on host elsewhere")

    def test_the_folder_is_left_as_it_was(self):
        meta_path = self.out / "beta" / "counts.meta.json"
        meta_path.write_text(json.dumps(dict(json.loads(meta_path.read_text()), git_commit="f" * 40)))
        before = {p: p.read_bytes() for p in self.out.rglob("*") if p.is_file()}
        self.refused("names commit")
        self.assertEqual({p: p.read_bytes() for p in self.out.rglob("*") if p.is_file()}, before)


if __name__ == "__main__":
    unittest.main()
