"""The one runner: executes the declared experiments of a study and records every result file.

A definition (experiments/definitions/<study>/<name>.json) names its kind, its runs and what it needs;
the study's module (experiments/studies/<study>.py) turns each run into jobs: commands that write CSV
rows or text files into a scratch folder. The runner executes the jobs, appends their rows to
<out>/<study>/<file>, verifies each job as its kind says, writes <file>.meta.json with provenance from
the build, the device, the host and git, and keeps <out>/manifest.json: every file, the experiment that
wrote it, the commits, the status of every job, and the wall time and the host (name, boot id) and commit of
every job that ran. Running again on the same folder resumes: jobs already done are skipped and say so, provided
that they ran on this host since its last boot; otherwise the run stops before any job and names them, since a
result file's rows and its provenance come from one host. A fresh folder is the default, so committed results
are never appended to.
"""
import copy
import csv
import hashlib
import importlib
import io
import json
import os
import pathlib
import socket
import sys
import tempfile
import time
import traceback

from . import provenance as prov
from .kinds import DEFINITION_KEYS, REQUIRED, type_errors
from .results import FORMAT, NotAResultFolder, ResultFolder
from .results import read_manifest as results_read_manifest

ROOT = prov.ROOT
DEFINITIONS = ROOT / "experiments" / "definitions"


class JobFailed(Exception):
    """A job ran but its output failed verification; the rows it made are still recorded, marked."""


class Job:
    """One unit of work: `run(scratch)` writes files into the scratch folder and returns
    {result file name: path}; CSV files are appended to the result of that name, others replace it.
    `commands`: what it runs, in words (the provenance's job_commands); `argv`: where the job runs one command
    of the study's program, that command's words without its output file, which the runner asks for its stop
    criterion (`<argv> --print-criterion`); None for a job that runs something else."""

    def __init__(self, key, run, commands, needs_gpus=0, skip=None, argv=None):
        self.key, self.run, self.commands, self.needs_gpus, self.skip = key, run, commands, needs_gpus, skip
        self.argv = [str(a) for a in argv] if argv is not None else None


def _read_definition(path):
    try:
        d = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"{path}: not a readable definition: {e}") from None
    if not isinstance(d, dict):
        raise SystemExit(f"{path}: a definition is a JSON object with name, kind and runs")
    for key in ("name", "kind", "runs"):
        if key not in d:
            raise SystemExit(f"{path}: missing key '{key}'")
    if d["name"] != path.stem:
        raise SystemExit(f"{path}: name '{d['name']}' differs from the file name")
    return d


def check_definition(path, d, kinds, quick=False):
    """@p d (read from @p path) checked against its kind's declared inputs (experiments/harness/kinds.py: the
    kind's `run_keys` and `definition_keys`, and DEFINITION_KEYS): a copy with every declared key, the defaults
    filled in (the --quick ones with @p quick). An undeclared kind, an unknown, mistyped or missing key, or a
    value outside its choices ends the command with the file, the key and what was expected."""
    kind = kinds.get(d.get("kind"))
    if kind is None:
        raise SystemExit(f"{path}: kind '{d.get('kind')}' is not declared by the study (its kinds: "
                         f"{', '.join(sorted(kinds))})")
    if kind.run_keys is None:
        raise SystemExit(f"{path}: the kind '{d['kind']}' declares no inputs (run_keys in its Kind): no definition "
                         "can name it")

    def checked(where, given, declared):
        unknown = sorted(set(given) - set(declared))
        if unknown:
            known = ", ".join(f"{k} ({declared[k].describe()})" for k in sorted(declared)) or "no key"
            raise SystemExit(f"{path}: {where}unknown key '{unknown[0]}' (a misspelling?); "
                             f"kind '{d['kind']}' takes {known}")
        out = {}
        for key, spec in declared.items():
            if key not in given:
                value = spec.default_for(quick)
                if value is REQUIRED:
                    raise SystemExit(f"{path}: {where}missing key '{key}' ({spec.describe()})")
                out[key] = copy.deepcopy(value)
                continue
            value = given[key]
            why = type_errors(spec.type, value) if not (value is None and spec.default is None) else ""
            if why:
                raise SystemExit(f"{path}: {where}key '{key}': {why}")
            values = value if isinstance(value, list) else [value]
            outside = [v for v in values if spec.choices and v not in spec.choices]
            if outside:
                raise SystemExit(f"{path}: {where}key '{key}': {outside[0]!r} is not one of "
                                 f"{', '.join(map(str, spec.choices))}")
            out[key] = value
        return out
    top = checked("", {k: v for k, v in d.items() if k != "study"}, dict(DEFINITION_KEYS, **kind.definition_keys))
    if not top["runs"]:
        raise SystemExit(f"{path}: key 'runs': at least one run")
    top["runs"] = [checked(f"runs[{i}]: ", run, kind.run_keys) for i, run in enumerate(top["runs"])]
    return top


def load_definitions(study, only=(), kinds=None, quick=False):
    """The definitions of @p study: those in @p only in the order it names them, else all in file order. With
    @p kinds (the study's declared kinds) each is checked against its kind's inputs and has its defaults filled
    in (check_definition); without, they are read as written (for tools that read only names and what a
    definition asks of a host)."""
    folder = DEFINITIONS / study
    if not folder.is_dir():
        raise SystemExit(f"run: no definitions for study '{study}' ({folder})")
    defs = []
    for path in sorted(folder.glob("*.json")):
        d = _read_definition(path)
        if only and d["name"] not in only:
            continue
        if kinds is not None:
            d = check_definition(path, d, kinds, quick)
        d["study"] = study
        defs.append(d)
    if only:  # a caller with a time limit runs first what it names first
        order = {name: i for i, name in enumerate(only)}
        defs.sort(key=lambda d: order[d["name"]])
    return defs


def in_run_order(definitions):
    """@p definitions in the order they run: the order given, except that a definition comes after every definition of
    the list that its `after` names (an `after` naming an experiment that is not in the list asks nothing: the
    job that reads its files finds them in the folder or says what to record first). A name that is no experiment
    of the study, or a cycle, ends the command with the file and the key."""
    by_name = {d["name"]: d for d in definitions}
    known = {}  # per study: the names of its experiments
    for d in definitions:
        if d["study"] not in known:
            known[d["study"]] = {p.stem for p in (DEFINITIONS / d["study"]).glob("*.json")}
        for name in d.get("after", []):
            if name not in known[d["study"]]:
                raise SystemExit(f"{DEFINITIONS / d['study'] / (d['name'] + '.json')}: key 'after': '{name}' is no "
                                 f"experiment of the study {d['study']}")
    ordered, placed, visiting = [], set(), []

    def place(d):
        if d["name"] in placed:
            return
        if d["name"] in visiting:
            cycle = " -> ".join(visiting[visiting.index(d["name"]):] + [d["name"]])
            raise SystemExit(f"{DEFINITIONS / d['study'] / (d['name'] + '.json')}: key 'after': a cycle ({cycle})")
        visiting.append(d["name"])
        for name in d.get("after", []):
            if name in by_name:
                place(by_name[name])
        visiting.pop()
        placed.add(d["name"])
        ordered.append(d)

    for d in definitions:
        place(d)
    return ordered


def check_names(studies, names):
    """Exits with a message when one of @p names is an experiment of none of @p studies."""
    known = {d["name"] for study in studies for d in load_definitions(study)}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"run: unknown experiment(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")


# The endings of a file being written: a staged file of a job's commit (renamed over its final name once the
# manifest records the commit, see Manifest) and a temporary file of an atomic write. Neither is ever read.
STAGED = ".staged"
PARTIAL = ".partial"


def write_whole(path, data):
    """@p data (bytes or text) into @p path whole or not at all: written to a temporary file beside it, flushed
    to the disk, then renamed over it; on an error (a read-only folder, a full disk) the temporary file is
    removed, @p path is as it was, and the error goes on."""
    path = pathlib.Path(path)
    tmp = path.with_name(f".{path.name}{PARTIAL}")
    try:
        with tmp.open("wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise OSError(e.errno, e.strerror, str(e.filename or tmp)) from e
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class Manifest:
    """<out>/manifest.json: files, experiments, job statuses; written whole (write_whole) after every change.
    Experiments are named "<study>/<name>": two studies may each have an experiment of the same name
    (gpu_correctness).

    Every job's status is recorded when the experiment starts ("pending") and when the job ends, so the manifest
    says at every moment which jobs are done. A job that wrote files commits them in three steps: each new file
    (the whole new content of a table: its earlier rows, without this job's rows of an earlier try, and the new
    ones) and its .meta.json are written to a staged file beside the final name; the manifest then records the
    commit as "pending" (the job, its status, the files' SHA-256 and rows and the staged files); then each staged
    file is renamed over its final name and the manifest records the job's status and the files, without the
    pending entry. A run killed at any moment leaves every final name whole: before the pending entry is saved
    the staged files are stray and the job runs again; after, recover() finishes the renames and the record. A
    table's entry keeps `parts`, the rows of each job in file order, so that a job run again replaces its
    earlier rows instead of adding to them."""

    def __init__(self, out):
        self.out = pathlib.Path(out)
        self.path = self.out / "manifest.json"
        if self.path.exists():
            self.data = read_manifest(self.path)
        else:
            self.data = {"format": FORMAT, "files": {}, "experiments": {}}
        # Folders written before experiments were named with their study: a bare name takes the study of
        # the files it wrote (the first folder of their paths), or the first study, mwsep.
        study_of = {e["experiment"]: rel.split("/")[0] for rel, e in self.data["files"].items()}
        self.data["experiments"] = {qualified(name, study_of.get(name, "mwsep")): e
                                    for name, e in self.data["experiments"].items()}
        for rel, entry in self.data["files"].items():
            entry["experiment"] = qualified(entry["experiment"], rel.split("/")[0])

    def status(self, experiment, key):
        return self.data["experiments"].get(experiment, {}).get("jobs", {}).get(key)

    def _entry(self, experiment):
        return self.data["experiments"].setdefault(experiment, {"jobs": {}})

    def _statuses(self):
        for e in self.data["experiments"].values():
            e["status"] = experiment_status(e["jobs"].values())
        for entry in self.data["files"].values():
            entry["status"] = self.data["experiments"].get(entry["experiment"], {}).get("status", "unknown")

    def plan(self, experiment, keys):
        """Records every job of @p keys not recorded yet as pending: until each has run, the experiment is
        incomplete."""
        entry = self._entry(experiment)
        new = [k for k in keys if k not in entry["jobs"]]
        for k in new:
            entry["jobs"][k] = "pending"
        if new or "status" not in entry:
            self.save()

    def record(self, experiment, key, status, seconds=None, origin=None, save=True):
        """A job's status; @p seconds, the wall time of a job that ran, goes to the experiment's "seconds"
        (read by experiments/reproduce_check.py for its time estimate); @p origin, where it ran (job_origin),
        to its "origins", which decide whether a later run may resume beside it (resume_refusals)."""
        entry = self._entry(experiment)
        entry["jobs"][key] = status
        if seconds is not None:
            entry.setdefault("seconds", {})[key] = round(seconds, 1)
        if origin is not None:
            entry.setdefault("origins", {})[key] = origin
        if save:
            self.save()

    def add_file(self, relpath, experiment, kind, commit, facts=None, save=True):
        """Lists @p relpath with its experiment, kind and commit, and @p facts (its SHA-256 and, for a table, its
        rows and parts), which the results layer checks before it reads the file."""
        entry = self.data["files"].setdefault(relpath, {"experiment": experiment, "kind": kind, "commits": []})
        if commit not in entry["commits"]:
            entry["commits"].append(commit)
        entry.update(facts or {})
        if save:
            self.save()

    def commit(self, experiment, key, status, seconds, origin, files, staged):
        """Commits a job that wrote files (see the class): @p files {relpath: (kind, commit, facts)}, @p staged
        [(staged path, final path)] relative to the folder."""
        self.data["pending"] = {"experiment": experiment, "job": key, "status": status, "seconds": seconds,
                                "origin": origin, "files": {r: list(v) for r, v in files.items()},
                                "staged": [list(p) for p in staged]}
        self.save()
        pause("between the pending record and the renames")
        self.recover()

    def recover(self):
        """Finishes a commit a killed run left pending (renames the staged files it names that are still there,
        then records the job and its files), and removes the staged and temporary files of commits that never
        got so far. Returns whether there was a pending commit."""
        pending = self.data.pop("pending", None)
        if pending:
            for staged, final in pending["staged"]:
                if (self.out / staged).exists():
                    os.replace(self.out / staged, self.out / final)
                    pause("between two renames")
            for rel, (kind, commit, facts) in pending["files"].items():
                self.add_file(rel, pending["experiment"], kind, commit, facts, save=False)
            self.record(pending["experiment"], pending["job"], pending["status"], pending["seconds"],
                        pending["origin"], save=False)
        for stray in [p for p in self.out.rglob("*") if p.is_file() and p.name.startswith(".")
                      and p.name.endswith((STAGED, PARTIAL))]:
            stray.unlink()
        if pending:
            self.save()
        return bool(pending)

    def finish(self, host, build):
        # gpu_count: the host's GPUs; single- and multi-GPU results of one host share its folder.
        self.data.update({"host": host, "build": build, "gpu_count": host.get("gpu_count", 0)})
        # The stop criteria are each file's (its .meta.json), as its jobs' commands print them.
        self.data.pop("sampling", None)
        self.save()

    def forget(self, experiment, folder):
        """Drops an experiment's job statuses and files, so that the next run records it anew: the manifest
        first (a kill then leaves files it no longer lists, which no reader reads and which are written anew)."""
        self.data["experiments"].pop(experiment, None)
        rels = [r for r, e in self.data["files"].items() if e["experiment"] == experiment]
        for rel in rels:
            del self.data["files"][rel]
        self.save()
        for rel in rels:
            for path in (folder.parent / rel, folder.parent / (rel.rsplit(".", 1)[0] + ".meta.json")):
                path.unlink(missing_ok=True)

    def save(self):
        self.data["format"] = FORMAT
        self._statuses()
        write_whole(self.path, json.dumps(self.data, indent=1, sort_keys=True) + "\n")


def pause(where):
    """A pause of HARNESS_COMMIT_PAUSE seconds at @p where in a commit (unset: none): the kill test sets it so that
    its random kills land inside commits, which are otherwise instants."""
    seconds = float(os.environ.get("HARNESS_COMMIT_PAUSE", "0") or 0)
    if seconds > 0:
        time.sleep(seconds)


def read_manifest(path):
    """The manifest at @p path as the results layer reads it (experiments/harness/results.py, read_manifest):
    refused, with the file and what to do, when it is damaged, foreign or of a newer format."""
    try:
        return results_read_manifest(path)
    except NotAResultFolder as e:
        raise SystemExit(f"run: {e}") from None


def job_origin(commit, dirty, source_hash=None):
    """Where a job runs: the host name and, on Linux, the kernel's boot id, which is new on every boot, so two
    machines never share one (as they may share a host name or a container image's machine id); and the source
    tree: the commit, whether the files differ from it, and the hash of the files as measured."""
    origin = {"hostname": socket.gethostname(), "commit": commit, "dirty": dirty}
    if source_hash:
        origin["source_hash"] = source_hash
    try:
        origin["boot_id"] = pathlib.Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        pass
    return origin


def same_host(a, b):
    return all(a.get(k) == b.get(k) for k in ("hostname", "boot_id"))


def same_tree(a, b):
    """Whether two job_origins ran the same source tree: the same commit and the same clean or changed state
    (and, where both measured it, the same hash of the sources)."""
    keys = ("commit", "dirty") + (("source_hash",) if a.get("source_hash") and b.get("source_hash") else ())
    return all(a.get(k) == b.get(k) for k in keys)


def tree_of(origin):
    return f"commit {str(origin.get('commit'))[:7]}{' with uncommitted changes' if origin.get('dirty') else ''}"


def host_of(origin):
    """A job_origin's host as the refusals name it."""
    return f"host {origin.get('hostname')} (boot id {origin.get('boot_id', 'unknown')})"


def resume_refusals(manifest, experiments, origin):
    """One line for each of @p experiments that this run cannot resume: jobs whose rows its file keeps (done, or
    failed verification) ran on another host or before that host's last boot, or from another source tree (another
    commit, or the same with other changes), or were recorded by a runner that did not keep where a job ran.
    Resumed, such an experiment's file would hold rows of two hosts or two trees under the provenance of one."""
    lines = []
    for name in experiments:
        entry = manifest.data["experiments"].get(name, {})
        # The jobs whose rows stay in the file: those done and those whose rows failed verification.
        done = sorted(k for k, s in entry.get("jobs", {}).items()
                      if s == "done" or str(s).startswith("verify failed"))
        origins = entry.get("origins", {})
        unknown = [k for k in done if k not in origins]
        elsewhere = [k for k in done if k in origins and not same_host(origins[k], origin)]
        if unknown:
            lines.append(f"{name}: {len(unknown)} job(s) with rows in its file recorded without where they ran "
                         f"(an earlier runner's manifest), {unknown[0]} the first")
        if elsewhere:
            o = origins[elsewhere[0]]
            lines.append(f"{name}: {len(elsewhere)} job(s) with rows in its file ran on {host_of(o)} at commit "
                         f"{str(o.get('commit'))[:7]}, {elsewhere[0]} the first; this run is on {host_of(origin)}")
        other_tree = [k for k in done if k in origins and k not in elsewhere and not same_tree(origins[k], origin)]
        if other_tree:
            o = origins[other_tree[0]]
            lines.append(f"{name}: {len(other_tree)} job(s) with rows in its file ran at {tree_of(o)}, "
                         f"{other_tree[0]} the first; this run is at {tree_of(origin)}")
    return lines


def experiment_status(job_statuses):
    """done when every job is done or skipped (a run a smaller host cannot make, say) and one is done;
    skipped when all are; incomplete when a job failed or has not run."""
    statuses = [str(s) for s in job_statuses]
    if statuses and all(s == "done" or s.startswith("skipped") for s in statuses):
        return "done" if "done" in statuses else "skipped"
    return "incomplete"


def wholly_skipped(out, study_name, only=()):
    """The experiments of @p study_name (those in @p only, else every one) whose every job the manifest in @p out
    records as skipped, each as (name, the first job's reason). Such an experiment wrote no result: a run that
    asked for it says so instead of counting it among those without a failure."""
    recorded = Manifest(pathlib.Path(out)).data["experiments"]
    found = []
    for d in load_definitions(study_name, only):
        name = f"{study_name}/{d['name']}"
        jobs = recorded.get(name, {}).get("jobs", {})
        if jobs and experiment_status(jobs.values()) == "skipped":
            first = str(next(iter(jobs.values())))
            found.append((name, first[len("skipped: "):] if first.startswith("skipped: ") else first))
    return found


def qualified(experiment, study="mwsep"):
    """An experiment's name in a manifest, "<study>/<name>"; a bare name is of the first study, mwsep."""
    return experiment if "/" in experiment else f"{study}/{experiment}"


class Plan:
    """One study's run, made and checked before any job of any study runs: its definitions (checked against
    their kinds' inputs) and every experiment's jobs."""

    def __init__(self, study_name, study, definitions, jobs, quick):
        self.study_name, self.study, self.definitions, self.jobs, self.quick = study_name, study, definitions, jobs, quick


def plan_study(study_name, build, only=(), quick=False, options=None, devices=None):
    """The Plan of @p study_name: its module's Study, its definitions checked (check_definition) and the jobs of
    each. Needs no GPU, no build and no results folder (`experiments/run.py --list` prints it); a definition whose
    jobs cannot be made ends the command with its file and why."""
    study_mod = importlib.import_module(f"experiments.studies.{study_name}")
    study = study_mod.Study(build=pathlib.Path(build), quick=quick, devices=devices or [], options=options or {})
    kinds = study.kinds() if hasattr(study, "kinds") else None
    definitions = in_run_order(load_definitions(study_name, only, kinds, quick))
    jobs = {}
    for d in definitions:
        try:
            jobs[d["name"]] = list(study.jobs(d))
        except (JobFailed, ValueError, KeyError, TypeError, RuntimeError, OSError) as e:
            raise SystemExit(f"{DEFINITIONS / study_name / (d['name'] + '.json')}: its jobs cannot be made: "
                             f"{type(e).__name__}: {e}") from None
    return Plan(study_name, study, definitions, jobs, quick)


def describe_plan(plan):
    """The lines `experiments/run.py --list` prints for @p plan: per experiment its kind and jobs, each with the
    GPUs it needs, a reason to skip and the commands it runs."""
    lines = []
    for d in plan.definitions:
        jobs = plan.jobs[d["name"]]
        lines.append(f"{plan.study_name}/{d['name']} [{d['kind']}]: {len(jobs)} job(s)")
        for job in jobs:
            need = f"{job.needs_gpus} GPU{'s' if job.needs_gpus != 1 else ''}"
            lines.append(f"  {job.key}  ({need}{'; skipped: ' + job.skip if job.skip else ''})")
            lines += [f"    {c}" for c in job.commands]
    return lines


def run_study(study_name, out, build, only=(), quick=False, options=None, redo=()):
    """Runs the experiments of one study into out/<study>/; returns the number of failed jobs. The
    experiments named in @p redo are recorded anew: their files and job statuses are dropped first."""
    devices = prov.gpus()
    plan = plan_study(study_name, build, only, quick, options, devices)
    return run_plans([plan], out, build, redo, devices)


def host_class(devices):
    """What a results folder's host is, as far as its results are concerned: its GPU models and their number."""
    return sorted(g.get("gpu_name", "?") for g in devices)


def prepare_folder(plans, out, redo, devices, origin):
    """Opens the results folder @p out for @p plans and checks it whole before any job of any study runs: a
    damaged, foreign or newer manifest, a commit a killed run left half done (finished here), a file that is not
    as the runner left it (missing, edited, its .meta.json naming another file or commit), a folder of another
    GPU model or count, or an experiment this run would resume from another host, boot or source tree ends the
    run with the file and what to do, before --redo drops anything. Returns the Manifest."""
    if out.exists() and not (out / "manifest.json").exists() and \
            any(not p.name.endswith(PARTIAL) for p in out.iterdir()):  # a manifest whose first write was stopped
        raise SystemExit(f"run: {out} holds files but no manifest.json: not a folder this runner wrote; choose "
                         "another --out")
    out.mkdir(parents=True, exist_ok=True)
    manifest = Manifest(out)
    if not manifest.path.exists():
        manifest.save()  # the folder is the runner's before anything else is written into it
    if manifest.data.get("pending") or any(p.name.endswith((STAGED, PARTIAL)) for p in out.rglob(".*")):
        finished = manifest.recover()
        if finished:
            print(f"run: {out}: finished the commit a stopped run had begun", flush=True)
    refusals = resume_refusals(manifest, [f"{p.study_name}/{d['name']}" for p in plans for d in p.definitions
                                          if d["name"] not in redo], origin)
    if refusals:
        raise SystemExit(f"run: {out}: jobs this run cannot resume beside (a result file's rows come from one "
                         f"host and one source tree): " + "; ".join(refusals) + ". Record them anew with --redo "
                         "<experiment>, or run into a fresh --out folder")
    redone = {f"{p.study_name}/{name}" for p in plans for name in redo}
    if manifest.data["files"]:
        folder = ResultFolder(out)
        problems = [p for rel, e in sorted(folder.files.items()) if e["experiment"] not in redone
                    for p in folder.integrity_problems(rel)[0]]
        if problems:
            raise SystemExit(f"run: {out}: not as the runner left it ({len(problems)} problem(s)), first: "
                             f"{problems[0]}. Record the experiment anew with --redo <experiment>, or run into a fresh "
                             "--out folder")
        recorded = manifest.data.get("host", {}).get("gpus")
        if recorded is not None and host_class(recorded) != host_class(devices):
            raise SystemExit(f"run: {out}: a folder of {', '.join(host_class(recorded)) or 'no GPU'}; this host has "
                             f"{', '.join(host_class(devices)) or 'no GPU'}. A results folder holds one kind of host's "
                             "results: run into a fresh --out folder")
    return manifest


def run_plans(plans, out, build, redo=(), devices=None):
    """Runs the jobs of @p plans (plan_study) into @p out, each study's files in out/<study>/, after
    prepare_folder checked the whole folder for all of them; returns the number of failed jobs. A folder that
    cannot be written (read-only, a full disk) stops the run with the file and the error; every file is then as
    it was before the job that could not be committed."""
    out = pathlib.Path(out)
    devices = prov.gpus() if devices is None else devices
    commit, dirty = prov.git_state()
    source = prov.source_state()
    try:
        build_facts = prov.build_info(build)
    except RuntimeError as e:
        raise SystemExit(f"run: {e}") from None
    host = dict(prov.host_cpu(), **prov.host_facts(), gpus=devices, gpu_count=len(devices))
    refuse_unmeasured(host, source, any(j.needs_gpus for p in plans for js in p.jobs.values() for j in js))
    origin = job_origin(commit, dirty, source["source_hash"])
    try:
        manifest = prepare_folder(plans, out, redo, devices, origin)
        for plan in plans:
            for d in load_definitions(plan.study_name, redo) if redo else ():
                manifest.forget(f"{plan.study_name}/{d['name']}", out / plan.study_name)
        failures = 0
        for plan in plans:
            failures += _run_plan(plan, out, manifest, devices, commit, dirty, host, build_facts, origin, source)
        manifest.finish(host, build_facts)
    except OSError as e:
        if not e.filename or not pathlib.Path(e.filename).resolve().is_relative_to(out.resolve()):
            raise  # not the results folder's
        raise SystemExit(f"run: cannot write {e.filename}: {e.strerror or e}. Every file of {out} is as it was before "
                         "the job that could not be recorded; make room (or make the folder writable) and run again "
                         "with the same --out to go on") from None
    return failures


def refuse_unmeasured(host, source, gpu_jobs):
    """Ends the run before any job when the provenance every new .meta.json carries cannot be measured here: the
    host's name, boot id, CPU model and frequency policy, the sources' hash against their commit (a tree without
    .git needs the source manifest tools/source_manifest.py writes), and, for a run with GPU jobs, each GPU's
    UUID and the driver."""
    missing = [k for k in prov.HOST_FIELDS if not (host.get(k) or source.get(k)) or source.get(k) == "unknown"]
    if gpu_jobs and host["gpus"]:
        missing += [f"gpu_uuid of {g['gpu_name']}" for g in host["gpus"] if g.get("gpu_uuid") in (None, "", "unknown")]
        missing += ["driver_version" for g in host["gpus"][:1] if not g.get("driver_version")]
    if missing:
        why = "; ".join(source.get("source_mismatches", [])[:1]) if source.get("source_hash") == "unknown" else ""
        raise SystemExit(f"run: the provenance a recording carries cannot be measured here: {', '.join(missing)}"
                         + (f" ({why}; write it with python3 tools/source_manifest.py where the repository is, "
                            "and carry it with the tree)" if why else ""))


def run_plan(plan, out, build, redo=(), devices=None):
    """Runs the jobs of one study's @p plan (run_plans)."""
    return run_plans([plan], out, build, redo, devices)


def _run_plan(plan, out, manifest, devices, commit, dirty, host, build_facts, origin, source):
    study_name, study, quick = plan.study_name, plan.study, plan.quick
    folder = out / study_name
    folder.mkdir(parents=True, exist_ok=True)
    # The folder being recorded, for a job that reads the files an earlier experiment left there (`after`).
    study.results_folder = folder
    failures = 0
    for d in plan.definitions:
        name = f"{study_name}/{d['name']}"
        jobs = plan.jobs[d["name"]]
        print(f"experiment {name} [{d['kind']}] ({d.get('thesis', '')})", flush=True)
        manifest.plan(name, [j.key for j in jobs])
        sampling = None
        for job in jobs:
            previous = manifest.status(name, job.key)
            if previous == "done":
                print(f"  {job.key}: already done, skipped", flush=True)
                continue
            if job.skip:
                manifest.record(name, job.key, f"skipped: {job.skip}")
                print(f"  {job.key}: skipped ({job.skip})", flush=True)
                continue
            if job.needs_gpus > len(devices):
                manifest.record(name, job.key, f"skipped: needs {job.needs_gpus} GPUs, this host has {len(devices)}")
                print(f"  {job.key}: skipped (needs {job.needs_gpus} GPUs)", flush=True)
                continue
            print(f"  {job.key}: running", flush=True)
            status = "done"
            started = time.monotonic()
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    outputs = job.run(pathlib.Path(tmp)) or {}
                except JobFailed as e:
                    status, outputs = f"verify failed: {e}", getattr(e, "outputs", {})
                except Exception as e:  # a broken job must not stop the sweep; it is recorded
                    status, outputs = f"run failed: {e}", {}
                    traceback.print_exc()
                seconds = time.monotonic() - started
                if outputs and sampling is None:
                    sampling = study.criterion_description(jobs)
                status = _commit_job(manifest, out, study_name, d, job.key, status, seconds, origin, outputs,
                                     lambda rel, listed: meta_json(rel, listed, d, study, jobs, commit, dirty,
                                                                   host, build_facts, quick, sampling, source), commit)
            if status != "done":
                failures += 1
                print(f"  {job.key}: {status}", file=sys.stderr, flush=True)
    return failures


def _commit_job(manifest, out, study_name, d, key, status, seconds, origin, outputs, meta_of, commit):
    """Commits one job (Manifest: staged files, the pending record, the renames, the record); returns its status
    (a verification failure when its rows' columns differ from the file's, whose rows are then not added)."""
    name = f"{study_name}/{d['name']}"
    if not outputs:
        manifest.record(name, key, status, seconds, origin)
        return status
    staged, files = [], {}
    # Files of one stem (a table and its log: gpu_correctness.csv and .log) share one .meta.json, which names them
    # all ("files"), written once.
    sharing = {}
    for fname in outputs:
        sharing.setdefault(meta_file(out / f"{study_name}/{fname}"), []).append(f"{study_name}/{fname}")
    try:
        for fname, part in outputs.items():
            rel = f"{study_name}/{fname}"
            target = out / rel
            listed = manifest.data["files"].get(rel)
            if part.suffix == ".csv":
                content, facts = _table_content(part, target if listed else None, listed or {}, key)
            else:
                content, facts = part.read_bytes(), {}
            facts["sha256"] = hashlib.sha256(content).hexdigest()
            writes = [(target, content)]
            mpath = meta_file(target)
            if sharing[mpath][0] == rel:
                meta = meta_of(rel, target if listed else None)
                if len(sharing[mpath]) > 1:
                    meta = json.dumps(dict(json.loads(meta), files=sharing[mpath]), indent=1) + "\n"
                writes.append((mpath, meta))
            for path, data in writes:
                stage = path.with_name(f".{path.name}{STAGED}")
                write_whole(stage, data)
                staged.append((stage.relative_to(out).as_posix(), path.relative_to(out).as_posix()))
            files[rel] = (d["kind"], commit, facts)
    except JobFailed as e:
        for stage, _ in staged:
            (out / stage).unlink(missing_ok=True)
        status = f"verify failed: {e}"
        manifest.record(name, key, status, seconds, origin)
        return status
    except BaseException:
        for stage, _ in staged:
            (out / stage).unlink(missing_ok=True)
        raise
    pause("between the staged files and the pending record")
    manifest.commit(name, key, status, round(seconds, 1), origin, files, staged)
    return status


def _table_content(part, target, entry, key):
    """The whole new content of the table @p target (None: a new file) once job @p key's rows of @p part are in
    it, and its facts: rows and parts. The job's rows of an earlier try are replaced, not added to."""
    with part.open(newline="") as f:
        new = list(csv.reader(f))
    if not new:
        raise JobFailed(f"{part.name}: no header")
    header, rows = new[0], new[1:]
    parts = [list(p) for p in entry.get("parts", [])]
    old = []
    if target is not None and target.exists():
        with target.open(newline="") as f:
            existing = list(csv.reader(f))
        if existing and existing[0] != header:
            raise JobFailed(f"{target.name}: the new rows' columns differ from the file's")
        old = existing[1:]
        if not parts:
            parts = [[None, len(old)]]  # rows of a runner that did not keep each job's
    kept, at = [], 0
    for job, n in parts:
        if job != key:
            kept.append(((job, n), old[at:at + n]))
        at += n
    body = [r for _, rs in kept for r in rs] + rows
    parts = [list(p) for p, _ in kept] + [[key, len(rows)]]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([header] + body)
    return text.getvalue().encode(), {"rows": len(body), "parts": parts}


def meta_file(result):
    return result.with_name(result.name.rsplit(".", 1)[0] + ".meta.json")


def meta_json(rel, previous, definition, study, jobs, commit, dirty, host, build_facts, quick, sampling, source):
    """The text of the .meta.json of result file @p rel (<study>/<file>): what the file is, the device it ran on,
    the build, the host, git, the commands of @p jobs (the experiment's) and @p sampling, the stop criteria they
    print. @p previous: the listed file whose earlier provenance it continues, or None for a new file."""
    commands = [c for job in jobs for c in job.commands]
    old_path = meta_file(previous) if previous is not None else None
    try:
        old = json.loads(old_path.read_text()) if old_path is not None and old_path.exists() else {}
    except ValueError:
        old = {}
    commits = list(dict.fromkeys((old.get("git_commits") or []) + [commit]))
    # A resumed file keeps the rows of the earlier run: dirty when either run's tree was.
    dirty = dirty or old.get("git_dirty") is True
    meta = {
        "file": rel,
        "experiment": definition["name"], "study": definition["study"], "kind": definition["kind"],
        "thesis": definition.get("thesis", ""), "question": definition.get("question", ""),
        "git_commit": commit, "git_commits": commits, "git_dirty": dirty, "date_utc": prov.now_utc(),
        "command": "python3 experiments/run.py" + (" --quick" if quick else "")
                   + f" --study {definition['study']} --only {definition['name']}",
        "job_commands": commands, "quick": quick, "build": build_facts, "cuda_version": prov.cuda_version(),
        "sampling": sampling if sampling is not None else study.criterion_description(jobs),
    }
    meta.update(host)
    # The sources as measured here (provenance.source_state): a tree whose files differ from the commit's is
    # dirty whatever any state file says.
    meta.update({k: source[k] for k in ("source_hash", "source_hash_expected", "source_files", "source_mismatches",
                                        "source_expected_from")})
    if host["gpus"]:
        g = host["gpus"][0]
        meta.update({k: g[k] for k in ("gpu_name", "driver_version", "gpu_memory", "sm_clock_max")})
        meta["gpu_uuid"] = g.get("gpu_uuid", "unknown")
        meta["gpu_uuids"] = [x.get("gpu_uuid", "unknown") for x in host["gpus"]]
        # What the device reports about itself (provenance.device_facts): the report's peaks come from these.
        meta.update({k: g[k] for k in ("compute_capability", "sm_clock_max_khz", "memory_clock_khz",
                                       "memory_bus_width_bits", "l2_cache_bytes", "memory_bandwidth_gb_s",
                                       "device_facts_source") if k in g})
        # The program's own report of its device, else the device's attribute (a program that cannot list its
        # variants, e.g. without its build's kernel_resources.txt, still leaves the SM count recorded).
        meta["sm_count"] = study.sm_count() or g.get("sm_count")
    if definition.get("emulation"):
        meta["emulation"] = definition["emulation"]
    lacking = [k for k in prov.HOST_FIELDS + (prov.GPU_FIELDS if host["gpus"] else ()) if meta.get(k) in (None, "", [])]
    if lacking:  # never a new .meta.json without the measured provenance (refuse_unmeasured says so earlier)
        raise RuntimeError(f"{rel}: the provenance lacks {', '.join(lacking)}")
    return json.dumps(meta, indent=1) + "\n"
