"""What the device reports about itself goes into the provenance: the attributes, and the bandwidth they give."""
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
