"""What the device reports about itself goes into the provenance: the attributes, and the bandwidth they give; the
sources measured from their files against their commit; the host facts every recording carries."""
import json
import pathlib
import sys
import unittest

from experiments.harness import provenance

# An H100 SXM (80 GB HBM3) as cudaDeviceGetAttribute reports it.
H100 = {75: 9, 76: 0, 16: 132, 13: 1980000, 36: 2619000, 37: 5120, 38: 52428800}


class FakeRuntime:
    def __init__(self, answers, fail=False):
        self.answers, self.fail = answers, fail

    def cudaDeviceGetAttribute(self, value, attribute, device):
        if self.fail or device != 0:
            return 100  # cudaErrorNoDevice
        value._obj.value = self.answers[attribute]
        return 0


class DeviceFacts(unittest.TestCase):
    def test_the_runtime_s_attributes_and_the_bandwidth_they_give(self):
        f = provenance.device_facts(0, lib=FakeRuntime(H100))
        self.assertEqual(f["compute_capability"], "9.0")
        self.assertEqual((f["sm_count"], f["sm_clock_max_khz"], f["l2_cache_bytes"]), (132, 1980000, 52428800))
        # 2 transfers per clock x 2619 MHz x 5120 bits / 8: the vendor's 3.35 TB/s for this board.
        self.assertAlmostEqual(f["memory_bandwidth_gb_s"], 3352.3, places=1)
        self.assertIn("cudaDeviceGetAttribute", f["device_facts_source"])

    def test_without_an_answer_nvidia_smi_s_compute_capability_and_no_bandwidth(self):
        smi = {"smi_compute_cap": "8.0", "smi_memory_clock_max": "1593 MHz"}
        f = provenance.device_facts(0, smi, lib=FakeRuntime(H100, fail=True))
        self.assertEqual(f["compute_capability"], "8.0")
        self.assertEqual(f["memory_clock_khz"], 1593000)
        self.assertNotIn("memory_bandwidth_gb_s", f)
        self.assertNotIn("l2_cache_bytes", f)
        self.assertIn("nvidia-smi", f["device_facts_source"])
        self.assertEqual(provenance.device_facts(0, {}, lib=FakeRuntime(H100, fail=True)), {})


if __name__ == "__main__":
    unittest.main()


class SourceState(unittest.TestCase):
    """The sources' state is measured from the files: git's blob ids of the files on disk against the commit's
    (from git, or from the source manifest of a copy without .git); a state file is not read."""

    def setUp(self):
        import subprocess
        import tempfile
        self.sp = subprocess
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = pathlib.Path(self.tmp.name) / "repo"
        for rel, text in (("src/a.cpp", "int a;\n"), ("data/d.txt", "1 2 3\n"),
                          ("experiments/results/h/r.csv", "x\n1\n")):
            (self.repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.repo / rel).write_text(text)
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "-m", "one")
        provenance._SOURCE_STATE.clear()

    def tearDown(self):
        provenance._SOURCE_STATE.clear()
        self.tmp.cleanup()

    def git(self, *args, cwd=None):
        return self.sp.run(["git", "-C", str(cwd or self.repo), *args], check=True, capture_output=True,
                           text=True).stdout.strip()

    def test_a_clean_checkout_and_git_s_own_blob_ids(self):
        s = provenance.source_state(self.repo)
        self.assertEqual(s["commit"], self.git("rev-parse", "HEAD"))
        self.assertFalse(s["dirty"])
        self.assertEqual(s["source_files"], 2, "the results are not sources")
        self.assertEqual(s["source_hash"], s["source_hash_expected"])
        for rel in ("src/a.cpp", "data/d.txt"):  # the blob id computed here is git's (git hash-object)
            self.assertEqual(provenance.blob_id(self.repo / rel), self.git("hash-object", rel))

    def test_an_edited_or_missing_file_is_dirty_a_new_result_is_not(self):
        (self.repo / "experiments/results/h/r.csv").write_text("x\n2\n")
        self.assertFalse(provenance.source_state(self.repo)["dirty"])
        provenance._SOURCE_STATE.clear()
        (self.repo / "src/a.cpp").write_text("int a = 1;\n")
        (self.repo / "data/d.txt").unlink()
        s = provenance.source_state(self.repo)
        self.assertTrue(s["dirty"])
        self.assertEqual(s["source_mismatches"], ["data/d.txt", "src/a.cpp"])
        self.assertNotEqual(s["source_hash"], s["source_hash_expected"])

    def test_a_copy_without_git_checks_its_files_against_the_source_manifest(self):
        import io
        import os
        import tarfile
        from tools import source_manifest
        copy = pathlib.Path(self.tmp.name) / "copy"
        archive = self.sp.run(["git", "-C", str(self.repo), "archive", "HEAD"], check=True, capture_output=True).stdout
        tarfile.open(fileobj=io.BytesIO(archive)).extractall(copy)
        # Without a manifest: no commit can be checked.
        s = provenance.source_state(copy)
        self.assertEqual((s["commit"], s["dirty"], s["source_hash"]), ("unknown", True, "unknown"))
        provenance._SOURCE_STATE.clear()
        m = source_manifest.manifest("HEAD", self.repo)
        (copy / provenance.SOURCE_MANIFEST).write_text(json.dumps(m))
        s = provenance.source_state(copy)
        self.assertEqual((s["commit"], s["dirty"], s["source_expected_from"]),
                         (self.git("rev-parse", "HEAD"), False, provenance.SOURCE_MANIFEST))
        self.assertEqual(s["source_hash_expected"], m["source_hash_expected"])
        # An edited file is dirty, whatever a hand-written state file says.
        provenance._SOURCE_STATE.clear()
        (copy / "src/a.cpp").write_text("int b;\n")
        state = pathlib.Path(self.tmp.name) / "git_state"
        state.write_text(f"git_commit={m['commit']} git_dirty=false")
        os.environ["MWSEP_GIT_STATE"] = str(state)
        try:
            s = provenance.source_state(copy)
        finally:
            del os.environ["MWSEP_GIT_STATE"]
        self.assertTrue(s["dirty"])
        self.assertEqual(s["source_mismatches"], ["src/a.cpp"])

    def test_a_copy_over_an_older_git_checkout_is_measured_against_its_manifest(self):
        """A working tree copied over an older checkout (its .git at the older commit): the files are the manifest's
        commit's, so that commit is recorded, clean; a file edited after the manifest leaves git's verdict."""
        from tools import source_manifest
        old = self.git("rev-parse", "HEAD")
        (self.repo / "src/a.cpp").write_text("int a = 2;\n")
        self.git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "-am", "two")
        new = self.git("rev-parse", "HEAD")
        m = source_manifest.manifest("HEAD", self.repo)
        self.git("reset", "-q", "--soft", old)  # .git back at the older commit, the files still the newer one's
        (self.repo / provenance.SOURCE_MANIFEST).write_text(json.dumps(m))
        s = provenance.source_state(self.repo)
        self.assertEqual((s["commit"], s["dirty"], s["source_expected_from"]), (new, False, provenance.SOURCE_MANIFEST))
        provenance._SOURCE_STATE.clear()
        (self.repo / "src/a.cpp").write_text("int a = 3;\n")
        s = provenance.source_state(self.repo)
        self.assertEqual((s["commit"], s["dirty"], s["source_expected_from"]), (old, True, "git"))


class HostFacts(unittest.TestCase):
    def test_every_field_a_recording_carries(self):
        facts = provenance.host_facts()
        for k in ("host_name", "boot_id", "cpu_model", "cpu_frequency_policy"):
            self.assertTrue(facts.get(k), k)
        self.assertEqual(set(facts["cpu_id"]), {"vendor", "family", "model", "stepping", "microcode"})
