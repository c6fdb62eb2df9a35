"""paper/mwsep/stripes_costs.py on a hand-made results folder: every cost and ratio worked out by hand from the
numbers written here, the rows it must skip (another unit, an invalid GPU sample, the multi-threaded CPU row)
skipped, and a missing file named. Also the stripe fits' blind start (experiments/studies/mwsep_stripes.py):
the centre of the bounds. Standard library only."""
import csv
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "paper" / "mwsep"))
sys.path.insert(0, str(ROOT / "experiments"))
import stripes_costs  # noqa: E402
from studies import mwsep_stripes  # noqa: E402


def write(folder, name, header, rows):
    with (folder / f"{name}.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


class StripesCosts(unittest.TestCase):
    def folder(self):
        d = pathlib.Path(tempfile.mkdtemp())
        u = "stripe86-2009"
        write(d, "stripe_costs_cpu", ["experiment", "integrator", "threads", "slices", "work_unit", "repeat", "seconds",
                                      "cpu_seconds"],
              [["c", "reference", 1, 16, u, 0, 7, 90], ["c", "reference", 1, 16, u, 1, 7, 100],
               ["c", "reference", 1, 16, u, 2, 7, 110], ["c", "fast", 1, 16, u, 0, 1, 20], ["c", "fast", 1, 16, u, 1, 1, 25],
               ["c", "fast", 16, 1, u, 0, 1, 1],             # all cores: not one core's time
               ["c", "reference", 1, 16, "stripe20-2009", 0, 9, 5000]])
        write(d, "stripe_costs_gpu", ["experiment", "variant", "work_unit", "repeat", "kernel_ms", "total_ms", "valid"],
              [["g", "modern-f64", u, 0, 40, 50, "true"], ["g", "modern-f64", u, 1, 60, 70, "true"],
               ["g", "modern-f64", u, 2, 1, 1, "false"],  # a likelihood that disagreed with the CPU: not a time
               ["g", "compressed-f64", u, 0, 2, 3, "true"], ["g", "compressed-f64", "stripe11-2009", 0, 9, 9, "true"]])
        write(d, "fit_stripes", ["experiment", "work_unit", "start", "evaluations", "seconds", "process_seconds",
                                 "exact_likelihood", "reference_exact_likelihood"],
              [["f", u, "reference", 7000, 40, 48, -2.9, -3.0], ["f", u, "blind", 6000, 50, 54, -3.1, -3.0],
               ["f", "stripe11-2009", "blind", 9000, 90, 99, -3, -3]])
        return d

    def test_costs_worked_by_hand(self):
        c = stripes_costs.stripe_costs(self.folder())
        hour, day = 3600.0, 86400.0
        self.assertEqual(c["then"]["likelihood_seconds"], 7.5 * hour)
        self.assertEqual(c["then"]["fit_seconds"], 312 * day)
        self.assertEqual(c["then"]["fit_likelihoods"], 1000)
        now = c["now"]
        self.assertEqual(now["cpu_reference_seconds"], 100)  # median of 90, 100, 110
        self.assertEqual(now["cpu_fast_seconds"], 22.5)      # median of 20 and 25; the 16-thread row left out
        self.assertAlmostEqual(now["gpu_exact_seconds"], 0.05, places=15)     # median of 40 and 60 ms; the invalid sample left out
        self.assertAlmostEqual(now["gpu_exact_total_seconds"], 0.06, places=15)
        self.assertAlmostEqual(now["gpu_compressed_seconds"], 0.002, places=15)
        self.assertEqual([f["start"] for f in now["fits"]], ["blind", "reference"])
        self.assertEqual([f["at_or_above_reference"] for f in now["fits"]], [False, True])
        r = c["ratios"]
        self.assertAlmostEqual(r["then_over_cpu_reference"], 270.0)
        self.assertAlmostEqual(r["then_over_cpu_fast"], 1200.0)
        self.assertAlmostEqual(r["then_over_gpu_exact"], 540000.0)
        self.assertAlmostEqual(r["then_over_gpu_compressed"], 13500000.0)
        self.assertAlmostEqual(r["thesis_fit_cpu_reference_seconds"], 100000.0)
        self.assertAlmostEqual(r["thesis_fit_gpu_compressed_seconds"], 2.0)
        self.assertAlmostEqual(r["then_fit_over_fit"], 312 * day / 54)  # the longer whole fit of this unit
        rows = stripes_costs.rows(c)
        self.assertEqual(len(rows), 5)
        self.assertEqual(rows[-1][-1], f"{312 * day / 54:.3g}x")

    def test_a_missing_file_or_row_is_named(self):
        d = self.folder()
        (d / "stripe_costs_gpu.csv").unlink()
        with self.assertRaisesRegex(stripes_costs.MissingResults, "stripe_costs_gpu.csv: not recorded"):
            stripes_costs.stripe_costs(d)
        with self.assertRaisesRegex(stripes_costs.MissingResults, "no row of stripe_costs_cpu.csv for reference on stripe99"):
            stripes_costs.stripe_costs(self.folder(), unit="stripe99")


class BlindStart(unittest.TestCase):
    def test_the_centre_of_the_bounds_whatever_the_vector(self):
        space = [("a", 0.5, 0.0, 1.0), ("b", -3.0, -20.0, 20.0), ("c", 148.0, 155.0, 220.0)]
        self.assertEqual(mwsep_stripes.blind_start(space), [0.5, 0.0, 187.5])


if __name__ == "__main__":
    unittest.main()
