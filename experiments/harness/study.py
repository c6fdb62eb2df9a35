"""The base of every study's module (experiments/studies/<study>.py): the plumbing and the kinds all
studies share.

A study's module declares `class Study(harness.study.Study)` with
  KINDS       {kind name: Kind} for its own kinds (experiments/harness/kinds.py: columns, key columns,
              value, comparison); the shared kinds below are merged in, and a study may redeclare one
              (its `correctness` CSV has its own columns, say)
  PROGRAM     the program of the build its jobs run (the study's `program` in experiments/studies.json)
  GPU_TESTS   (build-relative path of its GoogleTest GPU program, the environment variable naming the folder
              it writes gpu_correctness.csv into), for the shared `correctness` kind
and one method `kind_<name>(self, definition)` per own kind, yielding runner.Job objects. Each Kind declares the
keys a definition of it may give (`run_keys`, `definition_keys`: experiments/harness/kinds.py, Input); the runner
checks a definition against them and fills in the defaults before the method sees it, so a method reads
`run["key"]`. What a timed result records as its stop criterion is what each job's command prints with
`--print-criterion` (criterion_description): no list of timing commands is kept here. The method builds its
jobs with the helpers here: `csv_job` (run the program with `--csv`, keep its
rows; the one rule for a job without rows, or with rows its program marked invalid), `sweep` (a run's `sweep`
as one dict per combination) and `flags` (options as command-line flags).

Shared kinds:
  correctness      the study's GPU test program, its comparisons kept: gpu_correctness.csv and its log
  sanitizer_tests  compute-sanitizer over the GPU tests: <name>_<tool>.log
  gtest            any GoogleTest program of the build, run whole: <name>.log

A timing run may name `cache`: "warm", "cold" or ["warm", "cold"] (cache_states below; a kind declares it with
CACHE_INPUT): one job per state, a cold one with `--cold`; the rows carry the state in their `cache` column,
which every timed kind keys on.
"""
import json
import os
import pathlib
import re
import shlex
import subprocess

from . import gpu_tests, sanitize
from .kinds import GTEST_PASSED, SANITIZER_CLEAN, Compare, Input, Kind, text_kind
from .provenance import ROOT
from .runner import Job, JobFailed

SHARED_KINDS = {
    # A GoogleTest program of the build under compute-sanitizer, one job per tool, on the tests `filter` selects.
    "sanitizer_tests": text_kind(SANITIZER_CLEAN, run_keys={
        "binary": Input("str"), "filter": Input("str"),
        "tools": Input("list[str]", choices=("memcheck", "racecheck", "synccheck", "initcheck")),
        "timeout_s": Input("number", 300)}),
    # A GoogleTest program of the build run whole.
    "gtest": text_kind(GTEST_PASSED, run_keys={"binary": Input("str"), "needs_gpus": Input("int", 1)}),
}
# The `cache` run key of a timed kind (cache_states).
CACHE_INPUT = Input("str|list[str]", ["warm"])


def correctness_kind(columns, key, value, checks, numeric=()):
    """The `correctness` kind of a study whose GPU tests write gpu_correctness.csv with @p columns (one row per
    comparison, ending in `pass`), and its log. @p checks: how a row passes, from its values (Compare.checks).
    Its definition gives no run key: one job, the whole program."""
    return Kind(columns=columns, key=key, value=value, numeric=numeric, compare=Compare("correctness", checks=checks),
                tables={r"\.log$": text_kind(GTEST_PASSED)}, run_keys={})


class Study:
    KINDS = {}
    PROGRAM = ""
    GPU_TESTS = None
    # The arguments with which the program prints "GPU: <name> (<n> SMs)".
    SM_COUNT_ARGS = ("variants",)

    def __init__(self, build, quick, devices, options):
        self.build = build if build.is_absolute() else ROOT / build
        self.program = str(self.build / self.PROGRAM)
        self.quick = quick
        self.devices = devices
        self.options = options
        self._sm_count = None
        # <out>/<study>, set by the runner before the first job runs: where a job finds the files an experiment
        # it runs `after` recorded (None while jobs are only made, as by `run.py --list`).
        self.results_folder = None

    @classmethod
    def kinds(cls):
        """Every kind this study can write: the shared ones and its own (its own win)."""
        return dict(SHARED_KINDS, **cls.KINDS)

    def jobs(self, d):
        method = getattr(self, "kind_" + d["kind"], None)
        if method is None or d["kind"] not in self.kinds():
            raise JobFailed(f"the study has no kind '{d['kind']}' (its kinds: {', '.join(sorted(self.kinds()))})")
        return method(d)

    def sm_count(self):
        """The SM count of the first GPU, as the program reports it (None without a GPU)."""
        if self._sm_count is None:
            try:
                r = subprocess.run([self.program, *self.SM_COUNT_ARGS], text=True, capture_output=True)
            except OSError:  # a program that cannot be run says no SM count
                return None
            m = re.search(r"^GPU: .* \((\d+) SMs\)", r.stdout + "\n" + r.stderr, re.M)
            self._sm_count = int(m.group(1)) if m else None
        return self._sm_count

    # How long a command may take to answer --print-criterion; a command that ignores the flag would run whole.
    CRITERION_TIMEOUT_S = 10

    def printed_criterion(self, argv):
        """What the command @p argv (program and arguments, without its output file) prints with
        `--print-criterion`, as a dict: the stop criterion its measurement engine would apply. None when the
        command is no timing command: it refuses the flag (a non-zero exit), answers with something that is not
        a JSON object ("not a timing command"), cannot start, or does not answer within CRITERION_TIMEOUT_S (a
        command that ignored the flag and began its work, which is then stopped). The program reads no input
        and touches no GPU to answer."""
        key = tuple(argv)
        cache = self.__dict__.setdefault("_criteria", {})
        if key not in cache:
            try:
                r = subprocess.run([*argv, "--print-criterion"], text=True, capture_output=True,
                                   stdin=subprocess.DEVNULL, timeout=self.CRITERION_TIMEOUT_S)
                answer = json.loads(r.stdout) if r.returncode == 0 else None
            except (OSError, ValueError, subprocess.TimeoutExpired):
                answer = None
            cache[key] = answer if isinstance(answer, dict) else None
        return cache[key]

    def criterion_description(self, jobs=()):
        """The stop criteria the commands of @p jobs print (printed_criterion), each distinct one once: what the
        program says its measurement rule is, never a description typed here. Empty when no job's command is a
        timing command."""
        criteria = []
        for job in jobs:
            c = self.printed_criterion(job.argv) if getattr(job, "argv", None) else None
            if c is not None and c not in criteria:
                criteria.append(c)
        return {"source": "printed by the program (--print-criterion) for each job's command", "criteria": criteria} \
            if criteria else {}

    # ---- helpers of the kinds' methods --------------------------------------------------------------------
    def run_csv(self, tmp, name, args, after=(), env=None, invalid="a checked result was wrong (rows marked invalid)"):
        """Runs the program with @p args, then @p after and `--csv <tmp>/<name>.csv`, and keeps its rows. The one
        rule of every such job: no file, or a file without a row, is an error (nothing kept); a non-zero exit
        with rows is a failed verification whose rows are kept (the program marked them invalid: @p invalid says
        what failed); an exit 0 with rows is done. A program that appends to an existing --csv may be run
        several times into one part."""
        part = tmp / f"{name}.csv"
        r = self._run([self.program, *args, *after, "--csv", part], env=env)
        print(r.stdout, end="", flush=True)
        lines = part.read_text().splitlines() if part.exists() else []
        if len(lines) < 2:
            raise RuntimeError(f"{self.PROGRAM} {args[0]} made no rows (exit {r.returncode}): {r.stderr.strip()[-400:]}")
        if r.returncode != 0:
            e = JobFailed(f"{invalid}: {self.PROGRAM} {args[0]} exit {r.returncode}: {r.stderr.strip()[-300:]}")
            e.outputs = {part.name: part}
            raise e
        return {part.name: part}

    def csv_job(self, d, key, args, after=(), needs_gpus=1, shown=None, env=None, invalid=None):
        """A Job that runs the program once through run_csv for definition @p d: @p args are shown as its command
        (or @p shown) and are the command the runner asks for its stop criterion; @p after goes between them and
        the output file (the experiment's name, where the program is not shown it)."""
        kw = {"invalid": invalid} if invalid else {}
        return Job(key, lambda tmp: self.run_csv(tmp, d["name"], args, after, env, **kw),
                   [shown or f"{self.PROGRAM} " + " ".join(map(str, args))], needs_gpus=needs_gpus,
                   argv=[self.program, *args])

    @staticmethod
    def sweep(run):
        """A run's `sweep` ({key: [values]}) as one dict per combination, in the order given ([{}] without one)."""
        out = [{}]
        for key, values in run.get("sweep", {}).items():
            out = [dict(s, **{key: v}) for s in out for v in values]
        return out

    @staticmethod
    def flags(options):
        """{key: value} as command-line flags in key order: `--key value` (`_` spelt `-`); a list is given
        comma-separated; True is the bare flag, False nothing."""
        out = []
        for key, value in sorted(options.items()):
            flag = "--" + key.replace("_", "-")
            if isinstance(value, bool):
                out += [flag] if value else []
            else:
                out += [flag, ",".join(map(str, value)) if isinstance(value, list) else str(value)]
        return out

    @staticmethod
    def _run(cmd, env=None, log=None):
        r = subprocess.run([str(c) for c in cmd], text=True, capture_output=True, env=dict(os.environ, **(env or {})))
        if log is not None:
            log.write_text(f"$ {' '.join(map(str, cmd))}\n{r.stdout}\n{r.stderr}")
        return r

    # ---- the shared kinds ------------------------------------------------------------------------------
    def kind_correctness(self, d):
        if not self.GPU_TESTS:
            raise JobFailed("this study declares no GPU test program (GPU_TESTS)")
        return gpu_tests.correctness_kind(*self.GPU_TESTS)(self, d)

    def kind_sanitizer_tests(self, d):
        return sanitize.kind_sanitizer_tests(self, d)

    def kind_gtest(self, d):
        """Runs {build}/<binary> whole and keeps its output as <name>.log; verified when every test passed and
        none was skipped. A build without the program (an optional part left out) records the job as skipped."""
        name = d["name"]
        for run in d["runs"]:
            binary = self.build / run["binary"]

            def job(tmp, binary=binary):
                log = tmp / f"{name}.log"
                r = self._run([str(binary)], log=log)
                summary = [l for l in r.stdout.splitlines() if l.startswith(("[  PASSED", "[  FAILED", "[  SKIPPED"))]
                print("\n".join(summary[-4:]), flush=True)
                skipped = any(l.startswith("[  SKIPPED") for l in r.stdout.splitlines())
                if r.returncode != 0 or skipped or not re.search(GTEST_PASSED, r.stdout):
                    e = JobFailed(f"{binary.name}: exit {r.returncode}" + (", tests skipped" if skipped else ""))
                    e.outputs = {log.name: log}
                    raise e
                return {log.name: log}
            skip = None if binary.exists() else f"this build has no {run['binary']}"
            yield Job(run["binary"], job, [str(binary.relative_to(self.build.parent) if binary.is_absolute() else binary)],
                      needs_gpus=run["needs_gpus"], skip=skip)


CACHE_STATES = ("warm", "cold")


def cache_states(run):
    """[(state, flags)] for a run's `cache`: "warm" (the default), "cold" or a list of both; a cold state adds
    `--cold` (the L2 flushed before every sample) to the timing command. Anything else is an error naming the key."""
    states = run.get("cache", ["warm"])  # a kind's CACHE_INPUT
    states = [states] if isinstance(states, str) else states
    if not isinstance(states, list) or not states or any(s not in CACHE_STATES for s in states) \
            or len(set(states)) != len(states):
        raise JobFailed(f"run key 'cache': expected \"warm\", \"cold\" or a list of both, got {json.dumps(states)}")
    return [(s, ["--cold"] if s == "cold" else []) for s in states]


def cache_suffix(state):
    """What a job's key adds for its cache state: nothing for warm (the keys of the runs recorded before the
    state existed stay as they were), "|cold" for cold."""
    return "" if state == "warm" else "|" + state


def columns_of(kinds):
    """{kind: columns} with a kind's further CSV tables as <kind><ending> (for the older readers)."""
    out = {}
    for name, k in kinds.items():
        if k.suffix == ".csv":
            out[name] = list(k.columns)
    return out
