"""Tests of experiments/peer/convert_workunit.py.

Run with `python3 -m unittest discover -s experiments/peer/tests`. The equivalence with the peer-format files
of the shared folder (../shared/peer/workunits) is tested when that folder is present; everywhere, the
conversion of the committed work units is checked against values checked by hand against those files.
"""
import math
import pathlib
import subprocess
import sys
import tempfile
import unittest

from experiments.peer import convert_workunit as cw

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]

WORKUNITS = ROOT / "data" / "workunits"
SHARED = ROOT.parent / "shared" / "peer" / "workunits"


def converted(unit):
    return cw.convert((WORKUNITS / unit / "astronomy_parameters.txt").read_text(), unit)


def ours(unit):
    return (WORKUNITS / unit / "astronomy_parameters.txt").read_text()


class EquivalentToSharedPeerFiles(unittest.TestCase):
    """The converted units are the files the peer was measured with (when the shared folder is here)."""

    def check(self, unit, peer_file):
        path = SHARED / peer_file
        if not path.exists():
            self.skipTest(f"{path} not present (the shared folder is not part of a clone)")
        diffs = cw.differences(cw.read_peer(converted(unit), unit), cw.read_peer(path.read_text(), peer_file))
        self.assertEqual(diffs, [], f"{unit} converted differs from {peer_file}")

    def test_3s_large_is_p3s_large(self):
        self.check("3s-large", "p3s_large.txt")

    def test_2s_large_is_wu20_large(self):
        self.check("2s-large", "wu20_large.txt")

    def test_mwsep_format_copy_of_wu11_converts_to_wu11(self):
        src, peer = SHARED / "wu11_large.mwsep-format.txt", SHARED / "wu11_large.txt"
        if not src.exists() or not peer.exists():
            self.skipTest(f"{SHARED} not present")
        diffs = cw.differences(cw.read_peer(cw.convert(src.read_text())), cw.read_peer(peer.read_text()))
        self.assertEqual(diffs, [])

    def test_3s_large_is_not_wu11_large(self):
        # The comparison can fail: 3s-large's third stream is not wu11's.
        path = SHARED / "wu11_large.txt"
        if not path.exists():
            self.skipTest(f"{path} not present")
        diffs = cw.differences(cw.read_peer(converted("3s-large")), cw.read_peer(path.read_text()))
        self.assertTrue(any(d.startswith("stream 2 stream_parameters") for d in diffs), diffs)


class HandCheckedValues(unittest.TestCase):
    """Values of the converted units, checked by hand against the peer files p3s_large.txt and wu20_large.txt."""

    def test_3s_large(self):
        v = cw.read_peer(converted("3s-large"))
        self.assertEqual(v["parameters_version"], 0.04)
        self.assertEqual(v["background_weight"], 1.0)                 # halo fraction, not log-weight 0.0
        self.assertEqual((v["background_weight_step"], v["background_weight_min"],
                          v["background_weight_max"], v["optimize_background_weight"]), (0.0, 0.0, 1.0, 0))
        self.assertEqual(v["aux_bg_profile"], 0)
        self.assertEqual(v["number_parameters"], 4)
        self.assertEqual(v["background_parameters"], [1.0, 0.571713, 12.312119, 1.0])
        self.assertEqual(v["optimize_parameter"], [0, 1, 1, 0])
        self.assertEqual(v["number_streams"], (3, 5))
        self.assertEqual([s["stream_weight"] for s in v["streams"]], [-3.305187, -1.361644, -3.305187])
        self.assertEqual(v["streams"][1]["stream_parameters"], [177.884238, 23.882892, 1.210639, -1.611974, 8.534378])
        self.assertEqual(v["streams"][2]["stream_parameters"], [148.010257, 23.453902, 0.42035, -0.468858, 0.760579])
        self.assertEqual(v["streams"][2]["stream_min"][:2], [151.0, 5.75])
        self.assertEqual(v["streams"][2]["stream_max"][:2], [228.0, 57.0])
        self.assertEqual((v["convolve"], v["sgr_coordinates"], v["wedge"]), (120, 0, 11))
        self.assertEqual(v["area"], [(16.0, 23.0, 700), (150.0, 229.0, 1600), (-1.25, 1.25, 160)])
        self.assertEqual(v["cuts"], [])

    def test_2s_large(self):
        v = cw.read_peer(converted("2s-large"))
        self.assertEqual(v["background_weight"], 1.0)
        self.assertEqual(v["number_streams"], (2, 5))
        self.assertEqual(v["wedge"], 20)
        self.assertEqual(v["area"], [(16.0, 22.5, 700), (133.0, 249.0, 1600), (-1.25, 1.25, 160)])
        self.assertEqual(v["streams"][0]["stream_min"], [133.0, 2.30, 0.0, 0.0, 0.10])
        self.assertEqual(v["streams"][1]["stream_max"], [249.0, 45.6, 6.283185307179586, 6.283185307179586, 20.0])
        # The peer's copy writes the azimuths as 5.81432731 and 4.67121131: the same angles modulo 2 pi.
        for stream, peer_phi in zip(v["streams"], (5.81432731, 4.67121131)):
            phi = stream["stream_parameters"][3]
            self.assertNotEqual(phi, peer_phi)
            self.assertLess(abs(math.remainder(phi - peer_phi, 2 * math.pi)), 1e-8)

    def test_only_the_documented_lines_change(self):
        for unit in ("3s-large", "2s-large", "3s-small", "2s-small", "tiny"):
            src = [l.rstrip() for l in ours(unit).splitlines() if l.strip()]
            out = converted(unit).splitlines()
            self.assertEqual(out[0], "parameters_version: 0.04")
            self.assertEqual(out[2:7], ["background_weight: 1.0", "background_weight_step: 0.0",
                                        "background_weight_min: 0.0", "background_weight_max: 1.0",
                                        "optimize_background_weight: 0"])
            self.assertEqual(out[out.index("sgr_coordinates: 0") + 1], "aux_bg_profile: 0")
            removed = [l for l in src if l not in out]
            self.assertEqual(removed, ["background_weight: 0.0"], unit)
            self.assertEqual(len(out), len(src) + 6, unit)
            # Every other input line is in the output, in the same order, with the same text.
            kept = [l for l in out if l in src]
            self.assertEqual(kept, [l for l in src if l != "background_weight: 0.0"], unit)


class Refusals(unittest.TestCase):
    def setUp(self):
        self.text = ours("tiny")

    def refused(self, text, fragment):
        with self.assertRaises(cw.FormatError) as ctx:
            cw.convert(text, "t")
        self.assertIn(fragment, str(ctx.exception))

    def test_nonzero_background_log_weight(self):
        self.refused(self.text.replace("background_weight: 0.0", "background_weight: 0.5"), "halo fraction")

    def test_sagittarius_coordinates(self):
        self.refused(self.text.replace("sgr_coordinates: 0", "sgr_coordinates: 1"), "sgr_coordinates")

    def test_auxiliary_profile(self):
        self.refused(self.text.replace("sgr_coordinates: 0", "sgr_coordinates: 0\naux_bg_profile: 1"),
                     "aux_bg_profile")

    def test_odd_steps(self):
        self.refused(self.text.replace("r[min,max,steps]: 16.0, 22.5, 20", "r[min,max,steps]: 16.0, 22.5, 21"),
                     "even")

    def test_odd_convolve(self):
        self.refused(self.text.replace("convolve: 120", "convolve: 121"), "convolve")

    def test_seven_background_parameters(self):
        self.refused(self.text.replace("number_parameters: 4", "number_parameters: 7"), "number_parameters")

    def test_missing_line(self):
        self.refused(self.text.replace("wedge: 20\n", ""), "expected 'wedge'")

    def test_wrong_array_size(self):
        self.refused(self.text.replace("background_step[4]: 0.02, 0.000004, 0.00008, 0.02",
                                       "background_step[4]: 0.02, 0.000004, 0.00008"), "background_step")

    def test_trailing_garbage(self):
        self.refused(self.text + "extra: 1\n", "unexpected")

    def test_peer_format_input(self):
        self.refused(cw.convert(self.text), "already in the peer's format")

    def test_kept_aux_line_is_not_doubled(self):
        out = cw.convert(self.text.replace("sgr_coordinates: 0", "sgr_coordinates: 0\naux_bg_profile: 0"))
        self.assertEqual(out.count("aux_bg_profile"), 1)

    def test_cuts_are_copied(self):
        cut = ("number_cuts: 1\nr_cut[min,max,steps][3]: 16.0, 22.5, 10\n"
               "mu_cut[min,max,steps][3]: 140.0, 141.0, 4\nnu_cut[min,max,steps][3]: -1.25, 1.25, 4\n")
        out = cw.convert(self.text.replace("number_cuts: 0\n", cut))
        self.assertTrue(out.endswith(cut))
        self.assertEqual(cw.read_peer(out)["cuts"], [[(16.0, 22.5, 10), (140.0, 141.0, 4), (-1.25, 1.25, 4)]])


class PeerReading(unittest.TestCase):
    """read_peer follows the peer's rules for the version and aux_bg_profile lines; differences() can fail."""

    def test_version_decides_aux_line(self):
        out = converted("tiny")
        no_version = out.replace("parameters_version: 0.04\n", "")
        with self.assertRaises(cw.FormatError):       # version 0.01 does not read aux_bg_profile: wedge missing
            cw.read_peer(no_version)
        self.assertEqual(cw.read_peer(no_version.replace("aux_bg_profile: 0\n", ""))["parameters_version"], 0.01)
        with self.assertRaises(cw.FormatError):       # version 0.04 needs it
            cw.read_peer(out.replace("aux_bg_profile: 0\n", ""))

    def test_differences_find_changes(self):
        a = cw.read_peer(converted("tiny"))
        self.assertEqual(cw.differences(a, a), [])
        b = cw.read_peer(converted("tiny").replace("wedge: 20", "wedge: 21"))
        self.assertEqual(cw.differences(a, b), ["wedge: 20 != 21"])
        c = cw.read_peer(converted("tiny").replace("-0.468858", "-0.468859"))
        self.assertEqual(len(cw.differences(a, c)), 1)
        d = cw.read_peer(converted("tiny").replace("-0.468858", repr(-0.468858 + 2 * math.pi)))
        self.assertEqual(cw.differences(a, d), [])
        e = cw.read_peer(converted("tiny").replace("1.210639", repr(1.210639 + 2 * math.pi)))
        self.assertEqual(len(cw.differences(a, e)), 1)    # only the azimuth is compared modulo 2 pi


class CommandLine(unittest.TestCase):
    def run_cli(self, *args):
        return subprocess.run([sys.executable, str(HERE.parent / "convert_workunit.py"), *args],
                              capture_output=True, text=True)

    def test_writes_file_and_compares(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "peer.txt"
            r = self.run_cli(str(WORKUNITS / "tiny"), "-o", str(out))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(out.read_text(), converted("tiny"))
            other = pathlib.Path(tmp) / "other.txt"
            other.write_text(out.read_text().replace("convolve: 120", "convolve: 100"))
            r = self.run_cli(str(WORKUNITS / "tiny"), "--compare", str(other))
            self.assertEqual(r.returncode, 1)
            self.assertIn("convolve", r.stderr)
            r = self.run_cli(str(WORKUNITS / "tiny"), "--compare", str(out))
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_refusal_exit_status(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = pathlib.Path(tmp) / "bad.txt"
            bad.write_text(ours("tiny").replace("sgr_coordinates: 0", "sgr_coordinates: 1"))
            r = self.run_cli(str(bad))
            self.assertEqual(r.returncode, 2)
            self.assertIn("sgr_coordinates", r.stderr)
            self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
