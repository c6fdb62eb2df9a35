"""Tests of experiments/peer/run_peer.py: reading the peer's output, the device check, and whole runs of
the script with fake_peer.sh (a shell script printing output of the peer's shape) in place of the peer.

Run with `python3 -m unittest discover -s experiments/peer/tests`. Nothing here needs a GPU or OpenCL.
"""
import csv
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

from experiments.peer import convert_workunit, run_peer

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]

FAKE_PEER = HERE / "fake_peer.sh"
SCRIPT = HERE.parent / "run_peer.py"

# One successful run of the peer on a two-stream unit, in the shape it prints (numbers made up).
SAMPLE = """\
Error loading Lua script 'wu.txt': [string "parameters_version: 0.04..."]:1: '<name>' expected near '0.04'
Switching to Parameter File 'wu.txt'
<number_WUs> 1 </number_WUs>
<number_params_per_WU> 14 </number_params_per_WU>
Using AVX path
Found 1 platform
Platform 0 information:
  Name:       NVIDIA CUDA
  Version:    OpenCL 3.0 CUDA 13.0.88
  Vendor:     NVIDIA Corporation
  Extensions: cl_khr_global_int32_base_atomics cl_khr_fp64
  Profile:    FULL_PROFILE
Using device 0 on platform 0
Found 1 CL device
Device 'NVIDIA H200' (NVIDIA Corporation:0x10de) (CL_DEVICE_TYPE_GPU)
Board:
Driver version:      580.159.04
Version:             OpenCL 3.0 CUDA
Compute capability:  9.0
Max compute units:   132
Clock frequency:     1980 Mhz
Global mem size:     150109880320
Local mem size:      49152
Max const buf size:  65536
Double extension:    cl_khr_fp64
Estimated Nvidia GPU GFLOP/s: 16727 SP GFLOP/s, 8364 DP FLOP/s
Using a target frequency of 60.0
Using a block size of 256 with 4375 blocks/chunk
Using clWaitForEvents() for polling (mode -1)
Range:          { nu_steps = 160, mu_steps = 1600, r_steps = 700 }
Iteration area: 1120000
Chunk estimate: 1
Num chunks:     1
Chunk size:     1120000
Added area:     0
Effective area: 1120000
Initial wait:   0 ms
Integration time: 0.203125 s. Average time per iteration = 1.269531 ms
Integral 0 time = 0.210938 s
Running likelihood with 100000 stars
Likelihood time = 0.398438 s
<background_integral> 0.000250000000000 </background_integral>
<stream_integral>  20.500000000000000  3.750000000000000 </stream_integral>
<background_likelihood> -3.125000000000000 </background_likelihood>
<stream_only_likelihood>  -4.250000000000000  -5.375000000000000 </stream_only_likelihood>
<search_likelihood> -2.937500000000000 </search_likelihood>
"""

REQUIRED = ["Device '", "Integration time:", "Integral 0 time", "Likelihood time", "<background_integral>",
            "<stream_integral>", "<background_likelihood>", "<stream_only_likelihood>", "<search_likelihood>"]


def without(text, prefix):
    lines = text.splitlines(keepends=True)
    kept = [l for l in lines if not l.startswith(prefix)]
    assert len(kept) == len(lines) - 1, prefix
    return "".join(kept)


class Parsing(unittest.TestCase):
    def test_sample(self):
        r = run_peer.parse_output(SAMPLE)
        self.assertEqual(r["device"], {"name": "NVIDIA H200", "vendor": "NVIDIA Corporation",
                                       "vendor_id": "10de", "type": "CL_DEVICE_TYPE_GPU"})
        self.assertEqual(r["integration_s"], 0.203125)
        self.assertEqual(r["integral_wall_s"], 0.210938)
        self.assertEqual(r["likelihood_s"], 0.398438)
        self.assertEqual(r["background_integral"], 0.00025)
        self.assertEqual(r["stream_integral"], [20.5, 3.75])
        self.assertEqual(r["background_likelihood"], -3.125)
        self.assertEqual(r["stream_only_likelihood"], [-4.25, -5.375])
        self.assertEqual(r["search_likelihood"], -2.9375)
        self.assertEqual(r["opencl_driver_version"], "580.159.04")
        self.assertEqual(r["opencl_device_version"], "OpenCL 3.0 CUDA")

    def test_every_missing_line_raises(self):
        for prefix in REQUIRED:
            with self.subTest(missing=prefix), self.assertRaises(run_peer.ParseError):
                run_peer.parse_output(without(SAMPLE, prefix))

    def test_doubled_line_raises(self):
        for prefix in ("Likelihood time", "<search_likelihood>", "<stream_integral>"):
            line = next(l for l in SAMPLE.splitlines(keepends=True) if l.startswith(prefix))
            with self.subTest(doubled=prefix), self.assertRaises(run_peer.ParseError):
                run_peer.parse_output(SAMPLE + line)

    def test_values_must_be_finite_numbers(self):
        for old, new in (("0.000250000000000", "nan"), ("-2.937500000000000 <", "-inf <"),
                         ("0.398438 s", "x s"), ("-3.125000000000000", "-3.1 -3.2")):
            with self.subTest(new=new), self.assertRaises(run_peer.ParseError):
                run_peer.parse_output(SAMPLE.replace(old, new))

    def test_failed_evaluation_raises(self):
        with self.assertRaises(run_peer.ParseError):
            run_peer.parse_output(SAMPLE.replace("-2.937500000000000", "-999.000000000000000"))
        with self.assertRaises(run_peer.ParseError):
            run_peer.parse_output(SAMPLE.replace("Running likelihood",
                                                 "Non-finite result:  setting likelihood to -999\nRunning likelihood"))

    def test_resumed_run_raises(self):
        resumed = SAMPLE + ("21:07:28: Checkpoint exists. Attempting to resume from it\n"
                            "21:07:28: Successfully resumed checkpoint\n")
        with self.assertRaises(run_peer.ParseError):
            run_peer.parse_output(resumed)

    def test_stream_counts_must_agree(self):
        with self.assertRaises(run_peer.ParseError):
            run_peer.parse_output(SAMPLE.replace("  -5.375000000000000 <", " <"))

    def test_several_integration_areas_are_summed(self):
        cut = SAMPLE.replace("Integral 0 time = 0.210938 s\n",
                             "Integral 0 time = 0.210938 s\n"
                             "Integration time: 0.015625 s. Average time per iteration = 0.500000 ms\n"
                             "Integral 1 time = 0.031250 s\n")
        r = run_peer.parse_output(cut)
        self.assertEqual(r["integration_s"], 0.203125 + 0.015625)
        self.assertEqual(r["integral_wall_s"], 0.210938 + 0.03125)
        with self.assertRaises(run_peer.ParseError):
            run_peer.parse_output(without(cut, "Integral 1 time"))


class DeviceCheck(unittest.TestCase):
    def test_nvidia_gpu_passes(self):
        self.assertEqual(run_peer.check_device(SAMPLE)["name"], "NVIDIA H200")

    def test_other_devices_are_refused(self):
        nvidia = "Device 'NVIDIA H200' (NVIDIA Corporation:0x10de) (CL_DEVICE_TYPE_GPU)"
        for other in ("Device 'cpu-sapphirerapids-Intel(R) Xeon(R) Processor' (GenuineIntel:0x8086) (CL_DEVICE_TYPE_CPU)",
                      "Device 'gfx90a:sramecc+:xnack-' (Advanced Micro Devices, Inc.:0x1002) (CL_DEVICE_TYPE_GPU)",
                      "Device 'NVIDIA H200' (NVIDIA Corporation:0x10de) (CL_DEVICE_TYPE_ACCELERATOR)"):
            with self.subTest(other=other), self.assertRaises(run_peer.Refused):
                run_peer.check_device(SAMPLE.replace(nvidia, other))

    def test_no_device_line_is_refused(self):
        with self.assertRaises(run_peer.Refused):
            run_peer.check_device(without(SAMPLE, "Device '"))

    def test_two_different_devices_are_refused(self):
        with self.assertRaises(run_peer.Refused):
            run_peer.check_device(SAMPLE + "Device 'NVIDIA H100' (NVIDIA Corporation:0x10de) (CL_DEVICE_TYPE_GPU)\n")

    def test_judge_run(self):
        self.assertEqual(run_peer.judge_run(SAMPLE, 0, False, 2)["search_likelihood"], -2.9375)
        with self.assertRaises(run_peer.RunFailed):
            run_peer.judge_run(SAMPLE, 1, False, 2)
        with self.assertRaises(run_peer.RunFailed):
            run_peer.judge_run(SAMPLE, None, True, 2)
        with self.assertRaises(run_peer.RunFailed):
            run_peer.judge_run(SAMPLE, 0, False, 3)
        cpu = SAMPLE.replace("'NVIDIA H200' (NVIDIA Corporation:0x10de) (CL_DEVICE_TYPE_GPU)",
                             "'pthread-cpu' (GenuineIntel:0x8086) (CL_DEVICE_TYPE_CPU)")
        with self.assertRaises(run_peer.Refused):       # refused even though it exited 0 with results
            run_peer.judge_run(cpu, 0, False, 2)


class VendorLibrary(unittest.TestCase):
    LISTING = ("612 libs found in cache `/etc/ld.so.cache'\n"
               "\tlibnvidia-ptxjitcompiler.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.1\n"
               "\tlibnvidia-opencl.so.1 (libc6) => /usr/lib/i386-linux-gnu/libnvidia-opencl.so.1\n"
               "\tlibnvidia-opencl.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1\n")

    def test_picks_this_architecture(self):
        self.assertEqual(run_peer.find_vendor_library(self.LISTING, "x86_64"),
                         "/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1")

    def test_none_without_the_library(self):
        self.assertIsNone(run_peer.find_vendor_library(self.LISTING.replace("opencl", "openal"), "x86_64"))


class EndToEnd(unittest.TestCase):
    """Runs run_peer.py with fake_peer.sh, a fake ldconfig that lists a fake NVIDIA OpenCL library, and
    the tiny work unit converted to the peer's format."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.t = pathlib.Path(self.tmp.name)
        for d in ("bin", "lib", "driver"):
            (t / d).mkdir()
        (t / "lib" / "libOpenCL.so.1").write_bytes(b"loader")
        self.driver = t / "driver" / "libnvidia-opencl.so.1"
        self.driver.write_bytes(b"driver")
        self.ldconfig(self.driver)
        self.astronomy = t / "tiny.peer.txt"
        self.astronomy.write_text(convert_workunit.convert(
            (ROOT / "data" / "workunits" / "tiny" / "astronomy_parameters.txt").read_text()))
        self.stars = t / "stars.txt"
        self.stars.write_text("2\n1.0 2.0 3.0\n4.0 5.0 6.0\n")
        self.csv = t / "results" / "peer.csv"
        self.raw = t / "results" / "raw"
        self.log = t / "fake.log"

    def tearDown(self):
        self.tmp.cleanup()

    def ldconfig(self, library):
        script = self.t / "bin" / "ldconfig"
        script.write_text("#!/bin/sh\necho \"2 libs found in cache\"\n"
                          f"printf '\\tlibfoo.so.1 (libc6,x86-64) => /usr/lib/libfoo.so.1\\n'\n"
                          + (f"printf '\\tlibnvidia-opencl.so.1 (libc6,x86-64) => {library}\\n'\n" if library else ""))
        script.chmod(0o755)

    def run_script(self, flags="best", repeats=3, mode="ok", astronomy=None, extra_env=None):
        env = dict(os.environ)
        env.update({"PATH": f"{self.t / 'bin'}{os.pathsep}{env.get('PATH', '')}", "FAKE_PEER_MODE": mode,
                    "FAKE_PEER_LOG": str(self.log), "OCL_ICD_FILENAMES": "/should/be/removed.so"})
        env.pop("OCL_ICD_VENDORS", None)
        env.update(extra_env or {})
        cmd = [sys.executable, str(SCRIPT), "--peer", str(FAKE_PEER), "--lib", str(self.t / "lib"),
               "--work-unit", "tiny", "--astronomy", str(astronomy or self.astronomy), "--stars", str(self.stars),
               "--repeats", str(repeats), "--flags", flags, "--csv", str(self.csv), "--raw-dir", str(self.raw)]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)

    def rows(self):
        with self.csv.open(newline="") as f:
            return list(csv.DictReader(f))

    def log_lines(self):
        return self.log.read_text().splitlines() if self.log.exists() else []

    def raw_files(self):
        return sorted(self.raw.iterdir()) if self.raw.exists() else []

    def test_records_every_repeat(self):
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.rows()
        self.assertEqual(list(rows[0]), list(run_peer.COLUMNS))
        self.assertEqual([row["repeat"] for row in rows], ["0", "1", "2"])
        for row in rows:
            self.assertEqual((row["experiment"], row["work_unit"], row["flags"]), ("peer", "tiny", "best"))
            self.assertEqual(float(row["integration_s"]), 0.251234)
            self.assertEqual(float(row["likelihood_s"]), 0.401234)
            self.assertEqual(float(row["integral_wall_s"]), 0.262101)
            self.assertGreater(float(row["process_s"]), 0.0)
            self.assertEqual(float(row["likelihood"]), -2.875)
            self.assertEqual(float(row["background_integral_x1_8"]), 0.5 * 1.8)
            self.assertEqual([float(x) for x in row["stream_integrals_x1_8"].split(";")], [1.25 * 1.8, 2.25 * 1.8])
            self.assertEqual(row["stream_only_likelihoods"], "-4.5;-5.5")
            self.assertEqual(row["device"], "NVIDIA H200")
            raw = self.csv.parent / row["raw_output"]
            self.assertIn("<search_likelihood> -2.875000000000000 </search_likelihood>", raw.read_text())
        self.assertEqual(len(self.raw_files()), 3)
        # Each run in its own folder, empty when the run started, with the best flags.
        log = self.log_lines()
        self.assertEqual(len(log), 3)
        self.assertEqual(len({l.split()[0] for l in log}), 3)
        for line in log:
            self.assertIn("empty=yes", line)
            self.assertTrue(line.endswith("flags=--non-responsive --gpu-polling-mode=-1"), line)

    def test_provenance(self):
        r = self.run_script(repeats=2)
        self.assertEqual(r.returncode, 0, r.stderr)
        meta = json.loads((self.csv.parent / "peer.meta.json").read_text())
        self.assertEqual(meta["peer_sha256"], hashlib.sha256(FAKE_PEER.read_bytes()).hexdigest())
        self.assertEqual(meta["peer_binary"], str(FAKE_PEER))
        self.assertEqual(meta["peer_version"], "milkyway_separation 1.46 Linux x86_64 double OpenCL ")
        self.assertEqual(meta["opencl_vendor_library"], str(self.driver))
        self.assertEqual(meta["opencl_device"], "NVIDIA H200")
        self.assertEqual(meta["opencl_driver_version"], "580.159.04")
        self.assertEqual(meta["integral_scale"], 1.8)
        for key in ("date_utc", "host_cpu", "command", "git_commit", "gpus"):
            self.assertIn(key, meta)
        self.assertIn("--repeats 2 --flags best", meta["command"])
        self.assertEqual(len(meta["runs"]), 1)
        run = meta["runs"][0]
        self.assertEqual(run["astronomy_sha256"], hashlib.sha256(self.astronomy.read_bytes()).hexdigest())
        self.assertEqual(len(run["raw_outputs"]), 2)
        for raw in run["raw_outputs"]:
            self.assertTrue((self.csv.parent / raw).exists())

    def test_default_flags_append(self):
        self.assertEqual(self.run_script(repeats=1).returncode, 0)
        r = self.run_script(flags="default", repeats=2)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.rows()
        self.assertEqual([(row["flags"], row["repeat"]) for row in rows],
                         [("best", "0"), ("default", "0"), ("default", "1")])
        self.assertEqual(self.csv.read_text().count("experiment,"), 1)
        self.assertTrue(self.log_lines()[-1].endswith("flags="))
        meta = json.loads((self.csv.parent / "peer.meta.json").read_text())
        self.assertEqual([run["flags"] for run in meta["runs"]], ["best", "default"])

    def check_stopped(self, r, word, runs_logged):
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(word, r.stderr)
        self.assertFalse(self.csv.exists())
        self.assertEqual(len(self.log_lines()), runs_logged)
        self.assertEqual(len(self.raw_files()), runs_logged)   # the raw output is kept

    def test_cpu_device_is_refused(self):
        r = self.run_script(mode="cpu")
        self.check_stopped(r, "REFUSED", 1)
        self.assertIn("CL_DEVICE_TYPE_CPU", r.stderr)
        self.assertIn("CL_DEVICE_TYPE_CPU", self.raw_files()[0].read_text())

    def test_other_vendor_is_refused(self):
        self.check_stopped(self.run_script(mode="amd"), "REFUSED", 1)

    def test_failed_run(self):
        r = self.run_script(mode="fail")
        self.check_stopped(r, "FAILED", 1)
        self.assertIn("status 1", r.stderr)

    def test_missing_output_line(self):
        r = self.run_script(mode="no-likelihood-time")
        self.check_stopped(r, "FAILED", 1)
        self.assertIn("Likelihood time", r.stderr)

    def test_non_finite_value(self):
        self.check_stopped(self.run_script(mode="nan"), "FAILED", 1)

    def test_no_nvidia_library_is_refused_before_running(self):
        self.ldconfig(None)
        r = self.run_script()
        self.assertEqual(r.returncode, 2)
        self.assertIn("libnvidia-opencl.so.1", r.stderr)
        self.assertEqual(self.log_lines(), [])

    def test_other_header_is_refused_before_running(self):
        self.csv.parent.mkdir(parents=True)
        self.csv.write_text("experiment,work_unit,seconds\npeer,tiny,1.0\n")
        r = self.run_script()
        self.assertEqual(r.returncode, 2)
        self.assertIn("columns", r.stderr)
        self.assertEqual(self.log_lines(), [])
        self.assertEqual(self.csv.read_text(), "experiment,work_unit,seconds\npeer,tiny,1.0\n")

    def test_2009_format_file_is_refused(self):
        r = self.run_script(astronomy=ROOT / "data" / "workunits" / "tiny" / "astronomy_parameters.txt")
        self.assertEqual(r.returncode, 2)
        self.assertIn("convert_workunit", r.stderr)
        self.assertEqual(self.log_lines(), [])

    def test_meta_of_another_peer_is_refused(self):
        self.csv.parent.mkdir(parents=True)
        (self.csv.parent / "peer.meta.json").write_text(json.dumps({"peer_sha256": "0" * 64}))
        r = self.run_script()
        self.assertEqual(r.returncode, 2)
        self.assertIn("another peer binary", r.stderr)


if __name__ == "__main__":
    unittest.main()
