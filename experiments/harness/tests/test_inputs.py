"""Declared experiment inputs: every kind declares the keys a definition may give (types, defaults); the runner
refuses an unknown, mistyped or missing key before any job runs, naming the definition file and the key; every
committed definition loads; `experiments/run.py --list` prints every definition's jobs without a GPU or a build."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]

from experiments.harness import registry, runner  # noqa: E402
from experiments.harness.kinds import Input, Kind, type_errors  # noqa: E402
from experiments.harness.results import study_class  # noqa: E402
from experiments.harness.runner import Job  # noqa: E402


class TypeGrammar(unittest.TestCase):
    """Each case worked out by hand."""

    def test_scalars(self):
        self.assertEqual(type_errors("int", 3), "")
        self.assertIn("expected int", type_errors("int", "3"))
        self.assertIn("expected int", type_errors("int", True))  # a JSON true is no number
        self.assertIn("expected int", type_errors("int", 2.5))
        self.assertEqual(type_errors("number", 2.5), "")
        self.assertEqual(type_errors("number", 2), "")
        self.assertEqual(type_errors("bool", False), "")
        self.assertIn("expected str", type_errors("str", None))

    def test_lists_dicts_and_alternatives(self):
        self.assertEqual(type_errors("list[int|str]", [1, "all"]), "")
        self.assertIn("item 1 is 2.5, not int|str", type_errors("list[int|str]", [1, 2.5]))
        self.assertEqual(type_errors("str|list[str]", "warm"), "")
        self.assertEqual(type_errors("str|list[str]", ["warm", "cold"]), "")
        self.assertIn("expected str|list[str]", type_errors("str|list[str]", 3))
        self.assertEqual(type_errors("dict[list]", {"a": [1]}), "")
        self.assertIn("item 'a' is 1, not list", type_errors("dict[list]", {"a": 1}))

    def test_a_wrong_type_spelling_is_refused_where_it_is_declared(self):
        with self.assertRaisesRegex(ValueError, "unknown input type 'integer'"):
            Input("integer")


class KindColumns(unittest.TestCase):
    def test_a_column_declared_twice_is_refused(self):
        # The split experiment once declared its k-space "samples" beside the engine's "samples".
        with self.assertRaisesRegex(ValueError, "name samples twice"):
            Kind(["variant", "samples", "ms", "samples"], key=["variant"], value="ms")
        self.assertEqual(Kind(["variant", "kspace_samples", "ms", "samples"], key=["variant"], value="ms").columns,
                         ("variant", "kspace_samples", "ms", "samples"))


class StudyWithInputs:
    """A study whose kind `host` declares `keys` (required) and `repeats` (3, 1 with --quick); each job records
    the run it was given."""
    calls = []
    KINDS = {"host": Kind(["key"], key=["key"], run_keys={"keys": Input("list[str]"), "repeats": Input("int", 3, quick=1)})}

    def __init__(self, build, quick, devices, options):
        pass

    @classmethod
    def kinds(cls):
        return cls.KINDS

    def criterion_description(self, jobs=None):
        return {}

    def sm_count(self):
        return None

    def jobs(self, d):
        for run in d["runs"]:
            for key in run["keys"]:
                def job(tmp, key=key, run=run):
                    StudyWithInputs.calls.append((key, run["repeats"]))
                    part = tmp / f"{d['name']}.csv"
                    part.write_text(f"key\n{key}\n")
                    return {part.name: part}
                yield Job(key, job, [f"fake {key} --repeats {run['repeats']}"])


class DefinitionsAreChecked(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.defs = self.tmp / "definitions" / "inputs"
        self.defs.mkdir(parents=True)
        self.build = self.tmp / "build"
        self.build.mkdir()
        (self.build / "build_info.json").write_text("{}")
        self.old = runner.DEFINITIONS
        runner.DEFINITIONS = self.tmp / "definitions"
        sys.modules["experiments.studies.inputs"] = types.SimpleNamespace(Study=StudyWithInputs)
        StudyWithInputs.calls = []

    def tearDown(self):
        runner.DEFINITIONS = self.old
        del sys.modules["experiments.studies.inputs"]
        shutil.rmtree(self.tmp)

    def write(self, name, **d):
        path = self.defs / f"{name}.json"
        path.write_text(json.dumps(dict({"name": name, "kind": "host"}, **d)))
        return path

    def test_defaults_are_filled_in(self):
        self.write("a", runs=[{"keys": ["x"]}, {"keys": ["y"], "repeats": 7}])
        [d] = runner.load_definitions("inputs", kinds=StudyWithInputs.kinds())
        self.assertEqual(d["runs"], [{"keys": ["x"], "repeats": 3}, {"keys": ["y"], "repeats": 7}])
        self.assertEqual((d["thesis"], d["question"], d["notes"]), ("", "", ""))
        [d] = runner.load_definitions("inputs", kinds=StudyWithInputs.kinds(), quick=True)
        self.assertEqual([r["repeats"] for r in d["runs"]], [1, 7])

    def test_a_misspelt_key_is_refused_before_any_job_runs(self):
        """A first experiment is fine, the second misspells a key: nothing runs, and the message names the
        misspelt definition's file and its key."""
        self.write("a_first", runs=[{"keys": ["x"]}])
        path = self.write("b_second", runs=[{"keys": ["y"], "repaets": 2}])
        with self.assertRaises(SystemExit) as caught:
            runner.run_study("inputs", self.tmp / "out", self.build)
        message = str(caught.exception)
        self.assertIn(str(path), message)
        self.assertIn("runs[0]: unknown key 'repaets'", message)
        self.assertIn("repeats (int, default 3", message, "the keys the kind takes are listed")
        self.assertEqual(StudyWithInputs.calls, [], "no job ran")
        self.assertFalse((self.tmp / "out" / "manifest.json").exists())

    def test_a_mistyped_a_missing_and_an_unknown_top_level_key_are_refused(self):
        for name, d, expected in (
                ("typed", {"runs": [{"keys": ["y"], "repeats": "5"}]}, "runs[0]: key 'repeats': expected int, got '5'"),
                ("missing", {"runs": [{"repeats": 5}]}, "runs[0]: missing key 'keys' (list[str], required)"),
                ("top", {"runs": [{"keys": ["y"]}], "needs_gpu": 2}, "unknown key 'needs_gpu'"),
                ("empty", {"runs": []}, "key 'runs': at least one run")):
            with self.subTest(name):
                path = self.write(name, **d)
                with self.assertRaisesRegex(SystemExit, "^" + str(path).replace(".", r"\.") + ": ") as caught:
                    runner.load_definitions("inputs", only=[name], kinds=StudyWithInputs.kinds())
                self.assertIn(expected, str(caught.exception))
                path.unlink()

    def test_after_runs_the_named_experiments_first_and_refuses_an_unknown_name_or_a_cycle(self):
        """`a_reads` reads what `b_writes` records: asked for together, b_writes runs first although its file comes
        later; asked for alone, a_reads runs alone; named in another order by --only, they run in that order,
        b_writes still before a_reads. An `after` naming no experiment, or a cycle, is refused with
        the file and the key."""
        self.write("a_reads", runs=[{"keys": ["r"]}], after=["b_writes"])
        self.write("b_writes", runs=[{"keys": ["w"]}])
        self.write("c_other", runs=[{"keys": ["o"]}])
        plan = runner.plan_study("inputs", self.build)
        self.assertEqual([d["name"] for d in plan.definitions], ["b_writes", "a_reads", "c_other"])
        plan = runner.plan_study("inputs", self.build, only=["a_reads", "c_other"])
        self.assertEqual([d["name"] for d in plan.definitions], ["a_reads", "c_other"])
        # --only's order is the run order, an `after` within the list still first
        plan = runner.plan_study("inputs", self.build, only=["c_other", "a_reads"])
        self.assertEqual([d["name"] for d in plan.definitions], ["c_other", "a_reads"])
        plan = runner.plan_study("inputs", self.build, only=["c_other", "a_reads", "b_writes"])
        self.assertEqual([d["name"] for d in plan.definitions], ["c_other", "b_writes", "a_reads"])
        runner.run_study("inputs", self.tmp / "out", self.build)
        self.assertEqual([key for key, _ in StudyWithInputs.calls], ["w", "r", "o"])
        path = self.write("a_reads", runs=[{"keys": ["r"]}], after=["b_wrtes"])
        with self.assertRaisesRegex(SystemExit, "^" + str(path).replace(".", r"\.") +
                                    ": key 'after': 'b_wrtes' is no experiment of the study inputs"):
            runner.plan_study("inputs", self.build)
        self.write("a_reads", runs=[{"keys": ["r"]}], after=["b_writes"])
        self.write("b_writes", runs=[{"keys": ["w"]}], after=["a_reads"])
        with self.assertRaisesRegex(SystemExit, r"key 'after': a cycle \((a_reads -> b_writes -> a_reads|"
                                                r"b_writes -> a_reads -> b_writes)\)"):
            runner.plan_study("inputs", self.build)

    def test_a_kind_without_declared_inputs_is_refused(self):
        self.write("a", runs=[{"keys": ["x"]}])
        with self.assertRaisesRegex(SystemExit, "declares no inputs"):
            runner.load_definitions("inputs", kinds={"host": Kind(["key"])})


class TunedReconstruction(unittest.TestCase):
    """kirk_hwu's tuned reconstruction takes its launch configuration from the tuning sweep of the folder being
    recorded, when its job runs (experiments/studies/kirk_hwu.py)."""

    def test_the_best_median_rate_of_each_computation_worked_out_by_hand(self):
        from experiments.studies.kirk_hwu import best_configuration
        rows = [{"problem": p, "threads_per_block": t, "chunk": c, "pairs_per_second": r, "valid": v}
                for p, t, c, r, v in (("mri-q", "128", "256", "5", "true"), ("mri-q", "128", "256", "7", "true"),
                                      ("mri-q", "128", "256", "9", "true"),  # median 7
                                      ("mri-q", "256", "512", "8", "true"), ("mri-q", "256", "512", "6", "true"),
                                      ("mri-q", "256", "512", "100", "false"),  # median 7 of the valid: a tie, the first stays
                                      ("mri-fhd", "64", "128", "3", "true"), ("mri-fhd", "512", "1024", "4", "true"))]
        self.assertEqual(best_configuration(rows, "sweep.csv"), (128, 256, 512, 1024))
        with self.assertRaisesRegex(RuntimeError, "sweep.csv: no valid row of mri-fhd"):
            best_configuration([r for r in rows if r["problem"] == "mri-q"], "sweep.csv")

    def test_without_a_sweep_in_the_folder_the_job_says_what_to_record_first(self):
        study = study_class("kirk_hwu")(build=pathlib.Path("/nonexistent-build"), quick=False, devices=[], options={})
        with self.assertRaisesRegex(RuntimeError, "has no mri_tuning.csv: record mri_tuning first"):
            study.tuned_configuration()
        with tempfile.TemporaryDirectory() as tmp:
            study.results_folder = pathlib.Path(tmp) / "kirk_hwu"
            study.results_folder.mkdir()
            with self.assertRaisesRegex(RuntimeError, "has no mri_tuning.csv"):
                study.tuned_configuration()

    def test_the_tuned_runs_read_no_sweep_when_their_jobs_are_made(self):
        plan = runner.plan_study("kirk_hwu", "/nonexistent-build", only=["mri_reconstruct", "mri_tuning"])
        self.assertEqual([d["name"] for d in plan.definitions], ["mri_tuning", "mri_reconstruct"])
        [tuned] = [j for j in plan.jobs["mri_reconstruct"] if j.key == "gpu-f8"]
        self.assertIn("the best of this folder's kirk_hwu/mri_tuning.csv", tuned.commands[0])


class CommittedDefinitions(unittest.TestCase):
    def test_every_committed_definition_loads_and_makes_its_jobs(self):
        """Every definition of every declared study is checked against its kind's inputs and makes its jobs,
        without a build (the jobs that need one are listed as skipped)."""
        files = sorted((EXPERIMENTS / "definitions").glob("*/*.json"))
        self.assertGreaterEqual(len(files), 105)
        count = 0
        for study in registry.names():
            plan = runner.plan_study(study, "/nonexistent-build")
            self.assertEqual(len(plan.definitions), len(list((EXPERIMENTS / "definitions" / study).glob("*.json"))))
            for d in plan.definitions:
                self.assertTrue(plan.jobs[d["name"]], f"{study}/{d['name']}: no job")
            count += len(plan.definitions)
        self.assertEqual(count, len(files))

    def test_a_misspelt_key_in_a_copy_of_a_committed_definition_is_refused(self):
        """The committed Coulomb ladder with `min_sampels` for `min_samples` (a misspelling that the runner used
        to replace by the default silently) is refused, naming the file and the key."""
        old = runner.DEFINITIONS
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(old / "kirk_hwu", pathlib.Path(tmp) / "kirk_hwu")
            path = pathlib.Path(tmp) / "kirk_hwu" / "coulomb_ladder.json"
            d = json.loads(path.read_text())
            d["runs"][0]["min_sampels"] = d["runs"][0].pop("min_samples", 9)
            path.write_text(json.dumps(d))
            runner.DEFINITIONS = pathlib.Path(tmp)
            try:
                with self.assertRaises(SystemExit) as caught:
                    runner.plan_study("kirk_hwu", "/nonexistent-build")
            finally:
                runner.DEFINITIONS = old
        self.assertIn(f"{path}: runs[0]: unknown key 'min_sampels'", str(caught.exception))

    def test_every_job_keeps_the_values_of_the_run_it_was_made_for(self):
        """The runner makes every job of every experiment before the first one runs, so a job's function must not
        read a loop variable of the code that made it (Python binds such a name when the function runs, by which
        time the loop has moved on to the last run: `end_to_end` once timed its lean variant twice and modern-f64
        never). Each job's closure is read as the job is made and again once every job is made; a value that
        changed between the two is a name the function would read late."""
        checked = late = 0
        problems = []
        for study in registry.names():
            plan = runner.plan_study(study, "/nonexistent-build")
            for d in plan.definitions:
                made = []
                for job in plan.study.jobs(d):
                    fn = job.run
                    cells = zip(fn.__code__.co_freevars, fn.__closure__ or ()) if callable(fn) and hasattr(fn, "__code__") else ()
                    seen = []
                    for name, cell in cells:
                        try:
                            seen.append((name, cell, cell.cell_contents))
                        except ValueError:  # not yet bound when the job was made: it can only be bound later
                            seen.append((name, cell, None))
                    made.append((job.key, seen))
                for key, seen in made:
                    for name, cell, value in seen:
                        checked += 1
                        try:
                            now = cell.cell_contents
                        except ValueError:
                            now = None
                        if now is not value:
                            late += 1
                            problems.append(f"{study}/{d['name']} job {key}: '{name}' is read when the job runs")
        self.assertGreater(checked, 100, "the jobs' closures were read")
        self.assertEqual(problems, [])

    def test_every_kind_with_a_method_declares_its_inputs(self):
        for study in registry.names():
            cls = study_class(study)
            for name, kind in cls.kinds().items():
                if hasattr(cls, "kind_" + name):
                    self.assertIsNotNone(kind.run_keys, f"{study}: kind {name} declares no run_keys")

    def test_list_prints_every_job_without_a_gpu_or_a_build(self):
        with tempfile.TemporaryDirectory() as tmp:
            smi = pathlib.Path(tmp) / "nvidia-smi"
            smi.write_text("#!/bin/sh\nexit 6\n")  # a machine whose nvidia-smi finds no GPU
            smi.chmod(0o755)
            env = dict(os.environ, PATH=f"{tmp}:{os.environ.get('PATH', '')}")
            r = subprocess.run([sys.executable, str(EXPERIMENTS / "run.py"), "--list", "--build", f"{tmp}/no-build"],
                               capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        for study in registry.names():
            plan = runner.plan_study(study, "/nonexistent-build")
            for d in plan.definitions:
                self.assertIn(f"{study}/{d['name']} [{d['kind']}]: {len(plan.jobs[d['name']])} job(s)", r.stdout)
        # A command as the job runs it: ryoo's ladder at n = 4096.
        self.assertIn("ryoo bench --variants naive", r.stdout)
        self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
