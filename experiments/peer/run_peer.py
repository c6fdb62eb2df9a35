#!/usr/bin/env python3
"""Runs the public MilkyWay@Home separation application (the "peer") on one work unit and records its raw
output, the times and results it prints, and provenance.

    python3 experiments/peer/run_peer.py --peer PATH_TO_BINARY --lib DIR_WITH_libOpenCL \\
        --work-unit NAME --astronomy FILE --stars FILE --repeats N --flags best|default \\
        --csv OUT.csv --raw-dir DIR [--meta OUT.meta.json]

The peer is not part of the project: the binary is given by path (docs/peer.md says how to build it from
its public source). --astronomy is a file in the peer's format (experiments/peer/convert_workunit.py
writes one from our work units); --lib is the folder of the OpenCL loader libOpenCL.so.1 the peer is run
with.

What the script does:
- It gives the peer the NVIDIA OpenCL platform alone. It finds libnvidia-opencl.so.1 with `ldconfig -p`,
  writes its path into nvidia.icd in an otherwise empty temporary folder, and runs the peer with
  OCL_ICD_VENDORS set to that folder, LD_LIBRARY_PATH set to --lib and OCL_ICD_FILENAMES unset. (A GPU
  machine may register a CPU platform first, and the peer takes the first platform.)
- It runs `PEER -a ASTRONOMY -s STARS [flags]` N times, each in a new empty folder: the peer writes a
  checkpoint file into its working folder and a second run there resumes from it and skips the integral.
  Flags `best` are `--non-responsive --gpu-polling-mode=-1`; `default` passes none (the peer then sleeps
  between kernel launches).
- It saves each run's standard output and standard error, merged as they arrive, to
  DIR/<work unit>.<flags>.<UTC time>.r<repeat>.txt, before looking at it. The peer prints nearly
  everything on standard error; its checkpoint messages go to standard output, which is buffered, so they
  may appear late in the file.
- It refuses a run whose output does not name the OpenCL device as an NVIDIA GPU (vendor or name "NVIDIA",
  type CL_DEVICE_TYPE_GPU); a run that exits non-zero, times out, resumed from a checkpoint, reports a
  non-finite result or lacks any of the lines below fails. Either stops the script with a non-zero status
  after the raw output is saved; the CSV then gets no row of that invocation (rows are appended only when
  every repeat passed), so a group of repeats is recorded whole or not at all.
- From each run's output it reads the lines the peer prints (their shapes are those of its source at
  commit 7ddbdd25, see docs/peer.md):
      Device '<name>' (<vendor>:0x<id>) (<device type>)
      Integration time: <s> s. Average time per iteration = <ms> ms     (one per integration area)
      Integral <i> time = <s> s                                          (one per integration area)
      Likelihood time = <s> s
      <background_integral> <v> </background_integral>
      <stream_integral>  <v>  <v> ... </stream_integral>
      <background_likelihood> <v> </background_likelihood>
      <stream_only_likelihood>  <v>  <v> ... </stream_only_likelihood>
      <search_likelihood> <v> </search_likelihood>
  and writes one CSV row per run (columns below). The peer's integrals lack the factor 1.8 (= 3 x 0.6) of
  ours; the columns *_x1_8 hold its integrals multiplied by 1.8, so they compare with ours directly. The
  raw output keeps the values as printed.
- Rows are appended to --csv (the header is written when the file is new; an existing file with other
  columns is refused before anything runs). --meta (default: the CSV's name with .meta.json) gets the
  provenance: the peer binary's path and sha256, its version line as `--version` prints it, the GPUs and
  driver from nvidia-smi, the OpenCL device and driver the peer reports, the date, host CPU, the project's
  git commit, this command line, and one entry per invocation with its work unit, flags, input files
  (with sha256) and raw output files (relative to the meta file's folder). A meta file written for another
  peer binary or GPU model is refused.

Exit status: 0 when every repeat was recorded, 1 when a run failed or was refused, 2 when the arguments or
the machine's set-up are unusable (nothing ran).
"""
import argparse
import csv
import datetime
import hashlib
import json
import os
import pathlib
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments.peer import convert_workunit  # noqa: E402

EXPERIMENT = "peer"
FLAGS = {"best": ["--non-responsive", "--gpu-polling-mode=-1"], "default": []}
INTEGRAL_SCALE = 1.8          # the peer's integrals times this are ours
TIMEOUT_S = 1800              # a run on the GPU takes seconds; on a CPU OpenCL platform about 100 s
VENDOR_LIBRARY = "libnvidia-opencl.so.1"
LOADER = "libOpenCL.so.1"

COLUMNS = {
    "experiment": "always 'peer'",
    "work_unit": "the --work-unit name",
    "flags": "'best' (--non-responsive --gpu-polling-mode=-1) or 'default' (no flags)",
    "repeat": "0-based index of the run within its invocation",
    "integration_s": "sum of the peer's 'Integration time' lines: its own timing of the integral kernels' launches",
    "likelihood_s": "the peer's 'Likelihood time' (the likelihood runs on the CPU, one thread)",
    "process_s": "wall time of the whole peer process, measured by this script",
    "likelihood": "the peer's <search_likelihood>",
    "background_integral_x1_8": "the peer's <background_integral> multiplied by 1.8 (our convention)",
    "stream_integrals_x1_8": "the peer's <stream_integral> values multiplied by 1.8, separated by ';'",
    "device": "the OpenCL device name the peer reports",
    "background_likelihood": "the peer's <background_likelihood>",
    "stream_only_likelihoods": "the peer's <stream_only_likelihood> values, separated by ';'",
    "integral_wall_s": "sum of the peer's 'Integral <i> time' lines (the integration plus reading back its sums)",
    "raw_output": "the run's raw output file, relative to the CSV's folder",
}


class ParseError(ValueError):
    """The peer's output lacks a line, has it twice, or holds a value that is not a finite number."""


class Refused(RuntimeError):
    """The run did not use an NVIDIA GPU: its numbers are not the peer's GPU numbers."""


class RunFailed(RuntimeError):
    """The run exited non-zero, timed out or its results do not fit the work unit."""


# The output lines read, in the shapes the peer prints them (mw_printf to standard error).
RE_DEVICE = re.compile(r"Device '(?P<name>.*)' \((?P<vendor>.*):0x(?P<vendor_id>[0-9a-fA-F]+)\) "
                       r"\((?P<type>CL_DEVICE_TYPE_[A-Z_]+)\)")
RE_DRIVER = re.compile(r"Driver version:\s+(?P<v>.*)")
RE_CL_VERSION = re.compile(r"Version:\s+(?P<v>.*)")
RE_INTEGRATION = re.compile(r"Integration time: (?P<s>\S+) s\. Average time per iteration = (?P<ms>\S+) ms")
RE_INTEGRAL = re.compile(r"Integral (?P<i>\d+) time = (?P<s>\S+) s")
RE_LIKELIHOOD_TIME = re.compile(r"Likelihood time = (?P<s>\S+) s")
TAGS = ("background_integral", "stream_integral", "background_likelihood", "stream_only_likelihood",
        "search_likelihood")
# The peer found a checkpoint file and resumed from it (printed on standard output after a clock time, "HH:MM:SS: ").
RESUMED = "Checkpoint exists. Attempting to resume from it"
NON_FINITE = "Non-finite result"        # the peer replaces a non-finite likelihood by -999
FAILED_LIKELIHOOD = -999.0


def _number(text, what):
    try:
        x = float(text)
    except ValueError:
        raise ParseError(f"{what}: {text!r} is not a number") from None
    if x != x or x in (float("inf"), float("-inf")):
        raise ParseError(f"{what}: {text!r} is not finite")
    return x


def _lines(text):
    return [line.strip() for line in text.splitlines()]


def _matches(lines, regex):
    return [m for m in (regex.fullmatch(line) for line in lines) if m]


def _one(lines, regex, what):
    found = _matches(lines, regex)
    if len(found) != 1:
        raise ParseError(f"expected one '{what}' line in the peer's output, found {len(found)}")
    return found[0]


def parse_device(text):
    """The OpenCL device line: {'name', 'vendor', 'vendor_id', 'type'}; ParseError if none or several differ."""
    found = {tuple(sorted(m.groupdict().items())) for m in _matches(_lines(text), RE_DEVICE)}
    if not found:
        raise ParseError("no \"Device '<name>' (<vendor>:0x<id>) (<type>)\" line in the peer's output")
    if len(found) > 1:
        raise ParseError(f"the peer's output names {len(found)} different devices")
    return dict(found.pop())


def check_device(text):
    """Raises Refused unless the output names an NVIDIA device of type CL_DEVICE_TYPE_GPU; returns the device."""
    try:
        device = parse_device(text)
    except ParseError as e:
        raise Refused(f"the run does not show which OpenCL device it used ({e})") from None
    nvidia = "NVIDIA" in device["vendor"].upper() or "NVIDIA" in device["name"].upper()
    if not nvidia or device["type"] != "CL_DEVICE_TYPE_GPU":
        raise Refused(f"the run used device '{device['name']}' of vendor '{device['vendor']}' "
                      f"({device['type']}), not an NVIDIA CL_DEVICE_TYPE_GPU")
    return device


def parse_output(text):
    """Reads the times, integrals and likelihoods of one run of the peer. Raises ParseError if a line is
    missing or doubled, a value is not a finite number, the run resumed from a checkpoint, or the peer
    reported a non-finite result."""
    lines = _lines(text)
    if any(RESUMED in line for line in lines):
        raise ParseError("the run resumed from a checkpoint file (it was not started in an empty folder)")
    if any(NON_FINITE in line for line in lines):
        raise ParseError("the peer reported a non-finite result")
    out = {"device": parse_device(text)}
    # The device's driver and OpenCL version follow its line (the platform's own 'Version:' comes before).
    after = lines[next(i for i, line in enumerate(lines) if RE_DEVICE.fullmatch(line)):]
    driver = _matches(after, RE_DRIVER)
    out["opencl_driver_version"] = driver[0]["v"] if driver else None
    version = _matches(after, RE_CL_VERSION)
    out["opencl_device_version"] = version[0]["v"] if version else None

    integrations = _matches(lines, RE_INTEGRATION)
    integrals = _matches(lines, RE_INTEGRAL)
    if not integrations:
        raise ParseError("no 'Integration time' line in the peer's output")
    if len(integrals) != len(integrations):
        raise ParseError(f"{len(integrations)} 'Integration time' lines but {len(integrals)} 'Integral <i> time' lines")
    if [int(m["i"]) for m in integrals] != list(range(len(integrals))):
        raise ParseError("the 'Integral <i> time' lines are not numbered 0, 1, ...")
    out["integration_s"] = sum(_number(m["s"], "Integration time") for m in integrations)
    out["integral_wall_s"] = sum(_number(m["s"], "Integral time") for m in integrals)
    out["likelihood_s"] = _number(_one(lines, RE_LIKELIHOOD_TIME, "Likelihood time")["s"], "Likelihood time")

    for tag in TAGS:
        m = _one(lines, re.compile(rf"<{tag}>(?P<v>.*)</{tag}>"), f"<{tag}>")
        fields = m["v"].split()
        if tag in ("stream_integral", "stream_only_likelihood"):
            out[tag] = [_number(f, f"<{tag}>") for f in fields]
        else:
            if len(fields) != 1:
                raise ParseError(f"<{tag}> holds {len(fields)} values, expected one")
            out[tag] = _number(fields[0], f"<{tag}>")
    if len(out["stream_integral"]) != len(out["stream_only_likelihood"]):
        raise ParseError("different numbers of stream integrals and stream-only likelihoods")
    if out["search_likelihood"] == FAILED_LIKELIHOOD:
        raise ParseError("the peer's likelihood is -999, its mark of a failed evaluation")
    return out


def find_vendor_library(ldconfig_output, machine=None):
    """The path of libnvidia-opencl.so.1 in `ldconfig -p` output (the entry of this machine's architecture
    first), or None."""
    machine = machine or platform.machine()
    entries = []
    for line in ldconfig_output.splitlines():
        m = re.fullmatch(r"\s*" + re.escape(VENDOR_LIBRARY) + r" \((?P<arch>[^)]*)\) => (?P<path>\S+)\s*", line)
        if m:
            entries.append((m["arch"], m["path"]))
    if not entries:
        return None
    wanted = {"x86_64": "x86-64", "aarch64": "AArch64"}.get(machine)
    for arch, path in entries:
        if wanted and wanted in arch:
            return path
    return entries[0][1]


def ldconfig_listing():
    exe = shutil.which("ldconfig") or next((p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig")
                                            if os.access(p, os.X_OK)), None)
    if not exe:
        return None, "ldconfig not found"
    r = subprocess.run([exe, "-p"], capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"'{exe} -p' failed: {r.stderr.strip()}"
    return r.stdout, exe


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def nvidia_smi():
    if not shutil.which("nvidia-smi"):
        return None
    r = subprocess.run(["nvidia-smi", "--query-gpu=index,name,driver_version,pci.bus_id",
                        "--format=csv,noheader"], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    gpus = []
    for line in r.stdout.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 4:
            gpus.append(dict(zip(("index", "name", "driver_version", "pci_bus_id"), parts)))
    return gpus


def host_cpu():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_state():
    """The project's commit; MWSEP_GIT_STATE names a file of git_commit=/git_dirty= lines where the tree
    has no .git (the GPU machine's copy)."""
    explicit = os.environ.get("MWSEP_GIT_STATE")
    if explicit and pathlib.Path(explicit).exists():
        kv = dict(l.split("=", 1) for l in pathlib.Path(explicit).read_text().split() if "=" in l)
        return kv.get("git_commit", "unknown"), kv.get("git_dirty") == "true"
    try:
        r = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
        if r.returncode != 0:
            return "unknown", None
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
    except OSError:             # no git on this machine
        return "unknown", None
    return r.stdout.strip(), bool(dirty)


def peer_environment(vendors_dir, lib_dir):
    env = dict(os.environ)
    env["OCL_ICD_VENDORS"] = str(vendors_dir)
    env["LD_LIBRARY_PATH"] = str(lib_dir)
    env.pop("OCL_ICD_FILENAMES", None)
    return env


def check_csv_header(path):
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open(newline="") as f:
        header = next(csv.reader(f), [])
    if header != list(COLUMNS):
        raise SystemExit(f"run_peer: {path} has the columns {header}, not {list(COLUMNS)}; "
                         "write to another file or move the old one away")


def append_rows(path, rows):
    new = not path.exists() or path.stat().st_size == 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        if new:
            w.writerow(list(COLUMNS))
        for row in rows:
            w.writerow([row[c] for c in COLUMNS])


def row_of(args, repeat, parsed, process_s, raw_rel):
    join = lambda xs: ";".join(repr(x) for x in xs)  # noqa: E731
    return {
        "experiment": EXPERIMENT,
        "work_unit": args.work_unit,
        "flags": args.flags,
        "repeat": repeat,
        "integration_s": repr(parsed["integration_s"]),
        "likelihood_s": repr(parsed["likelihood_s"]),
        "process_s": repr(round(process_s, 6)),
        "likelihood": repr(parsed["search_likelihood"]),
        "background_integral_x1_8": repr(parsed["background_integral"] * INTEGRAL_SCALE),
        "stream_integrals_x1_8": join(x * INTEGRAL_SCALE for x in parsed["stream_integral"]),
        "device": parsed["device"]["name"],
        "background_likelihood": repr(parsed["background_likelihood"]),
        "stream_only_likelihoods": join(parsed["stream_only_likelihood"]),
        "integral_wall_s": repr(parsed["integral_wall_s"]),
        "raw_output": raw_rel,
    }


def judge_run(text, returncode, timed_out, streams):
    """Refuses or fails one run from its output (device first: a run on a CPU may well exit 0)."""
    device = check_device(text)
    if timed_out:
        raise RunFailed(f"the peer ran longer than {TIMEOUT_S} s and was stopped")
    if returncode != 0:
        raise RunFailed(f"the peer exited with status {returncode}")
    try:
        parsed = parse_output(text)
    except ParseError as e:
        raise RunFailed(str(e)) from None
    if len(parsed["stream_integral"]) != streams:
        raise RunFailed(f"the peer printed {len(parsed['stream_integral'])} stream integrals; "
                        f"the work unit has {streams} streams")
    parsed["device"] = device
    return parsed


def read_work_unit(path):
    """Checks that the astronomy file is in the peer's format with the pure halo; returns its stream count."""
    try:
        v = convert_workunit.read_peer(path.read_text(), str(path))
    except (OSError, convert_workunit.FormatError) as e:
        raise SystemExit(f"run_peer: --astronomy {path}: not readable as the peer's format: {e}")
    if v["optimize_background_weight"] is None or v["background_weight"] != 1.0:
        raise SystemExit(f"run_peer: --astronomy {path}: background_weight = {v['background_weight']} without the "
                         "peer's background-weight lines; is it a 2009-format file? Convert it with "
                         "experiments/peer/convert_workunit.py (the peer reads the line as the halo fraction, "
                         "1.0 for our model)")
    return v["number_streams"][0]


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def write_meta(path, args, peer_sha, version_output, vendor_library, device_info, raw_files, started, command, gpus):
    old = json.loads(path.read_text()) if path.exists() else {}
    commit, dirty = git_state()
    meta = dict(old)
    meta.update({
        "experiment": EXPERIMENT,
        "about": "The public MilkyWay@Home separation application run on our work units in the peer's format; "
                 "its raw output is in the raw-output files named by each row. Integrals in the CSV are the "
                 "peer's multiplied by 1.8 (our convention); see docs/peer.md for the differences of its model.",
        "peer_binary": str(pathlib.Path(args.peer).resolve()),
        "peer_sha256": peer_sha,
        "peer_version": version_output.splitlines()[0] if version_output else None,
        "peer_version_output": version_output,
        "gpus": gpus,
        "gpu_name": gpus[0]["name"] if gpus else None,
        "driver_version": gpus[0]["driver_version"] if gpus else None,
        "opencl_device": device_info["device"]["name"],
        "opencl_device_vendor": device_info["device"]["vendor"],
        "opencl_driver_version": device_info["opencl_driver_version"],
        "opencl_device_version": device_info["opencl_device_version"],
        "opencl_vendor_library": vendor_library,
        "opencl_loader": str((pathlib.Path(args.lib) / LOADER).resolve()),
        "opencl_loader_sha256": sha256(pathlib.Path(args.lib) / LOADER),
        "environment": {"OCL_ICD_VENDORS": "a new folder holding only nvidia.icd, which names opencl_vendor_library",
                        "LD_LIBRARY_PATH": str(pathlib.Path(args.lib).resolve()),
                        "OCL_ICD_FILENAMES": "unset"},
        "date_utc": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host_cpu": host_cpu(),
        "git_commit": commit,
        "git_dirty": dirty,
        "command": command,
        "integral_scale": INTEGRAL_SCALE,
        "columns": COLUMNS,
    })
    if gpus is None:
        meta["gpus_note"] = "nvidia-smi was not found or failed on this machine"
    else:
        meta.pop("gpus_note", None)
    meta["runs"] = old.get("runs", []) + [{
        "work_unit": args.work_unit,
        "flags": args.flags,
        "peer_arguments": FLAGS[args.flags],
        "repeats": args.repeats,
        "astronomy": str(pathlib.Path(args.astronomy).resolve()),
        "astronomy_sha256": sha256(args.astronomy),
        "stars": str(pathlib.Path(args.stars).resolve()),
        "stars_sha256": sha256(args.stars),
        "date_utc": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command,
        "raw_outputs": raw_files,
    }]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(meta, indent=1) + "\n")


def check_meta(path, peer_sha, gpus):
    """Refuses to add to a provenance file of another peer binary or another GPU model."""
    if not path.exists():
        return
    try:
        old = json.loads(path.read_text())
    except ValueError as e:
        raise SystemExit(f"run_peer: {path} is not JSON: {e}")
    if old.get("peer_sha256") not in (None, peer_sha):
        raise SystemExit(f"run_peer: {path} records another peer binary (sha256 {old['peer_sha256']}); "
                         "write the results of this one to another CSV")
    gpu = gpus[0]["name"] if gpus else None
    if old.get("gpu_name") and gpu and old["gpu_name"] != gpu:
        raise SystemExit(f"run_peer: {path} records GPU {old['gpu_name']}, this machine has {gpu}; "
                         "write to another CSV")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--peer", required=True, help="the peer's binary (milkyway_separation)")
    p.add_argument("--lib", required=True, help=f"folder holding the OpenCL loader {LOADER}")
    p.add_argument("--work-unit", required=True, help="the work unit's name, for the CSV and file names")
    p.add_argument("--astronomy", required=True, help="astronomy parameters in the peer's format")
    p.add_argument("--stars", required=True, help="star catalogue")
    p.add_argument("--repeats", required=True, type=int, help="number of runs")
    p.add_argument("--flags", required=True, choices=sorted(FLAGS), help="the peer's flags: best or default")
    p.add_argument("--csv", required=True, help="CSV to append rows to")
    p.add_argument("--raw-dir", required=True, help="folder for the raw output of every run")
    p.add_argument("--meta", help="provenance file (default: the CSV's name with .meta.json)")
    return p.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    command = shlex.join(["python3", "experiments/peer/run_peer.py", *argv])
    peer = pathlib.Path(args.peer)
    lib = pathlib.Path(args.lib)
    csv_path = pathlib.Path(args.csv)
    meta_path = pathlib.Path(args.meta) if args.meta else csv_path.with_name(csv_path.stem + ".meta.json")
    raw_dir = pathlib.Path(args.raw_dir)
    try:
        if not (peer.is_file() and os.access(peer, os.X_OK)):
            raise SystemExit(f"run_peer: --peer {peer}: not an executable file")
        if not (lib / LOADER).exists():
            raise SystemExit(f"run_peer: --lib {lib}: holds no {LOADER}")
        for name in ("astronomy", "stars"):
            if not pathlib.Path(getattr(args, name)).is_file():
                raise SystemExit(f"run_peer: --{name} {getattr(args, name)}: no such file")
        if args.repeats < 1:
            raise SystemExit("run_peer: --repeats must be at least 1")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", args.work_unit):
            raise SystemExit(f"run_peer: --work-unit {args.work_unit!r}: use letters, digits, '.', '_' and '-'")
        streams = read_work_unit(pathlib.Path(args.astronomy))
        check_csv_header(csv_path)
        peer_sha = sha256(peer)
        gpus = nvidia_smi()
        check_meta(meta_path, peer_sha, gpus)
        listing, where = ldconfig_listing()
        vendor_library = find_vendor_library(listing) if listing is not None else None
        if not vendor_library:
            raise SystemExit(f"run_peer: REFUSED: no {VENDOR_LIBRARY} found ({where}); without the NVIDIA OpenCL "
                             "driver the peer would not run on an NVIDIA GPU")
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2

    astronomy = str(pathlib.Path(args.astronomy).resolve())
    stars = str(pathlib.Path(args.stars).resolve())
    raw_dir.mkdir(parents=True, exist_ok=True)
    started = utc_now()
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    rows, raw_files, first = [], [], None
    with tempfile.TemporaryDirectory(prefix="mwsep-peer-") as tmp:
        tmp = pathlib.Path(tmp)
        vendors = tmp / "vendors"
        vendors.mkdir()
        (vendors / "nvidia.icd").write_text(vendor_library + "\n")
        env = peer_environment(vendors, lib.resolve())
        version_dir = tmp / "version"
        version_dir.mkdir()
        try:
            v = subprocess.run([str(peer.resolve()), "--version"], cwd=version_dir, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        except subprocess.TimeoutExpired:
            print(f"run_peer: FAILED: '{peer} --version' did not finish in 120 s", file=sys.stderr)
            return 1
        version_output = v.stdout.decode("utf-8", "replace")
        if v.returncode != 0 or not version_output.strip():
            print(f"run_peer: FAILED: '{peer} --version' exited with status {v.returncode}:\n{version_output}",
                  file=sys.stderr)
            return 1
        print(f"run_peer: {version_output.splitlines()[0].strip()}; OpenCL vendor library {vendor_library}")

        for k in range(args.repeats):
            run_dir = tmp / f"run-{k}"
            run_dir.mkdir()
            if any(run_dir.iterdir()):
                print(f"run_peer: FAILED: {run_dir} is not empty", file=sys.stderr)
                return 1
            cmd = [str(peer.resolve()), "-a", astronomy, "-s", stars, *FLAGS[args.flags]]
            timed_out = False
            t0 = time.perf_counter()
            try:
                p = subprocess.run(cmd, cwd=run_dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   timeout=TIMEOUT_S)
                output, returncode = p.stdout, p.returncode
            except subprocess.TimeoutExpired as e:
                output, returncode, timed_out = e.output or b"", None, True
            process_s = time.perf_counter() - t0
            raw = raw_dir / f"{args.work_unit}.{args.flags}.{stamp}.r{k}.txt"
            try:
                with raw.open("xb") as f:
                    f.write(output)
            except FileExistsError:
                print(f"run_peer: FAILED: {raw} exists already; not overwritten", file=sys.stderr)
                return 1
            raw_files.append(os.path.relpath(raw.resolve(), meta_path.resolve().parent))
            text = output.decode("utf-8", "replace")
            try:
                parsed = judge_run(text, returncode, timed_out, streams)
            except Refused as e:
                print(f"run_peer: REFUSED {args.work_unit} {args.flags} repeat {k}: {e}. Raw output: {raw}",
                      file=sys.stderr)
                return 1
            except RunFailed as e:
                print(f"run_peer: FAILED {args.work_unit} {args.flags} repeat {k}: {e}. Raw output: {raw}",
                      file=sys.stderr)
                return 1
            first = first or parsed
            raw_rel = os.path.relpath(raw.resolve(), csv_path.resolve().parent)
            rows.append(row_of(args, k, parsed, process_s, raw_rel))
            print(f"run_peer: {args.work_unit} {args.flags} repeat {k}: integration {parsed['integration_s']:.6f} s, "
                  f"likelihood {parsed['likelihood_s']:.6f} s, process {process_s:.3f} s, "
                  f"device '{parsed['device']['name']}'")

    append_rows(csv_path, rows)
    write_meta(meta_path, args, peer_sha, version_output, vendor_library, first, raw_files, started, command, gpus)
    print(f"run_peer: {len(rows)} rows appended to {csv_path}; provenance in {meta_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
