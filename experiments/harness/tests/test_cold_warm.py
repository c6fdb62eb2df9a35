"""Cold and warm runs of one configuration: the definitions make one job per cache state (a cold one with
--cold), the results check accepts a file holding both and refuses an unknown state, and the comparison keeps
the two states apart (a folder against itself agrees; against a recording made before the `cache` column
existed, whose samples were warm, its warm rows are matched; a change of the cold rows alone is caught)."""
import csv
import json
import pathlib
import shutil
import tempfile
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]
ROOT = EXPERIMENTS.parent
H200 = EXPERIMENTS / "results" / "nvidia-h200"
REL = "munch/convolution_gpu.csv"
from experiments import compare
from experiments.harness import runner, study
from experiments.harness.runner import JobFailed
from tools import check_results


def one_file_folder(dest, cold_factor=None, warm_factor=1.0):
    """A results folder holding the committed H200 convolution_gpu.csv alone. With @p cold_factor: its rows
    marked warm (kernel_ms times @p warm_factor) and each repeated as a cold row with kernel_ms times
    @p cold_factor, as a run with "cache": ["warm", "cold"] writes them."""
    (dest / "munch").mkdir(parents=True)
    manifest = json.loads((H200 / "manifest.json").read_text())
    # The rows written below are the test's, not the runner's: the entry is one of the earlier format, without
    # the SHA-256 and row count that would refuse them as edited (the line checks are what is exercised).
    entry = {k: v for k, v in manifest["files"][REL].items() if k not in ("sha256", "rows", "parts")}
    manifest["files"] = {REL: entry}
    manifest["experiments"] = {"munch/convolution_gpu": manifest["experiments"]["munch/convolution_gpu"]}
    (dest / "manifest.json").write_text(json.dumps(manifest))
    shutil.copy(H200 / "munch" / "convolution_gpu.meta.json", dest / "munch")
    with (H200 / REL).open(newline="") as f:
        reader = csv.DictReader(f)
        fields, rows = list(reader.fieldnames), list(reader)
    if cold_factor is not None:
        fields += [] if "cache" in fields else ["cache"]
        warm = [dict(r, cache="warm", kernel_ms=repr(float(r["kernel_ms"]) * warm_factor)) for r in rows]
        cold = [dict(r, cache="cold", kernel_ms=repr(float(r["kernel_ms"]) * cold_factor)) for r in rows]
        rows = warm + cold
    with (dest / REL).open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return dest


def verdict(new, ref):
    return {rel: (v, d) for rel, v, d in compare.compare(new, ref)}[REL]


class ColdWarm(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_a_cold_and_warm_file_passes_the_check_and_agrees_with_itself(self):
        both = one_file_folder(self.tmp / "both", cold_factor=2.0)
        errors, count = check_results.check_folder(both)
        self.assertEqual((errors, count), ([], 1))
        # Against itself it never differs (its noisiest configurations are too noisy to judge).
        self.assertIn(verdict(both, both)[0], ("agrees", "too noisy to judge"))

    def test_the_warm_rows_match_a_recording_from_before_the_cache_column(self):
        # Were the states not apart, the cold rows (twice as long) would move every median by half.
        old = one_file_folder(self.tmp / "old")
        both = one_file_folder(self.tmp / "both", cold_factor=2.0)
        v, detail = verdict(both, old)
        self.assertIn(v, ("agrees", "too noisy to judge"), detail)
        self.assertIn("median change +0.0%", detail)

    def test_a_change_of_the_cold_rows_alone_is_caught(self):
        both = one_file_folder(self.tmp / "both", cold_factor=2.0)
        slower = one_file_folder(self.tmp / "slower", cold_factor=2.0 * 1.5)
        v, detail = verdict(slower, both)
        self.assertNotEqual(v, "agrees", detail)
        self.assertIn("cold", detail)

    def test_an_unknown_cache_state_is_refused_by_the_check(self):
        both = one_file_folder(self.tmp / "both", cold_factor=1.0)
        with (both / REL).open(newline="") as f:
            reader = csv.DictReader(f)
            fields, rows = reader.fieldnames, list(reader)
        cold = next(i for i, r in enumerate(rows) if r["cache"] == "cold")
        rows[cold]["cache"] = "hot"
        with (both / REL).open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        errors, _ = check_results.check_folder(both)
        self.assertEqual(len(errors), 1, errors)
        self.assertIn(f":{cold + 2}: column cache: 'hot', expected cold or warm", errors[0])

    def test_a_run_names_its_cache_states(self):
        self.assertEqual(study.cache_states({}), [("warm", [])])
        self.assertEqual(study.cache_states({"cache": "cold"}), [("cold", ["--cold"])])
        self.assertEqual(study.cache_states({"cache": ["warm", "cold"]}), [("warm", []), ("cold", ["--cold"])])
        for bad in ("hot", [], ["cold", "cold"], 1):
            with self.assertRaisesRegex(JobFailed, "run key 'cache'"):
                study.cache_states({"cache": bad})

    def test_every_cold_warm_definition_times_both_states(self):
        import importlib
        found = 0
        for path in sorted((EXPERIMENTS / "definitions").glob("*/*cold_warm.json")):
            cls = importlib.import_module(f"experiments.studies.{path.parent.name}").Study
            d = runner.check_definition(path, json.loads(path.read_text()), cls.kinds())  # as the runner reads it
            jobs = list(cls(pathlib.Path("build"), False, [0], {}).jobs(d))
            commands = [c for j in jobs for c in j.commands]
            with self.subTest(definition=path.name):
                cold = [c for c in commands if c.split()[-1] == "--cold" or " --cold " in c + " "]
                self.assertTrue(cold and len(cold) * 2 == len(commands), commands)
                found += 1
        self.assertGreaterEqual(found, 4)


if __name__ == "__main__":
    unittest.main()
