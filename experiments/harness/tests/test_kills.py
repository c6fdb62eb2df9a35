"""Kill anything, lose nothing: the runner, the reviewer's kit and the comparison, each killed with SIGKILL (its
whole process group, as a power cut would) at 30 random moments, seeded and so reproducible, on the toy study of
a temporary copy of the tree (CPU only; the kit sees a GPU through a stand-in nvidia-smi). After every kill:
every file under a final name is whole, the manifest says exactly which jobs are done (each table holds the rows
of the jobs it records as done, and no other), and nothing reads a file the manifest does not list as complete.
After the kills, a resume finishes the work with the same results as an uninterrupted run (timings aside). A
read-only folder and a full disk (a file-size limit, RLIMIT_FSIZE, in the child) give a clear error and leave
the old files as they were.

Each program is one test of the class, the same three parts each: its command line into a folder, the check after
every kill, and what its finished folder must equal (kills() drives them). The report build is to be one more
such test once it has a fixed entry point that writes into a folder of its own (its check: the generated files
either the earlier ones or whole new ones, and no file of an incomplete experiment read)."""
import csv
import importlib.util
import io
import json
import os
import pathlib
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]
ROOT = EXPERIMENTS.parent
TOY = pathlib.Path(__file__).resolve().parent / "toy_study"

from experiments import compare  # noqa: E402
from experiments.harness.results import IncompleteFile, NotAResultFolder, ResultFolder, read_manifest, sha256  # noqa: E402

KILLS = 30
SEED = 20261201
# The stand-in for a host with one GPU: nvidia-smi answers its queries with one H100 line.
SMI = """#!/bin/sh
case "$*" in
  *uuid*) echo "GPU-00000000-1111-2222-3333-444444444444" ;;
  *) echo "NVIDIA H100 80GB HBM3, 580.1, 81559 MiB, 1980 MHz, 00000000:00:06.0" ;;
esac
"""
IGNORE = shutil.ignore_patterns("results", "records", "__pycache__", "device", "peer", "toy_study")


def whole(path):
    """Why @p path is not whole ("" when it is): a CSV's lines all with the header's fields and ending; JSON
    that parses; a text that ends with a newline."""
    text = path.read_text(errors="replace")
    if path.suffix == ".json":
        try:
            json.loads(text)
        except ValueError as e:
            return f"not JSON: {e}"
        return ""
    if text and not text.endswith("\n"):
        return "its last line does not end"
    if path.suffix == ".csv":
        rows = list(csv.reader(io.StringIO(text)))
        if rows and any(len(r) != len(rows[0]) for r in rows):
            return "a line with another number of fields than the header"
    return ""


def folder_invariants(test, out):
    """What must hold in a results folder after any kill of a program writing it."""
    for path in out.rglob("*"):
        if path.is_file() and not path.name.startswith("."):
            test.assertEqual(whole(path), "", f"{path} is not whole")
    if not (out / "manifest.json").exists():
        return
    m = read_manifest(out / "manifest.json")
    pending = m.get("pending")
    pending_files = pending["files"] if pending else {}
    for rel, entry in m["files"].items():
        path = out / rel
        test.assertTrue(path.exists(), f"{rel} is listed but missing")
        # Under its final name a file is the version the manifest records, or, during a commit the manifest
        # records as pending, the committed one.
        versions = {entry.get("sha256")} | ({pending_files[rel][2]["sha256"]} if rel in pending_files else set())
        test.assertIn(sha256(path), versions, f"{rel}: neither the recorded nor the pending version")
    for rel, (kind, commit, facts) in pending_files.items():
        if rel not in m["files"]:
            path = out / rel
            test.assertTrue(not path.exists() or sha256(path) == facts["sha256"], f"{rel}: a stray version")
    if pending:
        with test.assertRaisesRegex(NotAResultFolder, "stopped while it committed"):
            ResultFolder(out)  # nothing reads a folder with a commit half done
        return
    for rel, entry in m["files"].items():
        jobs = m["experiments"][entry["experiment"]]["jobs"]
        parts = entry.get("parts", [])
        test.assertEqual(sum(n for _, n in parts), entry.get("rows"), f"{rel}: rows and parts disagree")
        for key, _ in parts:
            test.assertEqual(jobs.get(key), "done", f"{rel} holds rows of job {key}, which is {jobs.get(key)}")
        done = [k for k, s in jobs.items() if s == "done"]
        test.assertEqual(sorted(k for k, _ in parts), sorted(done), f"{rel}: the jobs done and the rows held differ")
    folder = ResultFolder(out)
    for rel in folder.files:
        if folder.complete(rel):
            folder.rows(rel)
        else:
            with test.assertRaises(IncompleteFile):
                folder.rows(rel)


def without_timings(out):
    """A results folder's content that does not depend on time: each table without its timing column and the
    manifest's job statuses; the stand-in for "the same results"."""
    m = read_manifest(out / "manifest.json")
    content = {"jobs": {e: x["jobs"] for e, x in m["experiments"].items()},
               "files": sorted(m["files"])}
    for rel in m["files"]:
        with (out / rel).open(newline="") as f:
            content[rel] = [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(f)]
    return content


class KillAnything(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = pathlib.Path(tempfile.mkdtemp())
        cls.root = cls.tmp / "tree"
        shutil.copytree(EXPERIMENTS, cls.root / "experiments", ignore=IGNORE)
        shutil.copytree(TOY / "experiments", cls.root / "experiments", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
        decl = cls.root / "experiments" / "studies.json"
        data = json.loads(decl.read_text())
        data["studies"].append(json.loads((TOY / "entry.json").read_text()))
        decl.write_text(json.dumps(data))
        # Two experiments of several jobs each, so that kills land between jobs, inside jobs and in commits.
        defs = cls.root / "experiments" / "definitions" / "toy"
        for name, ns in (("sums", [10, 20]), ("more_sums", [30, 40])):
            (defs / f"{name}.json").write_text(json.dumps({"name": name, "kind": "sums",
                                                           "runs": [{"n": ns, "repeats": 3}]}))
        cls.build = cls.tmp / "build"
        cls.build.mkdir()
        shutil.copy(TOY / "build" / "toy_sum.py", cls.build)
        (cls.build / "build_info.json").write_text('{"build_type": "toy"}')
        (cls.tmp / "bin").mkdir()
        (cls.tmp / "bin" / "nvidia-smi").write_text(SMI)
        (cls.tmp / "bin" / "nvidia-smi").chmod(0o755)
        cls.env = dict(os.environ, PATH=f"{cls.tmp / 'bin'}:{os.environ.get('PATH', '')}", HARNESS_COMMIT_PAUSE="0.02",
                       PYTHONDONTWRITEBYTECODE="1")
        cls.env.pop("MWSEP_GIT_STATE", None)
        subprocess.run([sys.executable, str(ROOT / "tools" / "source_manifest.py"), "--out",
                        str(cls.root / ".source-manifest.json")], check=True, capture_output=True)
        # The toy study's module for the checks made here (the results layer reads its kinds).
        spec = importlib.util.spec_from_file_location("experiments.studies.toy", TOY / "experiments" / "studies" / "toy.py")
        cls.toy_module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cls.toy_module)
        sys.modules["experiments.studies.toy"] = cls.toy_module
        cls.declaration = cls.tmp / "claims.json"
        cls.declaration.write_text(json.dumps({"claims": [
            {"id": f"toy-{name}", "study": "toy", "claim": "sums", "source": "toy", "experiments": [name],
             "states": "sums", "not_judged": "the toy study has no report",
             "decided_by": [f"toy/{name}.csv"], "estimate_s": 5} for name in ("sums", "more_sums")]}))

    @classmethod
    def tearDownClass(cls):
        sys.modules.pop("experiments.studies.toy", None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # ---- the programs -------------------------------------------------------------------------------------
    def runner_argv(self, out):
        return [sys.executable, str(self.root / "experiments" / "run.py"), "--study", "toy", "--build", str(self.build),
                "--out", str(out)]

    def kit_argv(self, out, ref):
        return [sys.executable, str(self.root / "experiments" / "reproduce_check.py"), "--declaration",
                str(self.declaration), "--build", str(self.build), "--ref", str(ref), "--out", str(out)]

    def compare_argv(self, new, ref, out):
        return [sys.executable, str(self.root / "experiments" / "compare.py"), str(new), str(ref), "--out-dir", str(out)]

    def call(self, argv, check=True, **kw):
        r = subprocess.run(argv, cwd=self.root, env=self.env, capture_output=True, text=True, timeout=300, **kw)
        if check:
            self.assertIn(r.returncode, (0, 1), r.stdout[-2000:] + r.stderr[-2000:])
        return r

    def kill_at(self, argv, seconds):
        """Starts @p argv in its own process group and kills the whole group with SIGKILL after @p seconds (or
        lets it end first); returns whether it was killed and the seconds it ran."""
        t0 = time.monotonic()
        p = subprocess.Popen(argv, cwd=self.root, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        try:
            p.wait(timeout=seconds)
            return False, time.monotonic() - t0
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return True, time.monotonic() - t0

    def uninterrupted(self, argv):
        t0 = time.monotonic()
        self.call(argv)
        return time.monotonic() - t0

    def kills(self, name, argv, duration, check, finished, out):
        """Runs @p argv again and again, each run killed at a moment drawn (seeded) over @p duration, until KILLS
        kills have landed, @p check after each. A run that ends before its kill has finished the work of the runs
        killed before it: @p finished checks it against the uninterrupted run, and the next run starts in an
        empty folder. A run that started in an empty folder and ended before its kill took the whole work's time
        under the machine's present load: the moments drawn after it are drawn over that time instead (the
        uninterrupted run may have been timed under another load, which would put most kills after the end).
        Returns (kills that landed, finished runs)."""
        rng = random.Random(f"{SEED}-{name}")
        killed = finishes = 0
        for attempt in range(3 * KILLS):
            fresh = not out.exists() or not any(out.iterdir())
            landed, seconds = self.kill_at(argv, rng.uniform(0.05, duration))
            if fresh and not landed:
                duration = max(seconds, 0.1)
            killed += landed
            with self.subTest(target=name, attempt=attempt):
                check()
                if not landed:
                    finished()
                    finishes += 1
                    shutil.rmtree(out, ignore_errors=True)
            if killed == KILLS:
                break
        return killed, finishes

    # ---- the runner ---------------------------------------------------------------------------------------
    def test_the_runner(self):
        ref = self.tmp / "runner-ref"
        duration = self.uninterrupted(self.runner_argv(ref))
        out = self.tmp / "runner-killed"

        def finished():
            folder_invariants(self, out)
            self.assertEqual(without_timings(out), without_timings(ref))
            verdicts = {rel: v for rel, v, _ in compare.compare(out, ref)}
            self.assertEqual(verdicts, {"toy/sums.csv": "agrees", "toy/more_sums.csv": "agrees"})
        killed, _ = self.kills("runner", self.runner_argv(out), duration, lambda: folder_invariants(self, out),
                               finished, out)
        self.assertEqual(killed, KILLS)
        self.call(self.runner_argv(out))  # the last resume finishes the work
        finished()

    # ---- the kit ------------------------------------------------------------------------------------------
    def test_the_kit(self):
        ref = self.tmp / "kit-ref-results"
        self.call(self.runner_argv(ref))
        first = self.tmp / "kit-first"
        duration = self.uninterrupted(self.kit_argv(first, ref))
        expected = json.loads((first / "reproduce_check.json").read_text())
        self.assertEqual([(c["verdict"], c["repeatability"]) for c in expected["claims"]],
                         [("not testable here", "repeated")] * 2, expected)
        out = self.tmp / "kit-killed"

        def check():
            for path in out.rglob("*"):
                if path.is_file() and not path.name.startswith("."):
                    self.assertEqual(whole(path), "", f"{path} is not whole")
            if (out / "results").exists():
                folder_invariants(self, out / "results")
            state = json.loads((out / "reproduce_check.json").read_text())["claims_state"] \
                if (out / "reproduce_check.json").exists() else {}
            # A claim the kit keeps as run has its experiment recorded whole in the results folder (unless a later
            # claim's runner was stopped in a commit, which the next run finishes; until then nothing reads it).
            pending = (out / "results" / "manifest.json").exists() and \
                read_manifest(out / "results" / "manifest.json").get("pending")
            if any("rc" in s for s in state.values()) and not pending:
                folder = ResultFolder(out / "results")
                for cid, s in state.items():
                    if "rc" in s:
                        self.assertTrue(folder.complete(f"toy/{cid[len('toy-'):]}.csv"), cid)

        def finished():
            record = json.loads((out / "reproduce_check.json").read_text())
            self.assertEqual([(c["id"], c["verdict"], c["repeatability"]) for c in record["claims"]],
                             [(c["id"], c["verdict"], c["repeatability"]) for c in expected["claims"]])
            self.assertEqual(without_timings(out / "results"), without_timings(first / "results"))
            self.assertEqual((out / "compare.json").read_text().replace(str(out), "OUT"),
                             (first / "compare.json").read_text().replace(str(first), "OUT"))
        killed, _ = self.kills("kit", self.kit_argv(out, ref), duration, check, finished, out)
        self.assertEqual(killed, KILLS)
        self.call(self.kit_argv(out, ref))
        check()
        finished()

    # ---- the comparison -----------------------------------------------------------------------------------
    def test_the_comparison(self):
        new, ref = self.tmp / "cmp-new", self.tmp / "cmp-ref"
        self.call(self.runner_argv(new))
        self.call(self.runner_argv(ref))
        first = self.tmp / "cmp-first"
        duration = self.uninterrupted(self.compare_argv(new, ref, first))
        expected = {name: (first / name).read_bytes() for name in ("compare.md", "compare.json")}
        out = self.tmp / "cmp-killed"

        def check():
            for name, data in expected.items():
                path = out / name
                self.assertTrue(not path.exists() or path.read_bytes() == data, f"{name}: a part of the report")
            for path in (out.iterdir() if out.exists() else []):
                self.assertIn(path.name, list(expected) + [f".{n}.partial" for n in expected])
            shutil.rmtree(out, ignore_errors=True)  # each kill starts without a report

        def finished():
            pass  # check() has compared the finished report with the uninterrupted one and removed it
        killed, _ = self.kills("compare", self.compare_argv(new, ref, out), duration, check, finished, out)
        self.assertEqual(killed, KILLS)
        self.call(self.compare_argv(new, ref, out))
        self.assertEqual({n: (out / n).read_bytes() for n in expected}, expected)

    # ---- read-only folders and full disks -----------------------------------------------------------------
    def unprivileged(self, tree):
        """(interpreter, preexec function) with which a child cannot write where a folder's permissions forbid
        it: as root (who may write anywhere), the child drops to the user nobody, the tree becomes readable to
        all, and the interpreter is one nobody can run (None when there is none)."""
        if os.geteuid() != 0:
            return sys.executable, None
        for path in [tree, *tree.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o055 | (0o011 if path.is_dir() else 0))

        def drop():
            os.setgid(65534)
            os.setuid(65534)
        for python in dict.fromkeys([sys.executable, shutil.which("python3"), "/usr/bin/python3"]):
            try:
                if python and subprocess.run([python, "-c", "pass"], preexec_fn=drop,
                                             capture_output=True).returncode == 0:
                    return python, drop
            except OSError:  # an interpreter the user may not run
                continue
        return None, drop

    def files_of(self, folder):
        return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    def test_a_read_only_folder_gives_a_clear_error_and_keeps_its_files(self):
        out = self.tmp / "ro-runner"
        self.call(self.runner_argv(out) + ["--only", "sums"])
        kit_out = self.tmp / "ro-kit"
        ref = self.tmp / "ro-ref"
        self.call(self.runner_argv(ref))
        self.call(self.kit_argv(kit_out, ref))
        before = {**self.files_of(out), **self.files_of(kit_out)}
        python, drop = self.unprivileged(self.tmp)
        if python is None:
            self.skipTest("running as root with no Python interpreter an unprivileged user may run: a read-only "
                          "folder cannot be made here")
        for folder in [out, *out.rglob("*"), kit_out, *kit_out.rglob("*")]:
            if folder.is_dir():
                folder.chmod(0o555)
        try:
            for name, argv, folder in (("run", self.runner_argv(out), out),      # more_sums still to record
                                       ("reproduce-check", self.kit_argv(kit_out, ref), kit_out),
                                       ("compare", self.compare_argv(out, ref, out.parent / "ro-report"), None)):
                with self.subTest(program=name):
                    if folder is None:
                        (out.parent / "ro-report").mkdir(mode=0o555)
                    r = subprocess.run([python] + argv[1:], cwd=self.root, env=self.env, capture_output=True,
                                       text=True, preexec_fn=drop, timeout=300)
                    self.assertNotEqual(r.returncode, 0, r.stdout[-1000:])
                    self.assertIn(f"{name}: ", r.stderr)
                    self.assertIn("cannot write", r.stderr)
                    self.assertNotIn("Traceback", r.stderr)
        finally:
            for folder in [out, *out.rglob("*"), kit_out, *kit_out.rglob("*"), out.parent / "ro-report"]:
                if folder.is_dir():
                    folder.chmod(0o755)
        self.assertEqual({**self.files_of(out), **self.files_of(kit_out)}, before, "every file as it was")

    def test_a_full_disk_gives_a_clear_error_and_keeps_the_old_files(self):
        """A file-size limit below the size the runner's next table would reach (the earlier rows and the new
        job's), above the new job's own part and the manifest: the commit cannot be written."""
        out = self.tmp / "full"
        defs = self.root / "experiments" / "definitions" / "toy"
        many = defs / "many_sums.json"
        many.write_text(json.dumps({"name": "many_sums", "kind": "sums", "runs": [{"n": list(range(1, 41)),
                                                                                   "repeats": 20}]}))
        try:
            self.call(self.runner_argv(out) + ["--only", "many_sums"])
            table = (out / "toy" / "many_sums.csv").stat().st_size
            manifest = (out / "manifest.json").stat().st_size
            limit = max(2 * manifest, 4096)
            self.assertLess(limit, table, "the table outgrows the limit")
            many.write_text(json.dumps({"name": "many_sums", "kind": "sums", "runs": [{"n": list(range(1, 42)),
                                                                                       "repeats": 20}]}))
            before = self.files_of(out)

            def limited():
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
            r = subprocess.run(self.runner_argv(out) + ["--only", "many_sums"], cwd=self.root, env=self.env,
                               capture_output=True, text=True, preexec_fn=limited, timeout=300)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("run: cannot write", r.stderr)
            self.assertIn("File too large", r.stderr)
            self.assertNotIn("Traceback", r.stderr)
            after = self.files_of(out)
            for path, data in before.items():
                if path.name != "manifest.json":
                    self.assertEqual(after.get(path), data, f"{path} changed")
            folder_invariants(self, out)
            # The comparison under the same limit: a report that does not fit is not half written.
            report = self.tmp / "full-report"
            r = subprocess.run(self.compare_argv(out, out, report), cwd=self.root, env=self.env, capture_output=True,
                               text=True, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (256, 256)),
                               timeout=300)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("compare: cannot write", r.stderr)
            self.assertFalse((report / "compare.md").exists() and whole(report / "compare.md"))
            self.assertEqual([p.name for p in report.iterdir()] if report.exists() else [], [])
        finally:
            many.unlink()


if __name__ == "__main__":
    unittest.main()
