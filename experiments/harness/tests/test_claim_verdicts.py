"""The kit's claim verdicts (experiments/claim_verdicts.py, reproduce_check.py --judge, make compare-claims) on
copies of the committed folders: a planted change that reverses a claimed ratio makes the claim "does not hold
here" (and the untouched copy "holds"), a folder missing the claim's file makes it "not testable here" naming the
file, a GPU model without a committed folder still has its claims judged, and every judged claim's verdict is the
one the report's own claims table prints for the same folder (read from the table's text, not from the records
the kit reads)."""
import csv
import io
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]  # run from the checkout's root (python3 -m unittest ...)

from experiments import claim_verdicts  # noqa: E402
from experiments.harness import registry  # noqa: E402

KIT = ROOT / "experiments" / "reproduce_check.py"
SIDE_BY_SIDE = ROOT / "experiments" / "claim_verdicts.py"
H100 = ROOT / "experiments" / "results" / "nvidia-h100-80gb-hbm3"
H200 = ROOT / "experiments" / "results" / "nvidia-h200"
COMMITTED = (H100, H200)


def run(script, *args, env=None):
    return subprocess.run([sys.executable, str(script), *args], cwd=ROOT, capture_output=True, text=True, env=env,
                          timeout=300)


def claim_line(stdout, claim_id):
    """The kit's verdict line of @p claim_id and the timings line after it."""
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if f"  {claim_id}  " in line:
            return line, lines[i + 1]
    raise AssertionError(f"no line for {claim_id} in:\n{stdout}")


def copy_folder(src, dest):
    shutil.copytree(src, dest)
    return pathlib.Path(dest)


def rewrite(folder, rel, change):
    """Rewrites the CSV @p rel of @p folder row by row (@p change(row) edits a row in place), keeping the manifest's
    record of the file (its SHA-256 and rows, where recorded) true to the new bytes."""
    path = folder / rel
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    fields = list(rows[0])
    for r in rows:
        change(r)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    path.write_text(buf.getvalue())
    manifest = json.loads((folder / "manifest.json").read_text())
    entry = manifest["files"][rel]
    if "sha256" in entry:
        from experiments.harness.results import sha256
        entry["sha256"] = sha256(path)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))


def single_slower(row):
    """Single precision ten times slower: the double-to-single time ratio falls below 1 (a reversed ratio)."""
    if row["precision"] == "f32":
        for k in ("integral_ms", "likelihood_ms", "kernel_ms", "total_ms"):
            row[k] = repr(float(row[k]) * 10)
        row["points_per_second"] = repr(float(row["points_per_second"]) / 10)


class ClaimVerdictsOnFolders(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.addClassCleanup(cls.tmp.cleanup)
        cls.root = pathlib.Path(cls.tmp.name)

    def test_a_planted_change_reverses_a_claimed_ratio(self):
        # Untouched, the copy's precision claim holds ...
        same = copy_folder(H200, self.root / "same")
        r = run(KIT, "--judge", str(same), "--claims", "mwsep-precision")
        verdict, timings = claim_line(r.stdout, "mwsep-precision")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertTrue(verdict.strip().startswith("holds"), verdict)
        self.assertIn("timings: repeated", timings)
        # ... and with single precision made ten times slower it does not, its table naming the measured ratio.
        planted = copy_folder(H200, self.root / "planted")
        rewrite(planted, "mwsep/precision.csv", single_slower)
        r = run(KIT, "--judge", str(planted), "--claims", "mwsep-precision,mwsep-memory-spaces")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        verdict, timings = claim_line(r.stdout, "mwsep-precision")
        self.assertTrue(verdict.strip().startswith("does not hold here"), verdict)
        self.assertIn("double precision costs", verdict)
        self.assertIn("timings: not repeated", timings)
        self.assertIn("mwsep/precision.csv", timings)
        # The claim whose files were not touched keeps the committed folder's verdict and repeats.
        _, timings = claim_line(r.stdout, "mwsep-memory-spaces")
        self.assertIn("timings: repeated", timings)
        # Side by side with the committed folder, the difference is named, and the exit status says so.
        r = run(SIDE_BY_SIDE, str(H200), str(planted))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("mwsep-precision: A holds, B does not hold here: DIFFERENT", r.stdout)
        self.assertIn("headline claim mwsep-precision: A holds, B does not hold here", r.stdout)

    def test_a_planted_change_reverses_a_claimed_ordering(self):
        # Ryoo's R2, "4 x 4 tiles are slower than no tiling", holds on the committed folder; with the 4 x 4 tiled
        # kernel made four times faster (its times a quarter, its rate four times) the order reverses.
        def faster_4x4(row):
            if row["variant"] == "tiled-4":
                row["kernel_ms"] = repr(float(row["kernel_ms"]) / 4)
                row["gflops"] = repr(float(row["gflops"]) * 4)
        claim = next(c for c in claim_verdicts.load_claims() if c["id"] == "ryoo-ladder")
        before = {r["row"]: r["verdict"] for r in claim_verdicts.judge(claim, claim_verdicts.report_verdicts(H200))["rows"]}
        self.assertEqual(before["R2"], "holds")
        planted = copy_folder(H200, self.root / "ordering")
        rewrite(planted, "ryoo/ladder.csv", faster_4x4)
        after = claim_verdicts.judge(claim, claim_verdicts.report_verdicts(planted))
        rows = {r["row"]: r for r in after["rows"]}
        self.assertEqual(rows["R2"]["verdict"], "does not hold here", rows["R2"])
        self.assertEqual(after["verdict"], "does not hold here")
        self.assertIn("R2: refuted", after["reason"])
        self.assertEqual({k: v["verdict"] for k, v in rows.items() if k != "R2"},
                         {k: v for k, v in before.items() if k != "R2"}, "the other claims are untouched")

    def test_a_folder_missing_the_claims_file_is_not_testable_with_the_reason(self):
        folder = copy_folder(H200, self.root / "missing")
        manifest = json.loads((folder / "manifest.json").read_text())
        del manifest["files"]["mwsep/precision.csv"]
        del manifest["experiments"]["mwsep/precision"]
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
        (folder / "mwsep" / "precision.csv").unlink()
        (folder / "mwsep" / "precision.meta.json").unlink()
        r = run(KIT, "--judge", str(folder), "--claims", "mwsep-precision")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        verdict, timings = claim_line(r.stdout, "mwsep-precision")
        self.assertTrue(verdict.strip().startswith("not testable here"), verdict)
        self.assertIn("mwsep/precision.csv", verdict)
        self.assertIn("timings: not repeated", timings)

    def test_a_damaged_file_makes_its_claims_not_testable_with_the_reason(self):
        """A .meta.json naming another file makes the file unreadable: the claims of its study are not testable
        here, with the finding, instead of the kit ending in a traceback."""
        folder = copy_folder(H200, self.root / "damaged")
        meta_path = folder / "mwsep" / "precision.meta.json"
        meta = json.loads(meta_path.read_text())
        meta["file"] = "mwsep/another.csv"
        meta_path.write_text(json.dumps(meta, indent=1))
        r = run(KIT, "--judge", str(folder), "--claims", "mwsep-precision")
        self.assertNotIn("Traceback", r.stderr)
        verdict, _ = claim_line(r.stdout, "mwsep-precision")
        self.assertTrue(verdict.strip().startswith("not testable here"), verdict)
        self.assertIn("unreadable", verdict)
        self.assertIn("the provenance of another file", verdict)

    def test_a_gpu_model_without_a_committed_folder_has_its_claims_judged(self):
        folder = copy_folder(H200, self.root / "other-model")
        manifest = json.loads((folder / "manifest.json").read_text())
        for g in manifest["host"]["gpus"]:
            g["gpu_name"] = "NVIDIA H200 NVL"
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
        r = run(KIT, "--judge", str(folder), "--claims", "mwsep-precision,ryoo-ladder")
        # ryoo's R1 and R3 do not hold on this chip, as the nearest folder's report says of the H200: the
        # artifact's finding reproduced, exit 0 (a claim holding there and failing here gives 1: the tests above)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("NO committed folder was recorded on this GPU (NVIDIA H200 NVL)", r.stdout)
        verdict, timings = claim_line(r.stdout, "mwsep-precision")
        self.assertTrue(verdict.strip().startswith("holds"), verdict)
        self.assertIn("no committed folder of this GPU (NVIDIA H200 NVL): not compared", timings)
        verdict, _ = claim_line(r.stdout, "ryoo-ladder")
        self.assertTrue(verdict.strip().startswith("does not hold here"), verdict)


# The verdict cell of each claims table as the report prints it, in the report's words, mapped by hand to the kit's.
TABLES = {"mwsep": {"claims": ("table_claims", 1, -1)},
          "ryoo": {"claims": ("table_ryoo_claims", 0, -1), "suite": ("table_ryoo_suite_claims", 0, -1)},
          "munch": {"verdicts": ("table_munch_claims", 0, -1)}}


def words_of(study, cell):
    """The kit's word for a verdict cell of the report's claims tables, worked out from the tables' wording."""
    if study == "mwsep":
        return {"reproduced": "holds", "differs": "does not hold here", "not testable here": "not testable here"}[
            next(w for w in ("reproduced", "differs", "not testable here") if cell.startswith(w))]
    if study == "ryoo":
        if cell.startswith(("not confirmed", "refuted")):
            return "does not hold here"
        if cell.startswith("confirmed"):
            return "holds"
    if study == "munch":
        if cell.startswith("not testable"):
            return "not testable here"
        if cell.startswith(("holds", "same order")):
            return "holds"
        return None  # any other wording: read below from the report's own pattern of the table
    raise AssertionError(f"{study}: a verdict cell in words this test does not know: {cell!r}")


def table_rows(text):
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            rows.append([c.strip() for c in line.strip()[1:-1].split(" | ")])
    return rows[1:]  # the header row


class KitVerdictIsTheReportsVerdict(unittest.TestCase):
    def test_every_judged_claim_on_both_committed_folders(self):
        import paper.mwsep.data.claims as mwsep_claims
        from paper import report_data
        from paper.munch.data.verdicts import VERDICT_WORDS as MUNCH_WORDS
        from paper.report.common import DIFFERS, NOT_TESTABLE, QUALITATIVE, REPRODUCED
        munch_kinds = {REPRODUCED: "holds", QUALITATIVE: "holds", DIFFERS: "does not hold here",
                       NOT_TESTABLE: "not testable here"}
        claims = claim_verdicts.load_claims()
        entries = {e.name: e for e in registry.load()}
        saved = mwsep_claims.OUT
        for folder in COMMITTED:
            report = claim_verdicts.report_verdicts(folder)
            tables = {}
            with tempfile.TemporaryDirectory() as tmp:
                mwsep_claims.OUT = pathlib.Path(tmp)
                try:
                    for study in TABLES:
                        built, missing = report_data.build_study(entries[study], folder.resolve())
                        self.assertEqual(missing, [], f"{folder.name}: {study}")
                        tables[study] = built.tables
                finally:
                    mwsep_claims.OUT = saved
            checked = 0
            for c in claims:
                kit_rows = claim_verdicts.judge(c, report)["rows"]
                for j, kit_row in zip(c.get("judged_by", []), kit_rows):
                    name, claim_col, verdict_col = TABLES[c["study"]][j["part"]]
                    matches = [r for r in table_rows(tables[c["study"]][name]) if r[claim_col] == j["row"]
                               and j.get("published_has", "") in " ".join(r)]
                    self.assertEqual(len(matches), 1, f"{folder.name}: {c['id']}: {j['row']}")
                    cell = matches[0][verdict_col]
                    expected = words_of(c["study"], cell)
                    if expected is None:
                        kind = next(k for p, k in MUNCH_WORDS if __import__("re").match(p, cell))
                        expected = munch_kinds[kind]
                    self.assertEqual(kit_row["verdict"], expected, f"{folder.name}: {c['id']}: {j['row']}: {cell!r}")
                    checked += 1
            self.assertGreaterEqual(checked, 30, "the declaration's judged claims were compared")

    def test_the_two_committed_folders_side_by_side(self):
        # The two GPUs' hosts may disagree on a judged claim (a finding of the measurements, e.g. the OpenMP
        # speed-up per thread of one host's CPU): the exit status says whether the output lists a difference.
        r = run(SIDE_BY_SIDE, str(H100), str(H200))
        n = len(claim_verdicts.load_claims())
        listed = "Differences (a verdict in each folder, not the same):" in r.stdout
        self.assertEqual(r.returncode, 1 if listed else 0, r.stdout + r.stderr)
        self.assertIn(f"{n} of {n} headline claims", r.stdout)
        self.assertIn("A and B hold different GPU models", r.stdout)

    def test_a_claim_judged_in_one_folder_only_contradicts_nothing(self):
        c = claim_verdicts.contradicts
        self.assertTrue(c("holds", "does not hold here"))
        self.assertTrue(c("reproduced", "differs"))
        self.assertFalse(c("holds", "holds"))
        for judged in ("holds", "does not hold here", "reproduced", "reproduced qualitatively", "differs"):
            self.assertFalse(c(judged, "not testable here"), judged)
            self.assertFalse(c("not judged", judged), judged)

    def test_bad_folders_are_refused(self):
        r = run(SIDE_BY_SIDE, str(H100), "/nonexistent")
        self.assertEqual(r.returncode, 2)
        self.assertIn("B=/nonexistent", r.stderr)


class RepeatabilityOfAClaim(unittest.TestCase):
    """How the compare verdicts of a claim's files become its timing line (worked out by hand per case)."""
    claim = {"decided_by": ["s/a.csv", "s/b.log"]}

    def rep(self, compared, note=None):
        return claim_verdicts.repeatability(self.claim, compared, note)

    def test_every_file_agrees(self):
        self.assertEqual(self.rep({"s/a.csv": ("agrees", "x"), "s/b.log": ("agrees", "y")}),
                         ("repeated", "s/a.csv: x; s/b.log: y"))

    def test_one_file_differs(self):
        self.assertEqual(self.rep({"s/a.csv": ("too noisy to judge", "n"), "s/b.log": ("differs", "z")}),
                         ("not repeated", "s/b.log: differs: z"))

    def test_a_noisy_file_is_never_agreement(self):
        self.assertEqual(self.rep({"s/a.csv": ("agrees", "x"), "s/b.log": ("too noisy to judge", "n")}),
                         ("too noisy to judge", "s/b.log: n"))

    def test_a_file_missing_from_the_comparison(self):
        self.assertEqual(self.rep({"s/a.csv": ("agrees", "x")})[0], "not repeated")

    def test_a_file_the_reference_lacks(self):
        self.assertEqual(self.rep({"s/a.csv": ("agrees", "x"), "s/b.log": ("new", "only in the new folder")}),
                         ("not compared", "s/b.log: the reference folder has no such file"))

    def test_another_gpu_model(self):
        self.assertEqual(self.rep(None, "no committed folder of this GPU (X): not compared"),
                         ("not compared", "no committed folder of this GPU (X): not compared"))


class TheKitAfterItsRuns(unittest.TestCase):
    """The kit's path after its runs, without a GPU: a stand-in nvidia-smi, and a kit folder whose claims all ran
    on this host (kept, not run again) with single precision planted ten times slower."""

    def test_the_record_gives_both_lines_and_the_exit_status(self):
        from experiments.harness import provenance, runner
        origin = runner.job_origin(*provenance.git_state())
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            smi = tmp / "bin" / "nvidia-smi"
            smi.parent.mkdir()
            smi.write_text("#!/bin/sh\ncase \"$*\" in *uuid*) echo GPU-00000000-1111-2222-3333-444444444444;;\n"
                           "*) echo 'NVIDIA H200, 580.1, 143771 MiB, 1980 MHz, 00000000:00:06.0';; esac\n")
            smi.chmod(0o755)
            build = tmp / "build"
            build.mkdir()
            (build / "build_info.json").write_text("{}")
            out = tmp / "out"
            out.mkdir()
            claims = claim_verdicts.load_claims()
            experiments = {f"{c['study']}/{x}" for c in claims for x in c["experiments"]}
            results = copy_folder(H200, out / "results")
            manifest = json.loads((results / "manifest.json").read_text())
            for rel, entry in list(manifest["files"].items()):
                if entry["experiment"] not in experiments:
                    del manifest["files"][rel]
                    for p in (results / rel, (results / rel).with_name(rel.rsplit("/", 1)[1].rsplit(".", 1)[0] + ".meta.json")):
                        p.unlink(missing_ok=True)
            manifest["experiments"] = {k: v for k, v in manifest["experiments"].items() if k in experiments}
            (results / "manifest.json").write_text(json.dumps(manifest, indent=1))
            rewrite(results, "mwsep/precision.csv", single_slower)
            state = {c["id"]: {"rc": 0, "seconds": 1.0, "origin": origin} for c in claims if c.get("needs") != "peer"}
            (out / "reproduce_check.json").write_text(json.dumps({"claims_state": state}))
            env = dict(os.environ, PATH=f"{smi.parent}:{os.environ.get('PATH', '')}")
            r = run(KIT, "--out", str(out), "--build", str(build), env=env)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            verdict, timings = claim_line(r.stdout, "mwsep-precision")
            self.assertTrue(verdict.strip().startswith("does not hold here"), verdict)
            self.assertIn("timings: not repeated", timings)
            verdict, timings = claim_line(r.stdout, "mwsep-gpu-correctness")
            self.assertTrue(verdict.strip().startswith("holds"), verdict)
            self.assertIn("timings: repeated", timings)
            verdict, _ = claim_line(r.stdout, "mwsep-peer")
            self.assertIn("not run: needs the public application", verdict)
            record = json.loads((out / "reproduce_check.json").read_text())
            self.assertEqual(record["kit_format"], 2)
            rows = {row["id"]: row for row in record["claims"]}
            self.assertEqual(rows["mwsep-precision"]["committed_verdict"], "holds")
            self.assertEqual(rows["mwsep-precision"]["verdict"], "does not hold here")
            # The chapters also read files the kit does not re-run: the reference's, each named in the record.
            self.assertTrue(record["read_from_reference"])
            self.assertTrue(all(p.startswith("experiments/results/nvidia-h200/") for p in record["read_from_reference"]))
            md = (out / "reproduce_check.md").read_text()
            self.assertIn("## mwsep-precision: does not hold here", md)
            self.assertIn("| claim | study | verdict here | verdict in nvidia-h200 | timings against nvidia-h200 | seconds |", md)
            self.assertIn(socket.gethostname(), md)
            # The results check accepts the record, and refuses it with a claim that lacks its timing line.
            from tools import check_results
            files = {"reproduce_check.md", "reproduce_check.json"}
            self.assertEqual(check_results.check_kit(out, files), [])
            broken = tmp / "broken"
            broken.mkdir()
            shutil.copy(out / "reproduce_check.md", broken)
            bad = dict(record, claims=[dict(record["claims"][0], repeatability="reproduced")] + record["claims"][1:])
            (broken / "reproduce_check.json").write_text(json.dumps(bad))
            self.assertEqual(len(check_results.check_kit(broken, files)), 1)
            # The README's kit line (tools/kit_summary.py) counts such a record's claims and timings apart.
            from tools import kit_summary
            kept = tmp / "records" / "reproduce-check-test"
            kept.mkdir(parents=True)
            shutil.copy(out / "reproduce_check.json", kept)
            saved = kit_summary.RECORDS, kit_summary.ROOT
            kit_summary.RECORDS, kit_summary.ROOT = tmp / "records", tmp
            try:
                line = kit_summary.summary()
            finally:
                kit_summary.RECORDS, kit_summary.ROOT = saved
            verdicts = [row["verdict"] for row in record["claims"]]
            claims_part, timings_part = line.split("; timings against the reference: ")
            self.assertIn(f" {verdicts.count('holds')} hold", claims_part)
            self.assertIn(f" {verdicts.count('does not hold here')} do not hold here", claims_part)
            self.assertIn(f"{[row['repeatability'] for row in record['claims']].count('repeated')} repeated", timings_part)


if __name__ == "__main__":
    unittest.main()
