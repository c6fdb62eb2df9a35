"""The stop criterion a timed result records is the one its jobs' commands print with --print-criterion: the
runner asks every job's command, and takes a refusal, an answer that is no criterion, or no answer in time
(a command that ignores the flag and starts its work) as "no criterion". No list of timing commands is kept."""
import json
import pathlib
import shutil
import sys
import tempfile
import time
import types
import unittest

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2]

from experiments.harness import runner, study  # noqa: E402
from experiments.harness.kinds import Input, Kind  # noqa: E402

# A program of four commands: `timed` answers --print-criterion with its criterion; `listing` refuses the flag
# (exit 2, as an unknown option); `quiet` answers that it is not a timing command; `ignores` does not know the
# flag and works for 30 s (a command that would run whole). Without the flag each writes one row.
PROGRAM = r'''#!/usr/bin/env python3
import json, sys, time
cmd, args = sys.argv[1], sys.argv[2:]
if "--print-criterion" in args:
    if cmd == "timed":
        print(json.dumps({"command": "fake timed", "min_samples": int(args[args.index("--min-samples") + 1]),
                          "noise_target_pct": 0.5}))
        sys.exit(0)
    if cmd == "listing":
        print("fake listing: unknown option --print-criterion", file=sys.stderr)
        sys.exit(2)
    if cmd == "quiet":
        print("not a timing command")
        sys.exit(0)
if cmd == "ignores":
    time.sleep(30)
out = args[args.index("--csv") + 1]
with open(out, "a") as f:
    f.write("command,value\n%s,1\n" % cmd)
'''


class FakeProgramStudy(study.Study):
    PROGRAM = "fake_program"
    KINDS = {"rows": Kind(["command", "value"], key=["command"], value="value", numeric={"value"}, host_only=True,
                          run_keys={"commands": Input("list[str]")})}
    CRITERION_TIMEOUT_S = 1

    def kind_rows(self, d):
        for run in d["runs"]:
            for cmd in run["commands"]:
                args = [cmd] + (["--min-samples", "7"] if cmd == "timed" else [])
                yield self.csv_job(d, cmd, args, needs_gpus=0)


class PrintedCriterion(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.build = self.tmp / "build"
        self.build.mkdir()
        (self.build / "build_info.json").write_text("{}")
        program = self.build / "fake_program"
        program.write_text(PROGRAM)
        program.chmod(0o755)
        defs = self.tmp / "definitions" / "criterion"
        defs.mkdir(parents=True)
        (defs / "rows.json").write_text(json.dumps({"name": "rows", "kind": "rows", "runs": [
            {"commands": ["timed", "listing", "quiet"]}]}))
        self.old = runner.DEFINITIONS
        runner.DEFINITIONS = self.tmp / "definitions"
        sys.modules["experiments.studies.criterion"] = types.SimpleNamespace(Study=FakeProgramStudy)

    def tearDown(self):
        runner.DEFINITIONS = self.old
        del sys.modules["experiments.studies.criterion"]
        shutil.rmtree(self.tmp)

    def test_the_file_records_what_its_timing_command_prints_and_nothing_for_the_others(self):
        self.assertEqual(runner.run_study("criterion", self.tmp / "out", self.build), 0)
        meta = json.loads((self.tmp / "out" / "criterion" / "rows.meta.json").read_text())
        self.assertEqual(meta["sampling"]["criteria"], [{"command": "fake timed", "min_samples": 7,
                                                         "noise_target_pct": 0.5}])
        self.assertNotIn("sampling", json.loads((self.tmp / "out" / "manifest.json").read_text()))

    def test_a_command_that_ignores_the_flag_is_stopped_and_has_no_criterion(self):
        s = FakeProgramStudy(self.build, False, [], {})
        t0 = time.monotonic()
        self.assertIsNone(s.printed_criterion([s.program, "ignores"]))
        self.assertLess(time.monotonic() - t0, 10, "stopped at CRITERION_TIMEOUT_S, not after its 30 s of work")
        self.assertIsNone(s.printed_criterion([str(self.build / "not_built"), "timed"]))
        self.assertEqual(s.printed_criterion([s.program, "timed", "--min-samples", "3"])["min_samples"], 3)

    def test_no_study_keeps_a_list_of_timing_commands(self):
        for path in (EXPERIMENTS / "studies").glob("*.py"):
            self.assertNotIn("TIMING_COMMANDS", path.read_text(), path.name)



class MicrobenchmarksAreAsked(unittest.TestCase):
    def test_every_microbenchmark_job_names_its_command_for_the_criterion(self):
        # mwsep's microbenchmarks (exp-throughput, hardware-micro) time through the engine: the runner must be
        # able to ask their commands for the criterion, so each job carries its command line (argv).
        plan = runner.plan_study("mwsep", "build", only=["exp_throughput", "exp_lean", "exp_chains", "hardware_micro",
                                                        "memory_latency"])
        self.assertEqual(len(plan.definitions), 5)
        for d in plan.definitions:
            for job in plan.jobs[d["name"]]:
                self.assertIsNotNone(job.argv, f"{d['name']}: a job without the command to ask")
                run = d["runs"][0]
                self.assertEqual(job.argv[1:], [run["command"], *map(str, run.get("args", []))])

if __name__ == "__main__":
    unittest.main()
