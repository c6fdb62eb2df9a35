"""The runner and the compare command on a small study made up here (no GPU, no mwsep needed)."""
import csv
import json
import pathlib
import subprocess
import sys
import tempfile
import types
import unittest

from experiments.harness import gpu_tests, runner
from experiments.harness.results import ResultFolder
from experiments.harness.runner import Job, JobFailed

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]


class FakeStudy:
    """Two jobs per run: each writes one CSV row; a job named 'flaky' fails the first time it runs."""
    calls = []

    def __init__(self, build, quick, devices, options):
        self.flaky_failed = False

    def criterion_description(self, commands=None):
        return {"min_samples": 1}

    def sm_count(self):
        return None

    def jobs(self, d):
        for run in d["runs"]:
            for key in run["keys"]:
                def job(tmp, key=key):
                    FakeStudy.calls.append(key)
                    if key == "flaky" and FakeStudy.calls.count("flaky") == 1:
                        raise RuntimeError("first try fails")
                    if key == "bad":
                        part = tmp / "bad.csv"
                        part.write_text("key,valid\nbad,false\n")
                        e = JobFailed("row marked invalid")
                        e.outputs = {"bad.csv": part}
                        raise e
                    part = tmp / f"{d['name']}.csv"
                    part.write_text(f"key,value\n{key},1\n")
                    if key == "with-log":  # a table and its log: two files of one stem
                        log = tmp / f"{d['name']}.log"
                        log.write_text("[  PASSED  ] 1 test.\n")
                        return {part.name: part, log.name: log}
                    return {part.name: part}
                yield Job(key, job, [f"fake {key}"], needs_gpus=2 if key.startswith("two-gpu") else 0)


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        defs = self.tmp / "definitions" / "fake"
        defs.mkdir(parents=True)
        (defs / "counts.json").write_text(json.dumps({"name": "counts", "kind": "host", "runs": [{"keys": ["a", "flaky"]}]}))
        self.build = self.tmp / "build"
        self.build.mkdir()
        (self.build / "build_info.json").write_text('{"cuda_architectures": "90"}')
        self.old_defs = runner.DEFINITIONS
        runner.DEFINITIONS = self.tmp / "definitions"
        sys.modules["experiments.studies.fake"] = types.SimpleNamespace(Study=FakeStudy)
        FakeStudy.calls = []

    def tearDown(self):
        runner.DEFINITIONS = self.old_defs
        del sys.modules["experiments.studies.fake"]

    def test_an_experiment_whose_every_job_is_skipped_is_named(self):
        """A host without two GPUs skips each two-GPU job: the experiment of only such jobs is named with the
        reason, the one with a job that ran is not, nor is one this run was not asked for."""
        defs = self.tmp / "definitions" / "fake"
        (defs / "pair.json").write_text(json.dumps({"name": "pair", "kind": "host",
                                                    "runs": [{"keys": ["two-gpu-a", "two-gpu-b"]}]}))
        (defs / "mixed.json").write_text(json.dumps({"name": "mixed", "kind": "host",
                                                     "runs": [{"keys": ["two-gpu-c", "one"]}]}))
        out = self.tmp / "out"
        real_gpus = runner.prov.gpus
        runner.prov.gpus = lambda: []
        try:
            runner.run_study("fake", out, self.build, only=["pair", "mixed"])
        finally:
            runner.prov.gpus = real_gpus
        self.assertEqual(self.manifest(out)["experiments"]["fake/pair"]["status"], "skipped")
        self.assertEqual(runner.wholly_skipped(out, "fake", ["pair", "mixed"]),
                         [("fake/pair", "needs 2 GPUs, this host has 0")])
        self.assertEqual(runner.wholly_skipped(out, "fake", ["mixed"]), [])
        self.assertEqual(runner.wholly_skipped(self.tmp / "none", "fake", ["pair"]), [])

    def manifest(self, out):
        return json.loads((out / "manifest.json").read_text())

    def test_a_table_and_its_log_share_one_provenance_that_names_both(self):
        """Two files of one stem (gpu_correctness.csv and .log) get one .meta.json naming both; the folder's check
        reads each as its own, so that a later experiment resumes the folder instead of refusing it."""
        defs = self.tmp / "definitions" / "fake"
        (defs / "paired.json").write_text(json.dumps({"name": "paired", "kind": "host", "runs": [{"keys": ["with-log"]}]}))
        out = self.tmp / "out"
        self.assertEqual(runner.run_study("fake", out, self.build, only=["paired"]), 0)
        meta = json.loads((out / "fake" / "paired.meta.json").read_text())
        self.assertEqual(meta["files"], ["fake/paired.csv", "fake/paired.log"])
        folder = ResultFolder(out)
        for rel in ("fake/paired.csv", "fake/paired.log"):
            self.assertEqual([p for p in folder.problems(rel) if ".meta.json" in p], [], rel)
        # Another experiment into the same folder runs (the runner checks the folder before any job).
        self.assertEqual(runner.run_study("fake", out, self.build, only=["counts"]), 1)
        self.assertIn("a", FakeStudy.calls)

    def test_records_fails_then_resumes(self):
        out = self.tmp / "out"
        self.assertEqual(runner.run_study("fake", out, self.build), 1)
        m = self.manifest(out)
        self.assertEqual(m["experiments"]["fake/counts"]["jobs"]["a"], "done")
        self.assertTrue(m["experiments"]["fake/counts"]["jobs"]["flaky"].startswith("run failed"))
        self.assertEqual(m["experiments"]["fake/counts"]["status"], "incomplete")
        self.assertIn("fake/counts.csv", m["files"])
        meta = json.loads((out / "fake" / "counts.meta.json").read_text())
        self.assertEqual(meta["experiment"], "counts")
        self.assertEqual(meta["build"], {"cuda_architectures": "90"})
        # The second run redoes only the failed job and appends its row.
        self.assertEqual(runner.run_study("fake", out, self.build), 0)
        self.assertEqual(FakeStudy.calls, ["a", "flaky", "flaky"])
        rows = list(csv.DictReader((out / "fake" / "counts.csv").open()))
        self.assertEqual([r["key"] for r in rows], ["a", "flaky"])
        self.assertEqual(self.manifest(out)["experiments"]["fake/counts"]["status"], "done")

    def test_a_resume_on_another_host_stops_before_any_job(self):
        """Jobs done on one host are not resumed on another, nor after a reboot: the run stops before any job
        and names the experiment, the host its jobs ran on and --redo; --redo then records it whole here."""
        out = self.tmp / "out6"
        runner.run_study("fake", out, self.build)          # a done, flaky failed: a resume would run flaky
        m = self.manifest(out)
        self.assertEqual(sorted(m["experiments"]["fake/counts"]["origins"]), ["a", "flaky"])
        here = runner.job_origin("c", False)
        self.assertEqual(m["experiments"]["fake/counts"]["origins"]["a"]["hostname"], here["hostname"])
        for key, value in (("hostname", "elsewhere"), ("boot_id", "another-boot")):
            m["experiments"]["fake/counts"]["origins"]["a"] = dict(here, **{key: value})
            (out / "manifest.json").write_text(json.dumps(m))
            before = list(FakeStudy.calls)
            with self.assertRaisesRegex(SystemExit, r"fake/counts: 1 job\(s\) with rows in its file ran on host "
                                                    r".*--redo <experiment>"):
                runner.run_study("fake", out, self.build)
            self.assertEqual(FakeStudy.calls, before, "no job ran")
        # Another experiment of the same folder, not asked for, does not stop a run.
        (runner.DEFINITIONS / "fake" / "other.json").write_text(
            json.dumps({"name": "other", "kind": "host", "runs": [{"keys": ["o"]}]}))
        self.assertEqual(runner.run_study("fake", out, self.build, only=["other"]), 0)
        # A refused run drops nothing: the files of an experiment it was to record anew stay.
        with self.assertRaises(SystemExit):
            runner.run_study("fake", out, self.build, only=["counts", "other"], redo=["other"])
        self.assertTrue((out / "fake" / "other.csv").exists())
        self.assertEqual(self.manifest(out)["experiments"]["fake/other"]["jobs"], {"o": "done"})
        self.assertEqual(runner.run_study("fake", out, self.build, only=["counts"], redo=["counts"]), 0)
        rows = list(csv.DictReader((out / "fake" / "counts.csv").open()))
        self.assertEqual([r["key"] for r in rows], ["a", "flaky"], "recorded anew, one row a job")

    def test_a_manifest_without_origins_is_not_resumed(self):
        """A folder of an earlier runner, which did not keep where a job ran: its done jobs are not resumed."""
        out = self.tmp / "out7"
        runner.run_study("fake", out, self.build)
        m = self.manifest(out)
        del m["experiments"]["fake/counts"]["origins"]
        (out / "manifest.json").write_text(json.dumps(m))
        with self.assertRaisesRegex(SystemExit, r"fake/counts: 1 job\(s\) with rows in its file recorded without "
                                                r"where they ran"):
            runner.run_study("fake", out, self.build)

    def test_a_resume_from_another_source_tree_stops_before_any_job(self):
        """The rows of one file come from one source tree: a run at another commit, or at the same commit with
        other uncommitted changes, does not resume beside them; --redo records the experiment anew from this tree."""
        out = self.tmp / "out8"
        real = runner.prov.git_state
        try:
            runner.prov.git_state = lambda: ("1111111", True)
            runner.run_study("fake", out, self.build)                     # flaky fails, a is done
            for other in (("2222222", False), ("1111111", False)):
                runner.prov.git_state = lambda other=other: other
                before = list(FakeStudy.calls)
                with self.assertRaisesRegex(SystemExit, r"fake/counts: 1 job\(s\) with rows in its file ran at commit "
                                                        r"1111111 with uncommitted changes, a the first; this run is at "
                                                        rf"commit {other[0]}\. Record them anew with --redo"):
                    runner.run_study("fake", out, self.build)
                self.assertEqual(FakeStudy.calls, before, "no job ran")
            self.assertEqual(runner.run_study("fake", out, self.build, redo=["counts"]), 0)
        finally:
            runner.prov.git_state = real
        meta = json.loads((out / "fake" / "counts.meta.json").read_text())
        self.assertIs(meta["git_dirty"], False)
        self.assertEqual(meta["git_commits"], ["1111111"])

    def test_redo_records_an_experiment_anew(self):
        out = self.tmp / "out3"
        runner.run_study("fake", out, self.build)
        runner.run_study("fake", out, self.build)
        before = len(FakeStudy.calls)
        self.assertEqual(runner.run_study("fake", out, self.build, redo=["counts"]), 0)
        self.assertEqual(FakeStudy.calls[before:], ["a", "flaky"], "both jobs run again")
        rows = list(csv.DictReader((out / "fake" / "counts.csv").open()))
        self.assertEqual([r["key"] for r in rows], ["a", "flaky"], "the old rows are gone, not appended to")
        with self.assertRaises(SystemExit):
            runner.check_names(["fake"], ["nope"])

    def test_a_failed_verification_keeps_its_rows_and_is_not_done(self):
        (runner.DEFINITIONS / "fake" / "counts.json").write_text(
            json.dumps({"name": "counts", "kind": "host", "runs": [{"keys": ["bad"]}]}))
        out = self.tmp / "out2"
        self.assertEqual(runner.run_study("fake", out, self.build), 1)
        self.assertTrue((out / "fake" / "bad.csv").exists())
        self.assertTrue(self.manifest(out)["experiments"]["fake/counts"]["jobs"]["bad"].startswith("verify failed"))

    def test_unknown_experiment_is_refused(self):
        with self.assertRaises(SystemExit):
            runner.check_names(["fake"], ["counts", "nope"])
        runner.check_names(["fake"], ["counts"])

    def test_a_definition_of_an_undeclared_kind_is_refused_before_any_job(self):
        FakeStudy.kinds = classmethod(lambda cls: {"bench": None})
        try:
            with self.assertRaisesRegex(SystemExit, r"counts\.json: kind 'host' is not declared by the study"):
                runner.run_study("fake", self.tmp / "out", self.build)
            self.assertEqual(FakeStudy.calls, [])
        finally:
            del FakeStudy.kinds

    def test_two_studies_may_name_an_experiment_alike(self):
        # A second study with an experiment of the same name runs its own jobs into the same folder: done
        # in one study is not done in the other.
        other = runner.DEFINITIONS / "other"
        other.mkdir()
        (other / "counts.json").write_text(json.dumps({"name": "counts", "kind": "host", "runs": [{"keys": ["b"]}]}))
        sys.modules["experiments.studies.other"] = types.SimpleNamespace(Study=FakeStudy)
        try:
            out = self.tmp / "out4"
            runner.run_study("fake", out, self.build)
            runner.run_study("other", out, self.build)
            self.assertIn("b", FakeStudy.calls)
            m = self.manifest(out)
            self.assertEqual(m["experiments"]["other/counts"]["status"], "done")
            self.assertEqual(m["files"]["other/counts.csv"]["experiment"], "other/counts")
        finally:
            del sys.modules["experiments.studies.other"]

    def test_a_manifest_of_bare_names_reads_as_the_first_study(self):
        out = self.tmp / "out5"
        out.mkdir()
        (out / "manifest.json").write_text(json.dumps({"files": {"mwsep/x.csv": {"experiment": "x", "kind": "bench",
                                                                                  "commits": ["c"]}},
                                                       "experiments": {"x": {"jobs": {"k": "done"}}}}))
        m = runner.Manifest(out)
        self.assertEqual(m.status("mwsep/x", "k"), "done")
        self.assertEqual(m.data["files"]["mwsep/x.csv"]["experiment"], "mwsep/x")


class GpuTestsKindTest(unittest.TestCase):
    """The shared `correctness` kind on a stand-in for a GPU test program: a script that prints GoogleTest's
    summary lines and writes gpu_correctness.csv into the folder its environment variable names."""

    PROGRAM = """#!/usr/bin/env python3
import os, pathlib, sys
mode = pathlib.Path(__file__).with_name("mode").read_text().strip()
out = pathlib.Path(os.environ["FAKE_GPU_RESULTS"])
if mode != "no-csv":
    rows = ["a,1e-13,true", "b,2e-13," + ("false" if mode == "disagree" else "true")]
    (out / "gpu_correctness.csv").write_text("test,error,passed\\n" + "\\n".join(rows) + "\\n")
if mode == "skipped":
    print("[  SKIPPED ] Gpu.Variant")
print("[  PASSED  ] 2 tests.")
sys.exit(1 if mode == "exit" else 0)
"""

    def run_kind(self, mode):
        build = pathlib.Path(self.tmp.name) / "build"
        program = build / "tests" / "fake" / "fake_gpu_tests"
        program.parent.mkdir(parents=True, exist_ok=True)
        program.write_text(self.PROGRAM)
        program.chmod(0o755)
        (program.parent / "mode").write_text(mode)
        kind = gpu_tests.correctness_kind("tests/fake/fake_gpu_tests", "FAKE_GPU_RESULTS")
        [job] = list(kind(types.SimpleNamespace(build=build), {"name": "correctness"}))
        scratch = pathlib.Path(self.tmp.name) / f"scratch-{mode}"
        scratch.mkdir()
        return job, scratch

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_every_comparison_passed(self):
        job, scratch = self.run_kind("pass")
        self.assertEqual(job.commands, [f"FAKE_GPU_RESULTS=<out> {pathlib.Path(self.tmp.name) / 'build/tests/fake/fake_gpu_tests'}"])
        out = job.run(scratch)
        self.assertEqual(sorted(out), ["gpu_correctness.csv", "gpu_correctness.log"])
        self.assertIn("[  PASSED  ] 2 tests.", out["gpu_correctness.log"].read_text())

    def test_a_failed_comparison_a_skipped_test_or_an_exit_code_fails_the_job_and_keeps_its_files(self):
        for mode in ("disagree", "skipped", "exit"):
            job, scratch = self.run_kind(mode)
            with self.assertRaises(JobFailed, msg=mode) as caught:
                job.run(scratch)
            self.assertEqual(sorted(caught.exception.outputs), ["gpu_correctness.csv", "gpu_correctness.log"], mode)

    def test_no_comparisons_is_an_error(self):
        job, scratch = self.run_kind("no-csv")
        with self.assertRaisesRegex(RuntimeError, "wrote no comparisons"):
            job.run(scratch)


class CompareTest(unittest.TestCase):
    """A timing 5 % slower with 0.1 % noise differs; 1 % slower agrees; a missing file is missing (files of
    mwsep's declared kind `bench`)."""

    def folder(self, root, ms, extra=False):
        (root / "mwsep").mkdir(parents=True)
        # mwsep's bench columns: experiment, variant, work_unit, repeat, sm_count, kernel_ms, total_ms, likelihood,
        # valid, sm_clock_mhz, throttled, noise_pct, samples, stop_reason
        head = "experiment,variant,work_unit,repeat,sm_count,kernel_ms,total_ms,likelihood,valid,sm_clock_mhz," \
               "throttled,noise_pct,samples,stop_reason\n"
        (root / "mwsep" / "t.csv").write_text(head + "".join(f"t,v,u,{i},132,{ms},{ms},-3,true,1980,false,0.1,3,min\n"
                                                             for i in range(3)))
        files = {"mwsep/t.csv": {"experiment": "mwsep/t", "kind": "bench", "commits": ["x"]}}
        if extra:
            (root / "mwsep" / "u.csv").write_text(head + "u,v,u,0,132,1,1,-3,true,1980,false,0.1,1,min\n")
            files["mwsep/u.csv"] = {"experiment": "mwsep/u", "kind": "bench", "commits": ["x"]}
        for rel in files:  # the provenance the results layer asks of every file
            name = rel.split("/")[1][:-4]
            (root / "mwsep" / f"{name}.meta.json").write_text(json.dumps(
                {"experiment": name, "study": "mwsep", "kind": "bench", "git_commit": "x", "git_commits": ["x"]}))
        (root / "manifest.json").write_text(json.dumps({"files": files, "experiments": {
            "mwsep/t": {"status": "done", "jobs": {}}, "mwsep/u": {"status": "done", "jobs": {}}}}))
        return root

    def run_compare(self, new, ref):
        r = subprocess.run([sys.executable, str(EXPERIMENTS / "compare.py"), str(new), str(ref)], capture_output=True, text=True)
        return r.returncode, r.stdout

    def test_verdicts(self):
        tmp = pathlib.Path(tempfile.mkdtemp())
        ref = self.folder(tmp / "ref", 100.0, extra=True)
        code, text = self.run_compare(self.folder(tmp / "close", 101.0), ref)
        self.assertIn("| mwsep/t.csv | agrees |", text)
        self.assertIn("| mwsep/u.csv | missing |", text)
        self.assertEqual(code, 1)
        code, text = self.run_compare(self.folder(tmp / "slow", 105.0, extra=True), ref)
        self.assertIn("| mwsep/t.csv | differs |", text)
        self.assertEqual(code, 1)
        code, text = self.run_compare(self.folder(tmp / "same", 100.0, extra=True), ref)
        self.assertEqual(code, 0, text)


if __name__ == "__main__":
    unittest.main()
