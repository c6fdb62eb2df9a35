"""The report's facts and its fallbacks, on the committed results and on made-up records:

- a study's facts refuse a number stored as formatted text (the scalability chapter's two-card paragraph was blank
  because a bandwidth of '4 814' was stored as a fact and read back with float());
- the two-card paragraph, built from the facts of the committed H200 and H100 folders, prints the ratios this test
  works out itself from the result files;
- a part printed as not measured records why and the result files it rests on, and tools/check_report.py fails
  the report when those files are all there.

Run from the checkout's root: python3 -m unittest tests/tools/test_report_facts.py
"""
import csv
import dataclasses
import json
import pathlib
import statistics
import tempfile
import unittest

from experiments.harness.results import ResultFolder
from paper.mwsep import facts as mwsep_facts
from paper.mwsep.data import scaling
from paper.report import facts as facts_layer
from paper.report.common import Output
from tools import check_report

ROOT = pathlib.Path(__file__).resolve().parents[2]
H200 = ROOT / "experiments" / "results" / "nvidia-h200"
H100 = ROOT / "experiments" / "results" / "nvidia-h100-80gb-hbm3"


def build_mwsep(folder, compare):
    return mwsep_facts.build(ResultFolder(folder), facts_layer.published("mwsep"), [c / "mwsep" for c in compare])


class FactsAreNumbers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.facts = build_mwsep(H200, [H100])

    def test_a_number_stored_as_text_is_refused(self):
        gpu = self.facts.gpu
        self.assertIsInstance(gpu.bandwidth_gb_s, float)
        with self.assertRaisesRegex(TypeError, r"Gpu\.bandwidth_gb_s: '4.{1,6}814' is not float"):
            dataclasses.replace(gpu, bandwidth_gb_s="4\u202f814")

    def test_the_two_cards_print_their_ratios(self):
        out = Output()
        scaling.build(out, self.facts)
        self.assertEqual(out.fallbacks, [])
        # The ratios worked out here from the result files themselves: the devices' bandwidths as their provenance
        # records them, and the medians of the ryoo study's copy and SAXPY kernels on each card.
        bw = [json.loads((g / "mwsep" / "memory_spaces.meta.json").read_text())["memory_bandwidth_gb_s"] for g in (H200, H100)]
        self.assertEqual(out.n["twin_bandwidth_ratio"], f"{max(bw) / min(bw):.2f}")
        rates = []
        for g in (H200, H100):
            with (g / "ryoo" / "saxpy.csv").open() as f:
                by = {}
                for r in csv.DictReader(f):
                    by.setdefault(r["variant"], []).append(float(r["gb_per_s"]))
            rates.append({v: statistics.median(x) for v, x in by.items()})
        ratios = [rates[0][v] / rates[1][v] for v in sorted(set(rates[0]) & set(rates[1]))]
        self.assertEqual(out.n["twin_copy_ratio"], f"{statistics.median(ratios):.2f}")
        self.assertEqual((out.n["twin_gpu"], out.n["twin_other"]), ("H200", "H100 80GB HBM3"))
        self.assertTrue(out.tables["table_two_cards"].startswith("~~~{table} Table R@: one chip on two cards"))

    def test_an_unknown_bandwidth_names_the_files_it_rests_on(self):
        main, other = self.facts.twin
        blind = dataclasses.replace(self.facts, twin=(dataclasses.replace(main, bandwidth_gb_s=None), other))
        out = Output()
        scaling.build(out, blind)
        self.assertEqual(out.n["twin_bandwidth_ratio"], "(not measured)")
        [fallback] = out.fallbacks
        self.assertEqual(fallback["what"], "table_two_cards")
        self.assertEqual(sorted(fallback["sources"]), sorted(str((g / "mwsep" / "memory_spaces.meta.json").relative_to(ROOT))
                                                             for g in (H200, H100)))
        # ... so the report check fails the report: the files are there, the paragraph says "not measured".
        with tempfile.TemporaryDirectory() as tmp:
            generated = pathlib.Path(tmp) / "mwsep" / "_generated"
            generated.mkdir(parents=True)
            (generated / "fallbacks.json").write_text(json.dumps(out.fallbacks))
            [problem] = check_report.fallback_problems(tmp)
            self.assertIn("table_two_cards is printed as not measured", problem)


class FallbackCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        self.present = self.dir / "present.csv"
        self.present.write_text("a\n1\n")

    def tearDown(self):
        self.tmp.cleanup()

    def record(self, records):
        generated = self.dir / "study" / "_generated"
        generated.mkdir(parents=True, exist_ok=True)
        (generated / "fallbacks.json").write_text(json.dumps(records))

    def test_a_fallback_whose_file_is_there_fails(self):
        self.record([{"what": "x", "reason": "r", "sources": [str(self.present)]}])
        [problem] = check_report.fallback_problems(self.dir)
        self.assertIn("x is printed as not measured (r), but", problem)

    def test_a_fallback_whose_file_is_absent_passes(self):
        self.record([{"what": "x", "reason": "r", "sources": [str(self.present), str(self.dir / "absent.csv")]},
                     {"what": "y", "reason": "no file named", "sources": []}])
        self.assertEqual(check_report.fallback_problems(self.dir), [])

    def test_a_study_without_its_record_fails(self):
        (self.dir / "study" / "_generated").mkdir(parents=True)
        [problem] = check_report.fallback_problems(self.dir)
        self.assertIn("no fallbacks.json", problem)


if __name__ == "__main__":
    unittest.main()
