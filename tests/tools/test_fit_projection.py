"""The fit's projection over several hosts (paper/mwsep/data/fitting.py): the two-point model and the projected
generation against values worked out by hand, and the projection's assumptions file read as the chapter reads it."""
import json
import math
import pathlib
import unittest

from paper.mwsep.data import fitting


class ProjectionModel(unittest.TestCase):
    def test_two_points_give_the_per_candidate_and_fixed_times(self):
        # T(1) = 32 e + c = 2.0 and T(2) = 16 e + c = 1.1: e = 0.9 / 16, c = 2.0 - 32 e = 0.2; m = 1.15 - 1.1.
        e, c, m = fitting.projection_model(2.0, 1.1, 1.15, 32)
        self.assertAlmostEqual(e, 0.05625, places=15)
        self.assertAlmostEqual(c, 0.2, places=14)
        self.assertAlmostEqual(m, 0.05, places=14)

    def test_an_odd_population_is_refused(self):
        with self.assertRaises(ValueError):
            fitting.projection_model(2.0, 1.1, 1.15, 33)

    def test_one_gpu_of_one_host_is_the_measured_time(self):
        e, c, m = 0.05625, 0.2, 0.05
        # One rank: no MPI cost, no network.
        self.assertAlmostEqual(fitting.projected_generation(e, c, m, 32, 20, 1, 1, 1e-6, 1e9), 32 * e + c, places=15)

    def test_two_hosts_of_four_add_one_step_of_messages(self):
        e, c, m = 0.05625, 0.2, 0.05
        # 8 ranks: 4 candidates each; one tree step: two latencies, 32*20*8 + 16 bytes out and 32*8 back.
        want = 4 * e + c + m + (2 * 1e-6 + (5136 + 256) / 1e9)
        self.assertAlmostEqual(fitting.projected_generation(e, c, m, 32, 20, 2, 4, 1e-6, 1e9), want, places=15)

    def test_more_gpus_than_candidates_leave_one_candidate_each(self):
        e, c, m = 0.05625, 0.2, 0.05
        t = fitting.projected_generation(e, c, m, 32, 20, 32, 4, 1e-6, 1e9)
        self.assertAlmostEqual(t, e + c + m + 5 * (2e-6 + 5392 / 1e9), places=15)

    def test_the_assumptions_file_names_what_the_chapter_reads(self):
        spec = json.loads(fitting.PROJECTION_FILE.read_text())
        self.assertIn("about", spec)
        self.assertTrue(all(isinstance(h, int) and h >= 1 for h in spec["hosts"]))
        for net in spec["interconnects"]:
            self.assertTrue(net["name"] and net["latency_us"] > 0 and net["bandwidth_gb_s"] > 0)
        self.assertTrue(math.isfinite(spec["gpus_per_host"] * spec["candidates_per_gpu"]))


if __name__ == "__main__":
    unittest.main()
