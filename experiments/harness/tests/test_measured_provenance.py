"""Every new .meta.json carries the measured provenance (host name, boot id, CPU model and frequency policy, the
GPUs' UUIDs and driver, the sources' hash measured on the host and the commit's own), the runner refuses to record
where it cannot be measured, and the results check verifies a recording's expected hash against its commit."""
import json
import pathlib
import shutil
import sys
import tempfile
import types
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]
ROOT = EXPERIMENTS.parent

from tools import check_results  # noqa: E402
from experiments.harness import provenance, runner  # noqa: E402
from experiments.harness.results import ResultFolder  # noqa: E402
from experiments.harness.tests.test_bad_folders import CountingStudy  # noqa: E402

GPU = {"gpu_name": "NVIDIA H200", "driver_version": "580.1", "gpu_memory": "143771 MiB", "sm_clock_max": "1980 MHz",
       "gpu_uuid": "GPU-01234567-89ab-cdef-0123-456789abcdef"}


class MeasuredProvenance(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.build = self.tmp / "build"
        self.build.mkdir()
        (self.build / "build_info.json").write_text("{}")
        self.old = runner.DEFINITIONS
        runner.DEFINITIONS = self.tmp / "definitions"
        (runner.DEFINITIONS / "gamma").mkdir(parents=True)
        (runner.DEFINITIONS / "gamma" / "counts.json").write_text(
            json.dumps({"name": "counts", "kind": "rows", "runs": [{"keys": ["a"]}]}))
        sys.modules["experiments.studies.gamma"] = types.SimpleNamespace(Study=CountingStudy)
        CountingStudy.calls = []
        self.real = provenance.host_facts

    def tearDown(self):
        runner.DEFINITIONS = self.old
        provenance.host_facts = self.real
        del sys.modules["experiments.studies.gamma"]
        shutil.rmtree(self.tmp)

    def record(self, devices, needs_gpus=0):
        plan = runner.plan_study("gamma", self.build, devices=devices)
        for job in plan.jobs["counts"]:
            job.needs_gpus = needs_gpus
        return runner.run_plans([plan], self.tmp / "out", self.build, devices=devices)

    def test_a_new_meta_carries_the_measured_provenance(self):
        self.assertEqual(self.record([GPU], needs_gpus=1), 0)
        meta = json.loads((self.tmp / "out" / "gamma" / "counts.meta.json").read_text())
        facts = provenance.host_facts()
        for k in ("host_name", "boot_id", "cpu_model"):
            self.assertEqual(meta[k], facts[k])
        self.assertIn("cpu_frequency_policy", meta)
        self.assertEqual((meta["gpu_uuids"], meta["driver_version"]), ([GPU["gpu_uuid"]], "580.1"))
        source = provenance.source_state()
        self.assertEqual((meta["source_hash"], meta["source_hash_expected"], meta["git_dirty"]),
                         (source["source_hash"], source["source_hash_expected"], source["dirty"]))
        # The expected hash is the commit's own (worked out by the results check from git itself).
        problems, lacking = check_results.measured_provenance(ResultFolder(self.tmp / "out"), "gamma/counts.csv", meta,
                                                              CountingStudy.KINDS["rows"], {})
        self.assertEqual((problems, lacking), ([], []))

    def test_a_provenance_naming_another_commit_s_hash_is_a_problem(self):
        self.record([])
        meta_path = self.tmp / "out" / "gamma" / "counts.meta.json"
        meta = json.loads(meta_path.read_text())
        meta["source_hash_expected"] = "0" * 64
        problems, _ = check_results.measured_provenance(ResultFolder(self.tmp / "out"), "gamma/counts.csv", meta,
                                                        CountingStudy.KINDS["rows"], {})
        self.assertEqual(len(problems), 1)
        self.assertIn("is not the hash of commit", problems[0])

    def test_no_recording_where_the_provenance_cannot_be_measured(self):
        facts = self.real()
        provenance.host_facts = lambda: {k: v for k, v in facts.items() if k != "boot_id"}
        with self.assertRaisesRegex(SystemExit, "cannot be measured here: boot_id"):
            self.record([])
        provenance.host_facts = self.real
        with self.assertRaisesRegex(SystemExit, "cannot be measured here: gpu_uuid of NVIDIA H200"):
            self.record([dict(GPU, gpu_uuid="unknown")], needs_gpus=1)
        self.assertEqual(CountingStudy.calls, [], "no job ran")


if __name__ == "__main__":
    unittest.main()
