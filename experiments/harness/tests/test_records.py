"""The stated figures that come from a record in experiments/records agree with that record: the claims table
of docs/reproducing.md (moved there from the README) names the GPU tests' record."""
import json
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]


class ReadmeAgreesWithItsRecords(unittest.TestCase):
    def test_the_gpu_tests_wall_time_and_count(self):
        readme = (ROOT / "docs" / "reproducing.md").read_text()
        found = list(re.finditer(r"(\d+) s on one (H100|H200) \((\d+) tests, `(experiments/records/[^`]+/test-gpu\.json)`",
                                 readme))
        self.assertTrue(found, "the claims table's make test-gpu row (docs/reproducing.md) names no record")
        for m in found:  # each GPU's statement against its own record
            record = json.loads((ROOT / m.group(4)).read_text())
            self.assertIn(m.group(2), " ".join(record["gpus"]), m.group(0))
            self.assertEqual(int(m.group(1)), round(record["wall_s"]), m.group(0))
            self.assertEqual(int(m.group(3)), sum(p["tests"] for p in record["programs"]), m.group(0))
            self.assertFalse(record["git_dirty"])
            self.assertTrue(all(p["failed"] == 0 for p in record["programs"]))

if __name__ == "__main__":
    unittest.main()
