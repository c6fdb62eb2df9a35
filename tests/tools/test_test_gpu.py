"""tools/test_gpu.py: how the GPU tests are grouped and in which order they run.

- ctest's json-v1 list is grouped by program (a GoogleTest case by its --gtest_filter), the other tests on their
  own, and a program is run alone when any of its tests has RUN_SERIAL (ctest writes it as true or as a
  string), another test when it has;
- a run with made-up programs (scripts that note when they start and end; the two meant to run at once each wait
  for the other to start): the program marked RUN_SERIAL ends before any other starts, the others run at the
  same time, and the record says which ran alone.

Run from the checkout's root: python3 -m unittest tests/tools/test_test_gpu.py
"""
import json
import pathlib
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

from tools import test_gpu


def case(program, name, serial=None):
    """A ctest json-v1 entry of GoogleTest case @p name of @p program, RUN_SERIAL set to @p serial if given."""
    props = [{"name": "LABELS", "value": ["gpu"]}]
    if serial is not None:
        props.append({"name": "RUN_SERIAL", "value": serial})
    return {"name": name, "command": [program, f"--gtest_filter={name}", "--gtest_also_run_disabled_tests"],
            "properties": props}


class Group(unittest.TestCase):
    def test_cases_grouped_by_program_and_serial_programs_named(self):
        tests = [case("/b/a_tests", "A.One"), case("/b/a_tests", "A.Two"),
                 case("/b/timing_tests", "T.Cold", serial=True), case("/b/timing_tests", "T.Other"),
                 case("/b/c_tests", "C.One", serial=False),
                 {"name": "script", "command": ["/bin/sh", "x.sh"], "properties": []},
                 {"name": "timed script", "command": ["/bin/sh", "t.sh"],
                  "properties": [{"name": "RUN_SERIAL", "value": True}]}]
        Run = test_gpu.Run
        self.assertEqual(test_gpu.group(tests), [
            Run("a_tests", 2, ["/b/a_tests", "--gtest_filter=A.One:A.Two"], False),
            Run("c_tests", 1, ["/b/c_tests", "--gtest_filter=C.One"], False),
            Run("timing_tests", 2, ["/b/timing_tests", "--gtest_filter=T.Cold:T.Other"], True),
            Run("script", 1, ["/bin/sh", "x.sh"], False),
            Run("timed script", 1, ["/bin/sh", "t.sh"], True)])

    def test_run_serial_as_ctest_may_write_it(self):
        for value, expected in [(True, True), ("ON", True), ("TRUE", True), ("1", True), (False, False),
                                ("OFF", False), ("0", False)]:
            with self.subTest(value=value):
                self.assertEqual(test_gpu.run_serial({"properties": [{"name": "RUN_SERIAL", "value": value}]}),
                                 expected)
        self.assertFalse(test_gpu.run_serial({"name": "no properties"}))


PROGRAM = textwrap.dedent("""\
    #!{python}
    import pathlib, sys, time
    name = sys.argv[0].rsplit("/", 1)[-1]
    journal = pathlib.Path({journal!r})
    with journal.open("a") as f:
        f.write(f"start {{name}} {{time.monotonic()}}\\n")
    # A program with a partner waits (at most 20 s) until the partner has started: both run at once only if the
    # runner started them side by side. One without a partner works for a moment.
    partner, deadline = {partner!r}, time.monotonic() + 20
    while partner and f"start {{partner}} " not in journal.read_text() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)
    with journal.open("a") as f:
        f.write(f"end {{name}} {{time.monotonic()}}\\n")
    print("[  PASSED  ] 1 test.")
    """)


class Order(unittest.TestCase):
    def test_the_serial_program_ends_before_the_others_start(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            journal = tmp / "journal"
            tests = []
            for name, partner, serial in [("alone_tests", "", True), ("b_tests", "c_tests", None),
                                          ("c_tests", "b_tests", None)]:
                exe = tmp / name
                exe.write_text(PROGRAM.format(python=sys.executable, journal=str(journal), partner=partner))
                exe.chmod(0o755)
                tests.append(case(str(exe), f"{name}.Case", serial=serial))
            record = tmp / "record.json"
            with mock.patch.object(test_gpu, "gpu_tests", return_value=test_gpu.group(tests)), \
                    mock.patch.object(sys, "argv", ["test_gpu.py", str(tmp), "--record", str(record),
                                                    "--logs", str(tmp / "logs")]):
                self.assertEqual(test_gpu.main(), 0)
            times = {}
            for line in journal.read_text().splitlines():
                what, name, t = line.split()
                times[(what, name)] = float(t)
            self.assertLess(times[("end", "alone_tests")], times[("start", "b_tests")])
            self.assertLess(times[("end", "alone_tests")], times[("start", "c_tests")])
            # b and c side by side: each started before the other ended
            self.assertLess(times[("start", "b_tests")], times[("end", "c_tests")])
            self.assertLess(times[("start", "c_tests")], times[("end", "b_tests")])
            programs = {p["program"]: p for p in json.loads(record.read_text())["programs"]}
            self.assertEqual({n: p["alone"] for n, p in programs.items()},
                             {"alone_tests": True, "b_tests": False, "c_tests": False})
            self.assertEqual({p["passed"] for p in programs.values()}, {1})


if __name__ == "__main__":
    unittest.main()
