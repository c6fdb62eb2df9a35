"""Tests of experiments/peer/finufft/run_cufinufft.py that need neither a GPU nor the peer library: the check of
the library's options structure against the one the script hands it, and the refusals of unusable arguments and
inputs before anything runs (exit status 2, naming what is wrong).

Run with `python3 -m unittest discover -s experiments/peer/tests`.
"""
import contextlib
import csv
import io
import json
import pathlib
import tempfile
import unittest

from experiments.peer.finufft import run_cufinufft as r

# A header of the shape the library's has (written for this test): the structure's fields, with comments and a
# pointer member, in the order the script knows.
HEADER = """#ifndef OPTS_H
#define OPTS_H
typedef struct cufinufft_opts { // the defaults are set by a function
  double upsampfac; // sigma
  int gpu_method;   /* 1, 2 or 3 */
  int gpu_sort;
  int gpu_binsizex; int gpu_binsizey;
  int gpu_binsizez;
  int gpu_obinsizex;
  int gpu_obinsizey;
  int gpu_obinsizez;
  int gpu_maxsubprobsize;
  int gpu_kerevalmeth;
  int gpu_spreadinterponly;
  int gpu_maxbatchsize;
  int gpu_device_id;
  void *gpu_stream;
  int modeord;
  int gpu_np;
  int debug;
} cufinufft_opts;
#endif
"""


def run(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = r.main(argv)
    return status, err.getvalue()


class OptionsStructure(unittest.TestCase):
    def test_the_fields_of_the_header_are_read_in_order(self):
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / "cufinufft_opts.h"
            path.write_text(HEADER)
            self.assertEqual(r.opts_fields_of_header(path), [name for name, _ in r.OPTS_FIELDS])

    def test_a_library_whose_structure_differs_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            lib = pathlib.Path(d) / "libcufinufft.so"
            lib.write_bytes(b"not a library")
            with self.assertRaisesRegex(r.Unusable, "missing"):
                r.check_header(lib)
            (pathlib.Path(d) / "cufinufft_opts.h").write_text(HEADER.replace("  int gpu_np;\n", ""))
            with self.assertRaisesRegex(r.Unusable, "this script knows"):
                r.check_header(lib)
            (pathlib.Path(d) / "cufinufft_opts.h").write_text(HEADER)
            r.check_header(lib)  # the same fields: accepted


class Refusals(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.d = pathlib.Path(self.dir.name)
        self.lib = self.d / "libcufinufft.so"
        self.lib.write_bytes(b"not a library")
        (self.d / "cufinufft_opts.h").write_text(HEADER)
        self.inputs = self.d / "inputs"
        self.inputs.mkdir()
        self.csv = self.d / "out.csv"

    def tearDown(self):
        self.dir.cleanup()

    def args(self, *extra):
        return ["--lib", str(self.lib), "--inputs", str(self.inputs), "--csv", str(self.csv), *extra]

    def test_bad_numbers_are_refused(self):
        status, err = run(self.args("--tolerances", "1e-6,x"))
        self.assertEqual(status, 2)
        self.assertIn("--tolerances", err)

    def test_a_missing_library_is_refused(self):
        status, err = run(["--lib", str(self.d / "none.so"), "--inputs", str(self.inputs), "--csv", str(self.csv)])
        self.assertEqual(status, 2)
        self.assertIn("no such file", err)

    def test_a_csv_of_other_columns_is_refused(self):
        self.csv.write_text("a,b\n1,2\n")
        status, err = run(self.args())
        self.assertEqual(status, 2)
        self.assertIn("not those of kirk_hwu nufft", err)

    def test_missing_inputs_are_named(self):
        status, err = run(self.args())
        self.assertEqual(status, 2)
        self.assertIn("problem.json: missing", err)
        (self.inputs / "problem.json").write_text(json.dumps({"size": "tiny", "grid": 8, "samples": 4, "lambda": 0.01,
                                                              "iterations": 3}))
        status, err = run(self.args())
        self.assertEqual(status, 2)
        self.assertIn("kx.npy: missing", err)

    def test_the_columns_are_those_of_the_command(self):
        # The script appends to the CSV kirk_hwu nufft writes: the same columns (the command's list is read from
        # its source, so that the two cannot drift apart unnoticed).
        source = (pathlib.Path(r.__file__).resolve().parents[3] / "src" / "kirk_hwu" / "app" / "nufft_command.cpp").read_text()
        start = source.index("with_timing_columns(")
        own = [c.strip().strip('"') for c in source[source.index("{", start) + 1:source.index("}", start)].split(",")]
        self.assertEqual(r.COLUMNS, [c for c in own if c] + ["sm_clock_mhz", "throttled", "noise_pct", "samples",
                                                             "stop_reason", "cache", "discarded_throttled"])
        with self.csv.open("w", newline="") as f:
            csv.writer(f).writerow(r.COLUMNS)
        self.assertEqual(r.open_csv(self.csv), (self.csv, False))


if __name__ == "__main__":
    unittest.main()
