"""Statistics that match the comparison: the interval of a median from its order statistics (cases worked out by
hand), the allowance of two medians, "too noisy to judge" above the cap (never agreement), and a planted +15 %
on every timing file of each committed folder flagged in at least 95 % of its configurations with none agreeing
above the cap."""
import math
import pathlib
import sys
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]
ROOT = EXPERIMENTS.parent

from experiments import compare  # noqa: E402
from tools import planted_change  # noqa: E402
from experiments.harness.kinds import ALLOWANCE_CAP, Compare, Kind  # noqa: E402
from experiments.harness.stats import median_interval, relative_halfwidth  # noqa: E402

SAMPLES = Kind(["v", "repeat", "ms"], key=["v"], value="ms", numeric={"ms"}, compare=Compare("median", 0.02))
ONE_VALUE = Kind(["v", "ms"], key=["v"], value="ms", numeric={"ms"}, compare=Compare("median", 0.05))


def rows(values, v="a"):
    return [{"v": v, "repeat": str(i), "ms": repr(x)} for i, x in enumerate(values)]


class MedianInterval(unittest.TestCase):
    def test_order_statistics_worked_by_hand(self):
        # n = 10: P(B <= 1) = 11/1024, so [x(2), x(9)] covers 1 - 22/1024 = 97.85 %; [x(3), x(8)]: P(B <= 2) =
        # 56/1024, 89.1 %, below 95 %.
        lo, hi, cover = median_interval([float(i) for i in range(10, 0, -1)])
        self.assertEqual((lo, hi), (2.0, 9.0))
        self.assertAlmostEqual(cover, 1 - 22 / 1024)
        # n = 5: no interval reaches 95 %; the widest, [min, max], covers 1 - 2/32.
        self.assertEqual(median_interval([3, 1, 2, 5, 4]), (1, 5, 1 - 2 / 32))
        # n = 6: [min, max] covers 1 - 2/64 = 96.9 %.
        self.assertEqual(median_interval([1, 2, 3, 4, 5, 6])[2], 1 - 2 / 64)
        self.assertEqual(median_interval([7.0]), (7.0, 7.0, 0.0))

    def test_relative_halfwidth(self):
        # median 3, interval [1, 5]: 2/3 either side.
        self.assertAlmostEqual(relative_halfwidth([1, 2, 3, 4, 5]), 2 / 3)
        # median 10, interval [9, 12]: the larger side, 2/10.
        self.assertAlmostEqual(relative_halfwidth([9, 10, 12]), 0.2)


class Allowance(unittest.TestCase):
    def test_tight_samples_allow_the_tolerance(self):
        a = [100.0, 100.1, 99.9, 100.05, 99.95]
        self.assertEqual(compare.allowance(SAMPLES, a, a), (0.02, "the tolerance"))

    def test_spread_samples_allow_their_interval(self):
        a = [90.0, 100.0, 110.0]          # median 100, interval [90, 110]: 10 %
        b = [97.0, 100.0, 103.0]          # 3 %
        allowed, why = compare.allowance(SAMPLES, a, b)
        self.assertAlmostEqual(allowed, math.hypot(0.10, 0.03))
        self.assertEqual(why, "the medians' interval")

    def test_one_sample_of_a_sampled_kind_cannot_be_judged(self):
        self.assertEqual(compare.allowance(SAMPLES, [100.0], [100.0, 101.0]), (math.inf, "1 sample"))
        # A kind whose rows are one value per configuration allows its tolerance.
        self.assertEqual(compare.allowance(ONE_VALUE, [100.0], [100.0]), (0.05, "the tolerance"))


class TooNoisyIsNeverAgreement(unittest.TestCase):
    def test_verdicts_of_a_file(self):
        tight = [100.0, 100.2, 99.8, 100.1, 99.9]
        noisy = [50.0, 100.0, 150.0, 80.0, 120.0]
        # Both within their allowance; the noisy one's allowance is above the cap: the file is too noisy.
        verdict, detail = compare.compare_median(SAMPLES, rows(tight) + rows(noisy, "b"), rows(tight) + rows(noisy, "b"))
        self.assertEqual(verdict, "too noisy to judge", detail)
        self.assertIn(f"1 too noisy to judge (allowance above {ALLOWANCE_CAP:.0%}, first b:", detail)
        self.assertIn("allowances 2.0% to", detail)
        # The tight one alone agrees; 5 % slower, it differs.
        self.assertIs(compare.compare_median(SAMPLES, rows(tight), rows(tight))[0], True)
        slower = [x * 1.05 for x in tight]
        self.assertIs(compare.compare_median(SAMPLES, rows(slower), rows(tight))[0], False)
        # A change beyond even a noisy allowance differs.
        self.assertIs(compare.compare_median(SAMPLES, rows([x * 3 for x in noisy]), rows(noisy))[0], False)

    def test_a_single_sample_is_too_noisy(self):
        verdicts = compare.configuration_verdicts(SAMPLES, rows([130.0]), rows([100.0]))
        self.assertEqual(verdicts[("a",)][0], "too noisy to judge")


class PlantedChange(unittest.TestCase):
    def test_fifteen_percent_on_every_timing_file_of_each_committed_folder(self):
        for folder in planted_change.DEFAULT_FOLDERS:
            with self.subTest(folder=folder.name):
                per_study, per_file, wrong = planted_change.plant(folder, 1.15)
                total = {v: sum(c[v] for c in per_study.values()) for v in ("differs", "too noisy to judge", "agrees")}
                n = sum(total.values())
                self.assertGreater(n, 1000)
                self.assertGreaterEqual((total["differs"] + total["too noisy to judge"]) / n, 0.95, total)
                self.assertEqual(wrong, [])
                self.assertEqual(set(per_study), {"mwsep", "ryoo", "kirk_hwu", "munch"})


if __name__ == "__main__":
    unittest.main()
