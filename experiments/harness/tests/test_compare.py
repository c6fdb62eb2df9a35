"""experiments/compare.py on the committed results: a folder against itself agrees file by file, a planted
change is caught, an undeclared kind is "not compared", two GPUs get a verdict per file."""
import csv
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]
RESULTS = EXPERIMENTS / "results"
H200 = RESULTS / "nvidia-h200"
H100 = RESULTS / "nvidia-h100-80gb-hbm3"

from experiments import compare
from experiments.harness.results import ResultFolder, sha256


def run(new, ref, *extra):
    r = subprocess.run([sys.executable, str(EXPERIMENTS / "compare.py"), str(new), str(ref), *extra],
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def verdicts(new, ref):
    return {rel: (v, d) for rel, v, d in compare.compare(new, ref)}


def scale_column(path, column, factor, where=None):
    """Multiplies @p column of @p path by @p factor in the rows where where(row) holds (every row when None)."""
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    for r in rows:
        if where is None or where(r):
            r[column] = repr(float(r[column]) * factor)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    reseal(path)


def reseal(path):
    """A planted change stands for a recording that measured it: the folder's manifest records the file's new SHA-256
    and row count where it records them (else the results layer refuses the file as edited after the runner)."""
    manifest_path = path.parent.parent / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    entry = manifest["files"][f"{path.parent.name}/{path.name}"]
    if "sha256" in entry:
        entry["sha256"] = sha256(path)
        with path.open(newline="") as f:
            rows = sum(1 for _ in csv.DictReader(f))
        if len(entry.get("parts", [])) == 1:
            entry["parts"][0][1] = rows
        elif entry.get("rows") != rows:
            raise AssertionError(f"{path}: a planted change of the row count in a file of several jobs")
        entry["rows"] = rows
        manifest_path.write_text(json.dumps(manifest, indent=1))


class CommittedFolders(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def copy(self, folder, name=None):
        dest = self.tmp / (name or folder.name)
        shutil.copytree(folder, dest)
        return dest

    def test_a_folder_against_itself_never_differs(self):
        """Against itself no file differs; a file of a median kind may be too noisy to judge (a configuration
        whose samples are spread wider than the cap allows: never counted as agreeing), every other file agrees."""
        for folder in (H200, H100, RESULTS / "nvidia-h200-x2"):
            with self.subTest(folder=folder.name):
                code, out, err = run(folder, folder)
                self.assertEqual(code, 0, out + err)
                v = verdicts(folder, folder)
                self.assertEqual(set(v), set(ResultFolder(folder).files))
                f = ResultFolder(folder)
                for rel, (verdict, detail) in v.items():
                    allowed = ("agrees", "too noisy to judge") if f.kind(rel).compare.method == "median" else ("agrees",)
                    self.assertIn(verdict, allowed, f"{rel}: {detail}")
                self.assertNotIn("| not compared |", out)

    def test_every_kind_of_every_committed_file_is_declared_with_a_comparison(self):
        for folder in sorted(p for p in RESULTS.iterdir() if (p / "manifest.json").exists()):
            f = ResultFolder(folder)
            for rel in f.files:
                kind = f.kind(rel)
                self.assertIsNotNone(kind, f"{folder.name}/{rel}: kind {f.files[rel]['kind']} not declared")
                self.assertNotEqual(kind.compare.method, "none", f"{folder.name}/{rel}")

    def test_a_key_names_one_row_of_every_exact_correctness_or_points_kind(self):
        # Rows compared one to one (counts, listings, comparisons, profiler percentages) must each have their
        # own configuration: two rows under one key would be compared as one.
        from experiments.harness.results import read_csv
        for folder in sorted(p for p in RESULTS.iterdir() if (p / "manifest.json").exists()):
            f = ResultFolder(folder)
            for rel in f.files:
                kind = f.kind(rel)
                if kind.suffix != ".csv" or kind.compare.method not in ("exact", "correctness", "points"):
                    continue
                rows = read_csv(folder / rel)
                keys = [tuple(r.get(k, "") for k in kind.key) for r in rows]
                self.assertEqual(len(set(keys)), len(keys), f"{folder.name}/{rel}: key {kind.key} is not unique")

    def test_a_timing_ten_percent_slower_differs(self):
        new = self.copy(H200)
        # One configuration of each study's timings, 10 % slower (each with a spread well under 10 / 3 %).
        planted = {
            "mwsep/memory_spaces.csv": ("kernel_ms", lambda r: r["variant"] == "texture-fast-unrolled-f64"
                                        and r["work_unit"] == "3s-large"),
            "munch/convolution_gpu.csv": ("kernel_ms", lambda r: r["variant"] == "tiled-constant-r16"
                                          and r["signal"] == "10000000" and r["filter"] == "999999"),
            "ryoo/ladder.csv": ("kernel_ms", lambda r: r["variant"] == "naive"),
            "kirk_hwu/mri_ladder.csv": ("kernel_ms", lambda r: r["variant"] == "q-global-memacc-libm-u1-f32"),
        }
        for rel, (column, where) in planted.items():
            scale_column(new / rel, column, 1.10, where)
        code, out, _ = run(new, H200)
        self.assertEqual(code, 1, out)
        v = verdicts(new, H200)
        for rel in planted:
            self.assertEqual(v[rel][0], "differs", f"{rel}: {v[rel]}")
            self.assertIn("+10.0%", v[rel][1])
        others = {rel: x for rel, x in v.items() if rel not in planted and x[0] not in ("agrees", "too noisy to judge")}
        self.assertEqual(others, {})

    def test_a_timing_within_its_tolerance_agrees(self):
        new = self.copy(H200)
        scale_column(new / "mwsep/memory_spaces.csv", "kernel_ms", 1.01)
        v = verdicts(new, H200)
        self.assertEqual(v["mwsep/memory_spaces.csv"][0], "agrees", v["mwsep/memory_spaces.csv"])
        self.assertIn("+1.0%", v["mwsep/memory_spaces.csv"][1])

    def test_a_configuration_keyed_by_size_is_not_pooled(self):
        # kirk_hwu's ladder has one variant at two sizes: a change of one size alone must be seen.
        new = self.copy(H200)
        with (H200 / "kirk_hwu/mri_ladder.csv").open() as f:
            rows = list(csv.DictReader(f))
        sizes = {r["size"] for r in rows}
        self.assertGreater(len(sizes), 1)
        size = sorted(sizes)[0]
        scale_column(new / "kirk_hwu/mri_ladder.csv", "kernel_ms", 1.5, lambda r: r["size"] == size)
        self.assertEqual(verdicts(new, H200)["kirk_hwu/mri_ladder.csv"][0], "differs")

    def test_a_failed_comparison_a_lost_configuration_and_a_changed_count_differ(self):
        new = self.copy(H200)
        # A failed comparison: its error ratio above 1 and its failed elements counted (its pass is worked out
        # from these, not read).
        path = new / "ryoo/gpu_correctness.csv"
        text = path.read_text().splitlines()
        variant, n, checked, _, _, _ = text[1].split(",")
        text[1] = ",".join([variant, n, checked, "2.5", "3", "false"])
        path.write_text("\n".join(text) + "\n")
        reseal(path)
        sass = new / "mwsep/sass_mix.csv"
        lines = sass.read_text().splitlines()
        sass.write_text("\n".join(lines[:-1]) + "\n")  # one kernel fewer
        reseal(sass)
        skip = new / "mwsep/skipping.csv"
        scale_column(skip, "evaluated_terms", 2, lambda r: r["area"] == "0" and r["stream"] == "1")
        v = verdicts(new, H200)
        self.assertEqual(v["ryoo/gpu_correctness.csv"][0], "differs")
        self.assertIn("1 comparisons fail", v["ryoo/gpu_correctness.csv"][1])
        self.assertEqual(v["mwsep/sass_mix.csv"][0], "differs")
        self.assertEqual(v["mwsep/skipping.csv"][0], "differs")

    def test_another_gpu_model_s_sm_count_is_set_aside_and_the_change_measured(self):
        new = self.copy(H200)
        path = new / "mwsep/memory_spaces.csv"
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            fields, rows = reader.fieldnames, list(reader)
        for r in rows:
            r["sm_count"] = "108"
            r["kernel_ms"] = repr(float(r["kernel_ms"]) * 1.3)
        with path.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        reseal(path)
        verdict, detail = verdicts(new, H200)["mwsep/memory_spaces.csv"]
        self.assertEqual(verdict, "differs")
        self.assertIn("16 configurations of kernel_ms; median change +30.0%", detail)
        self.assertIn("set aside: sm_count 108 (reference 132)", detail)

    def test_an_undeclared_kind_is_not_compared_never_agrees(self):
        new = self.copy(H200)
        ref = self.copy(H200, "ref")
        for folder in (new, ref):
            m = json.loads((folder / "manifest.json").read_text())
            m["files"]["ryoo/saxpy.csv"]["kind"] = "a_kind_nobody_declared"
            (folder / "manifest.json").write_text(json.dumps(m))
        code, out, _ = run(new, ref)
        v = verdicts(new, ref)
        self.assertEqual(v["ryoo/saxpy.csv"][0], "not compared")
        self.assertIn("| ryoo/saxpy.csv | not compared |", out)
        self.assertIn("1 not compared", out)
        self.assertEqual(code, 0)

    def test_a_missing_file_and_an_experiment_not_run(self):
        new = self.copy(H200)
        m = json.loads((new / "manifest.json").read_text())
        (new / "ryoo/saxpy.csv").unlink()
        del m["files"]["ryoo/saxpy.csv"]
        del m["experiments"]["munch/roofline"]
        for rel in [r for r, e in m["files"].items() if e["experiment"] == "munch/roofline"]:
            del m["files"][rel]
        (new / "manifest.json").write_text(json.dumps(m))
        v = verdicts(new, H200)
        self.assertEqual(v["ryoo/saxpy.csv"][0], "missing")
        self.assertEqual(v["munch/roofline.csv"][0], "not re-run")
        self.assertEqual(run(new, H200)[0], 1)

    def test_an_unreadable_file_is_said_so(self):
        new = self.copy(H200)
        (new / "mwsep/fit_recovery_report_2s-small_0_1.json").write_text("{ not json")
        v = verdicts(new, H200)
        self.assertEqual(v["mwsep/fit_recovery_report_2s-small_0_1.json"][0], "unreadable")

    def test_two_gpus_get_a_verdict_per_file_with_its_size(self):
        code, out, err = run(H100, H200)
        self.assertIn(code, (0, 1), err)
        self.assertIn("different hosts", out)
        v = verdicts(H100, H200)
        self.assertEqual(set(v), set(ResultFolder(H200).files) | set(ResultFolder(H100).files))
        for rel, (verdict, detail) in v.items():
            self.assertIn(verdict, ("agrees", "differs", "too noisy to judge", "not re-run", "new"), f"{rel}: {detail}")
            if verdict in ("agrees", "differs", "too noisy to judge") and rel.endswith(".csv") and \
                    ResultFolder(H200).kind(rel).compare.method == "median":
                self.assertRegex(detail, r"median change [+-]\d+\.\d%, largest [+-]\d+\.\d%")
                self.assertRegex(detail, r"allowances (\d+\.\d% to \d+\.\d%, median \d+\.\d%|none)")

    def test_not_a_results_folder(self):
        code, _, err = run(self.tmp, H200)
        self.assertEqual(code, 2)
        self.assertIn("no manifest.json", err)


if __name__ == "__main__":
    unittest.main()
