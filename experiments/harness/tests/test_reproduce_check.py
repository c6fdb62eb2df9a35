"""The reviewer's kit (experiments/reproduce_check.py) without a GPU: its declaration is checked, a dry run
lists every declared claim with the estimate, a declaration naming an unknown experiment is refused, and a
run on a machine whose nvidia-smi finds no GPU stops at once with one line. How a claim is judged:
test_claim_verdicts."""
import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
KIT = ROOT / "experiments" / "reproduce_check.py"
DECLARATION = ROOT / "experiments" / "reproduce_check.json"


def kit(*args, env=None):
    return subprocess.run([sys.executable, str(KIT), *args], cwd=ROOT, capture_output=True, text=True, env=env,
                          timeout=120)


class ReproduceCheckWithoutAGpu(unittest.TestCase):
    def test_the_dry_run_lists_every_claim_and_the_estimate(self):
        r = kit("--dry-run", "--ref", "experiments/results/nvidia-h100-80gb-hbm3")
        self.assertEqual(r.returncode, 0, r.stderr)
        claims = json.loads(DECLARATION.read_text())["claims"]
        for c in claims:
            self.assertIn(f"  {c['id']}: ", r.stdout)
            self.assertIn(f"--study {c['study']} --only {','.join(c['experiments'])}", r.stdout)
        # Without PEER the peer claim is listed as not run, and the estimate leaves it out.
        runnable = [c for c in claims if c.get("needs") != "peer"]
        self.assertIn(f"{len(runnable)} of {len(claims)} claims to run", r.stdout)
        self.assertIn("needs --peer", r.stdout)

    def test_every_deciding_file_exists_in_the_committed_h100_folder(self):
        # The folder the kit compares with on an H100 holds every file that decides a claim.
        files = set(json.loads((ROOT / "experiments/results/nvidia-h100-80gb-hbm3/manifest.json").read_text())["files"])
        for c in json.loads(DECLARATION.read_text())["claims"]:
            for f in c["decided_by"]:
                self.assertIn(f, files, f"claim {c['id']}")

    def _declaration_with(self, change):
        data = json.loads(DECLARATION.read_text())
        change(data["claims"][0])
        tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(data, tmp)
        tmp.close()
        self.addCleanup(os.unlink, tmp.name)
        return tmp.name

    def test_an_unknown_experiment_is_refused(self):
        path = self._declaration_with(lambda c: c["experiments"].append("no_such_experiment"))
        r = kit("--dry-run", "--declaration", path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown experiment(s) no_such_experiment", r.stderr)

    def test_a_deciding_file_of_another_study_is_refused(self):
        path = self._declaration_with(lambda c: c.update(decided_by=["ryoo/ladder.csv"]))
        r = kit("--dry-run", "--declaration", path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("decided_by", r.stderr)

    def test_a_claim_without_its_judged_claims_is_refused(self):
        path = self._declaration_with(lambda c: c.pop("judged_by"))
        r = kit("--dry-run", "--declaration", path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("give judged_by", r.stderr)
        path = self._declaration_with(lambda c: c["judged_by"][0].pop("part"))
        r = kit("--dry-run", "--declaration", path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("each judged_by entry has the keys document, part, row", r.stderr)

    def test_the_help_states_the_exit_status(self):
        r = kit("--help")
        self.assertEqual(r.returncode, 0)
        for words in ("0 when every claim's verdict here is the reference folder's",
                      "1 when a claim holds in one and does not hold in the other",
                      "2 for a bad declaration, option or folder"):
            self.assertIn(words, " ".join(r.stdout.split()))
        self.assertEqual(kit("--no-such-option").returncode, 2)

    def test_an_unknown_claim_is_refused(self):
        r = kit("--dry-run", "--claims", "no-such-claim")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown claim(s) no-such-claim", r.stderr)

    def test_without_a_gpu_it_refuses_before_any_work(self):
        with tempfile.TemporaryDirectory() as tmp:
            smi = pathlib.Path(tmp) / "nvidia-smi"
            smi.write_text("#!/bin/sh\necho 'No devices were found' >&2\nexit 6\n")
            smi.chmod(0o755)
            env = dict(os.environ, PATH=f"{tmp}:{os.environ.get('PATH', '')}")
            out = pathlib.Path(tmp) / "out"
            r = kit("--out", str(out), env=env)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("no NVIDIA GPU", r.stderr)
        self.assertFalse(out.exists(), "nothing is written before the refusal")

    def test_a_kit_folder_begun_on_another_host_is_not_resumed(self):
        """A kit folder whose claims ran on another host (or whose state predates the host record) is refused
        before any claim runs, on a machine with a GPU (a stand-in nvidia-smi) and a configured build."""
        here = socket.gethostname()
        for kept in ({"rc": 0, "seconds": 3.0, "origin": {"hostname": f"not-{here}", "boot_id": "b", "commit": "c",
                                                           "dirty": False}},
                     {"rc": 0, "seconds": 3.0}):
            with tempfile.TemporaryDirectory() as tmp:
                tmp = pathlib.Path(tmp)
                smi = tmp / "bin" / "nvidia-smi"
                smi.parent.mkdir()
                smi.write_text("#!/bin/sh\necho 'NVIDIA H100 80GB HBM3, 580.1, 81559 MiB, 1980 MHz, 00000000:00:06.0'\n")
                smi.chmod(0o755)
                build = tmp / "build"
                build.mkdir()
                (build / "build_info.json").write_text("{}")
                out = tmp / "out"
                out.mkdir()
                (out / "manifest.json").write_text('{"files": {}, "experiments": {}}')
                (out / "reproduce_check.json").write_text(json.dumps({"claims_state": {"mwsep-precision": kept}}))
                env = dict(os.environ, PATH=f"{smi.parent}:{os.environ.get('PATH', '')}")
                r = kit("--out", str(out), "--build", str(build), "--ref", "experiments/results/nvidia-h100-80gb-hbm3",
                        env=env)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn("claim(s) mwsep-precision ran ", r.stderr)
                self.assertIn(f"on host not-{here}" if "origin" in kept else "did not record where", r.stderr)
                self.assertFalse((out / "reproduce_check.log").exists(), "no claim ran")


if __name__ == "__main__":
    unittest.main()
