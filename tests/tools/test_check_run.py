"""tools/check_run.py, the verdict at the end of `make run`, on results made up by the test against the stored values
of the real work unit 3s-small (data/workunits/3s-small/expected.json): the stored values themselves agree; a
likelihood or an integral moved past its tolerance fails; another catalogue compares the integrals alone; a unit
without stored values, or a result that is not mwsep's, is said so."""
import contextlib
import hashlib
import importlib
import io
import json
import math
import pathlib
import shutil
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
UNIT = "3s-small"


def load_tool():
    return importlib.import_module("tools.check_run")


class CheckRun(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        self.tool = load_tool()
        self.expected = json.loads((ROOT / "data" / "workunits" / UNIT / "expected.json").read_text())
        # A stand-in catalogue whose digest is written into a copy of the stored values: the real catalogue
        # (100000 stars) is made by the build, which this test does not need.
        self.units = self.dir / "workunits"
        shutil.copytree(ROOT / "data" / "workunits" / UNIT, self.units / UNIT)
        self.stars = self.dir / "stars.txt"
        self.stars.write_text("stand-in catalogue\n")
        stored = dict(self.expected)
        stored["catalogue"] = dict(stored["catalogue"], sha256=hashlib.sha256(self.stars.read_bytes()).hexdigest())
        (self.units / UNIT / "expected.json").write_text(json.dumps(stored))

    def tearDown(self):
        self.tmp.cleanup()

    def result(self, **changes):
        """A run's --json output equal to the stored values, with @p changes."""
        r = {k: self.expected[k] for k in ("background_integral", "stream_integrals", "likelihood",
                                           "background_likelihood", "stream_only_likelihoods", "number_stars")}
        r.update(seconds=1.0, settings={"engine": "cpu fast", "device": "test", "r_binning": "magnitude"})
        r.update(changes)
        path = self.dir / "result.json"
        path.write_text(json.dumps(r))
        return path

    def check(self, result, stars=None, unit=UNIT):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = self.tool.main([str(result), "--unit", unit, "--stars", str(stars or self.stars),
                                     "--workunits", str(self.units)])
        return status, out.getvalue() + err.getvalue()

    def test_the_stored_values_agree(self):
        status, text = self.check(self.result())
        self.assertEqual(status, 0, text)
        self.assertIn("the likelihood agrees with the recorded value", text)
        self.assertIn("to 0,", text)

    def test_a_likelihood_within_its_tolerance_agrees_and_says_by_how_much(self):
        like = self.expected["likelihood"] * (1 + 2e-14)
        status, text = self.check(self.result(likelihood=like))
        self.assertEqual(status, 0, text)
        self.assertIn("to 2e-14", text)

    def test_a_likelihood_past_its_tolerance_fails(self):
        tol = self.expected["tolerance"]["likelihood"]["relative"]
        tol_i = self.expected["tolerance"]["stream_integrals"]["relative"]
        bound = tol + tol_i / (math.log(10) * abs(self.expected["likelihood"]))
        status, text = self.check(self.result(likelihood=self.expected["likelihood"] * (1 + 3 * bound)))
        self.assertEqual(status, 1, text)
        self.assertIn("FAILED: likelihood outside the tolerance", text)
        # ... while inside the bound that the integrals' tolerance carries into it, it agrees.
        status, text = self.check(self.result(likelihood=self.expected["likelihood"] * (1 + 0.9 * bound)))
        self.assertEqual(status, 0, text)

    def test_an_integral_past_its_tolerance_fails(self):
        streams = list(self.expected["stream_integrals"])
        streams[1] *= 1 + 1e-9
        status, text = self.check(self.result(stream_integrals=streams))
        self.assertEqual(status, 1, text)
        self.assertIn("stream 2 integral", text)
        self.assertIn("OUTSIDE", text)

    def test_another_catalogue_compares_the_integrals_alone(self):
        other = self.dir / "other.txt"
        other.write_text("another catalogue\n")
        status, text = self.check(self.result(likelihood=-1.0), stars=other)
        self.assertEqual(status, 0, text)
        self.assertIn("the integrals alone are compared", text)
        self.assertNotIn("  likelihood ", text)
        # An integral still fails there.
        status, text = self.check(self.result(background_integral=1.0), stars=other)
        self.assertEqual(status, 1, text)

    def test_a_unit_without_stored_values_is_said_so(self):
        (self.units / "bare").mkdir()
        (self.units / "bare" / "astronomy_parameters.txt").write_text("x\n")
        status, text = self.check(self.result(), unit="bare")
        self.assertEqual(status, 0, text)
        self.assertIn("no recorded values for bare", text)

    def test_an_edited_work_unit_is_not_compared(self):
        params = self.units / UNIT / "astronomy_parameters.txt"
        params.write_text(params.read_text() + "\n")
        status, text = self.check(self.result(likelihood=-1.0))
        self.assertEqual(status, 0, text)
        self.assertIn("is not the file the recorded values were computed from", text)

    def test_a_result_that_is_not_mwseps_is_refused(self):
        bad = self.dir / "bad.json"
        bad.write_text('{"likelihood": 1}')
        status, text = self.check(bad)
        self.assertEqual(status, 2, text)
        self.assertIn("not the output of mwsep run --json", text)


if __name__ == "__main__":
    unittest.main()
