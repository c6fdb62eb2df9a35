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
import importlib
import json
import pathlib
import shutil
import socket
import sys
import tempfile
import time
import traceback

from . import provenance as prov
from .kinds import DEFINITION_KEYS, REQUIRED, type_errors
from .results import FORMAT
from .results import sha256 as results_sha256

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
    """The definitions of @p study (those in @p only, else all), in file order. With @p kinds (the study's
    declared kinds) each is checked against its kind's inputs and has its defaults filled in (check_definition);
    without, they are read as written (for tools that read only names and what a definition asks of a host)."""
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
    return defs


def check_names(studies, names):
    """Exits with a message when one of @p names is an experiment of none of @p studies."""
    known = {d["name"] for study in studies for d in load_definitions(study)}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"run: unknown experiment(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")


class Manifest:
    """<out>/manifest.json: files, experiments, job statuses; written after every job. Experiments are
    named "<study>/<name>": two studies may each have an experiment of the same name (gpu_correctness)."""

    def __init__(self, out):
        self.path = out / "manifest.json"
        self.data = json.loads(self.path.read_text()) if self.path.exists() else {"files": {}, "experiments": {}}
        # Folders written before experiments were named with their study: a bare name takes the study of
        # the files it wrote (the first folder of their paths), or the first study, mwsep.
        study_of = {e["experiment"]: rel.split("/")[0] for rel, e in self.data["files"].items()}
        self.data["experiments"] = {qualified(name, study_of.get(name, "mwsep")): e
                                    for name, e in self.data["experiments"].items()}
        for rel, entry in self.data["files"].items():
            entry["experiment"] = qualified(entry["experiment"], rel.split("/")[0])

    def status(self, experiment, key):
        return self.data["experiments"].get(experiment, {}).get("jobs", {}).get(key)

    def record(self, experiment, key, status, seconds=None, origin=None):
        """A job's status; @p seconds, the wall time of a job that ran, goes to the experiment's "seconds"
        (read by experiments/reproduce_check.py for its time estimate); @p origin, where it ran (job_origin),
        to its "origins", which decide whether a later run may resume beside it (resume_refusals)."""
        entry = self.data["experiments"].setdefault(experiment, {"jobs": {}})
        entry["jobs"][key] = status
        if seconds is not None:
            entry.setdefault("seconds", {})[key] = round(seconds, 1)
        if origin is not None:
            entry.setdefault("origins", {})[key] = origin
        self.save()

    def add_file(self, relpath, experiment, kind, commit, path=None):
        """Lists @p relpath with its experiment, kind and commit; with @p path (the file as written), its SHA-256
        and, for a table, its rows, which the results layer checks before it reads the file."""
        entry = self.data["files"].setdefault(relpath, {"experiment": experiment, "kind": kind, "commits": []})
        if commit not in entry["commits"]:
            entry["commits"].append(commit)
        if path is not None:
            entry["sha256"] = results_sha256(path)
            if path.suffix == ".csv":
                with path.open(newline="") as f:
                    entry["rows"] = max(0, sum(1 for _ in csv.reader(f)) - 1)
        self.save()

    def finish(self, host, build):
        for name, e in self.data["experiments"].items():
            e["status"] = experiment_status(e["jobs"].values())
        for rel, entry in self.data["files"].items():
            entry["status"] = self.data["experiments"].get(entry["experiment"], {}).get("status", "unknown")
        # gpu_count: the host's GPUs; single- and multi-GPU results of one host share its folder.
        self.data.update({"host": host, "build": build, "gpu_count": host.get("gpu_count", 0)})
        # The stop criteria are each file's (its .meta.json), as its jobs' commands print them.
        self.data.pop("sampling", None)
        self.save()

    def forget(self, experiment, folder):
        """Drops an experiment's job statuses and files, so that the next run records it anew."""
        self.data["experiments"].pop(experiment, None)
        for rel in [r for r, e in self.data["files"].items() if e["experiment"] == experiment]:
            for path in (folder.parent / rel, folder.parent / (rel.rsplit(".", 1)[0] + ".meta.json")):
                path.unlink(missing_ok=True)
            del self.data["files"][rel]
        self.save()

    def save(self):
        self.data["format"] = FORMAT
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True) + "\n")
        tmp.replace(self.path)


def job_origin(commit, dirty):
    """Where a job runs: the host name and, on Linux, the kernel's boot id, which is new on every boot, so two
    machines never share one (as they may share a host name or a container image's machine id); and the commit."""
    origin = {"hostname": socket.gethostname(), "commit": commit, "dirty": dirty}
    try:
        origin["boot_id"] = pathlib.Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        pass
    return origin


def same_host(a, b):
    return all(a.get(k) == b.get(k) for k in ("hostname", "boot_id"))


def host_of(origin):
    """A job_origin's host as the refusals name it."""
    return f"host {origin.get('hostname')} (boot id {origin.get('boot_id', 'unknown')})"


def resume_refusals(manifest, experiments, origin):
    """One line for each of @p experiments that this run cannot resume: jobs whose rows its file keeps (done, or
    failed verification) ran on another host or before that host's last boot, or were recorded by a runner that
    did not keep where a job ran. Resumed, such an experiment's file would hold rows of two hosts under the
    provenance of one."""
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


def append_csv(part, target):
    rows = list(csv.reader(part.open()))
    if not rows:
        return 0
    if target.exists():
        header = next(csv.reader(target.open()))
        if header != rows[0]:
            raise JobFailed(f"{target.name}: the new rows' columns differ from the file's")
        rows = rows[1:]
    with target.open("a", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return len(rows)


class Plan:
    """One study's run, made and checked before any job of any study runs: its definitions (checked against
    their kinds' inputs) and every experiment's jobs."""

    def __init__(self, study_name, study, definitions, jobs, quick):
        self.study_name, self.study, self.definitions, self.jobs, self.quick = study_name, study, definitions, jobs, quick


def plan_study(study_name, build, only=(), quick=False, options=None, devices=None):
    """The Plan of @p study_name: its module's Study, its definitions checked (check_definition) and the jobs of
    each. Needs no GPU, no build and no results folder (`experiments/run.py --list` prints it); a definition whose
    jobs cannot be made ends the command with its file and why."""
    study_mod = importlib.import_module(f"studies.{study_name}")
    study = study_mod.Study(build=pathlib.Path(build), quick=quick, devices=devices or [], options=options or {})
    kinds = study.kinds() if hasattr(study, "kinds") else None
    definitions = load_definitions(study_name, only, kinds, quick)
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
    return run_plan(plan, out, build, redo, devices)


def run_plan(plan, out, build, redo=(), devices=None):
    """Runs the jobs of @p plan (plan_study) into out/<study>/; returns the number of failed jobs."""
    study_name, study, definitions, quick = plan.study_name, plan.study, plan.definitions, plan.quick
    devices = prov.gpus() if devices is None else devices
    commit, dirty = prov.git_state()
    build_facts = prov.build_info(build)
    host = dict(prov.host_cpu(), gpus=devices, gpu_count=len(devices))
    folder = out / study_name
    folder.mkdir(parents=True, exist_ok=True)
    manifest = Manifest(out)
    # Both refusals come before --redo drops any file: a refused run leaves the folder as it was.
    origin = job_origin(commit, dirty)
    refusals = resume_refusals(manifest, [f"{study_name}/{d['name']}" for d in definitions if d["name"] not in redo],
                               origin)
    if refusals:
        raise SystemExit(f"run: {out}: jobs this run cannot resume beside (a result file's rows come from one "
                         f"host): " + "; ".join(refusals) + ". Record them anew with --redo <experiment>, or run "
                         f"into a fresh --out folder")
    for d in load_definitions(study_name, redo) if redo else ():
        manifest.forget(f"{study_name}/{d['name']}", folder)
    failures = 0
    for d in definitions:
        name = f"{study_name}/{d['name']}"
        print(f"experiment {name} [{d['kind']}] ({d.get('thesis', '')})", flush=True)
        produced = set()
        ran_any = False
        for job in plan.jobs[d["name"]]:
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
                for fname, part in outputs.items():
                    target = folder / fname
                    if part.suffix == ".csv":
                        append_csv(part, target)
                    else:
                        shutil.copyfile(part, target)
                    produced.add(fname)
                    manifest.add_file(f"{study_name}/{fname}", name, d["kind"], commit, target)
            ran_any = True
            if status != "done":
                failures += 1
                print(f"  {job.key}: {status}", file=sys.stderr, flush=True)
            manifest.record(name, job.key, status, time.monotonic() - started, origin)
        if ran_any:
            for fname in produced:
                write_meta(folder / fname, d, study, plan.jobs[d["name"]], commit, dirty, host, build_facts, quick)
    manifest.finish(host, build_facts)
    return failures


def write_meta(result, definition, study, jobs, commit, dirty, host, build_facts, quick):
    """<result>.meta.json: what the file is, the device it ran on, the build, the host, git, the commands of
    @p jobs (the experiment's) and the stop criteria they print."""
    commands = [c for job in jobs for c in job.commands]
    meta_path = result.parent / (result.name.rsplit(".", 1)[0] + ".meta.json")
    old = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    commits = list(dict.fromkeys((old.get("git_commits") or []) + [commit]))
    # A resumed file keeps the rows of the earlier run: dirty when either run's tree was.
    dirty = dirty or old.get("git_dirty") is True
    meta = {
        "file": f"{definition['study']}/{result.name}",
        "experiment": definition["name"], "study": definition["study"], "kind": definition["kind"],
        "thesis": definition.get("thesis", ""), "question": definition.get("question", ""),
        "git_commit": commit, "git_commits": commits, "git_dirty": dirty, "date_utc": prov.now_utc(),
        "command": "python3 experiments/run.py" + (" --quick" if quick else "")
                   + f" --study {definition['study']} --only {definition['name']}",
        "job_commands": commands, "quick": quick, "build": build_facts, "cuda_version": prov.cuda_version(),
        "sampling": study.criterion_description(jobs),
    }
    meta.update(host)
    if host["gpus"]:
        g = host["gpus"][0]
        meta.update({k: g[k] for k in ("gpu_name", "driver_version", "gpu_memory", "sm_clock_max")})
        # What the device reports about itself (provenance.device_facts): the report's peaks come from these.
        meta.update({k: g[k] for k in ("compute_capability", "sm_clock_max_khz", "memory_clock_khz",
                                       "memory_bus_width_bits", "l2_cache_bytes", "memory_bandwidth_gb_s",
                                       "device_facts_source") if k in g})
        meta["sm_count"] = study.sm_count()
    if definition.get("emulation"):
        meta["emulation"] = definition["emulation"]
    tmp = meta_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(meta, indent=1) + "\n")
    tmp.replace(meta_path)
