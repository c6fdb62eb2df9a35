"""Provenance read from the build, the device, the host and the source files: nothing here is typed by hand.

The source state (source_state) is measured on the measuring host from the files themselves: the git blob id of
every tracked source file as it is on disk (`git hash-object`, computed here), against the blob ids the commit
records for the same files (`git ls-tree` at the commit, or, in a copy without .git such as a `git archive`
export, the source manifest `tools/source_manifest.py` wrote into it). A file that differs, or is missing,
makes the tree dirty, whatever any state file says; the hash of the files as measured and of the files as the
commit has them are both recorded, so that anyone with the repository can check the second against the commit.
"""
import ctypes
import hashlib
import socket
import ctypes.util
import datetime
import json
import os
import pathlib
import platform
import re
import shutil
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=False, text=True, capture_output=True, **kw)


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def gpu_uuids():
    """The UUIDs of the host's GPUs in nvidia-smi's order ([] where it reports none)."""
    r = sh(["nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader"]) if shutil.which("nvidia-smi") else None
    if r is None or r.returncode != 0:
        return []
    return [line.strip() for line in r.stdout.splitlines() if line.strip()]


def gpus():
    """The host's NVIDIA GPUs as dicts (name, driver, memory, max SM clock, UUID, and what the device itself
    reports: device_facts), [] without one."""
    if not shutil.which("nvidia-smi"):
        return []
    r = sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,pci.bus_id,compute_cap,clocks.max.memory",
            "--format=csv,noheader"])
    if r.returncode != 0:
        r = sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,pci.bus_id", "--format=csv,noheader"])
        if r.returncode != 0:
            return []
    out = []
    uuids = gpu_uuids()
    for index, line in enumerate(r.stdout.strip().splitlines()):
        fields = [f.strip() for f in line.split(",")]
        name, driver, memory, max_sm, bus = fields[:5]
        g = {"gpu_name": name, "driver_version": driver, "gpu_memory": memory, "sm_clock_max": max_sm, "pci_bus_id": bus,
             "gpu_uuid": uuids[index] if index < len(uuids) else "unknown"}
        if len(fields) >= 7:
            g["smi_compute_cap"], g["smi_memory_clock_max"] = fields[5], fields[6]
        g.update(device_facts(index, g))
        out.append(g)
    return out


# cudaDeviceGetAttribute's attributes (CUDA runtime API, enum cudaDeviceAttr).
_ATTRIBUTES = {"sm_count": 16, "sm_clock_max_khz": 13, "memory_clock_khz": 36, "memory_bus_width_bits": 37,
               "l2_cache_bytes": 38, "cc_major": 75, "cc_minor": 76}


def _cudart():
    """The CUDA runtime library through ctypes, or None."""
    names = [ctypes.util.find_library("cudart")] + [f"libcudart.so.{v}" for v in (13, 12, 11)] + ["libcudart.so"]
    for folder in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
        if folder:
            names += [str(p) for p in sorted(pathlib.Path(folder, "lib64").glob("libcudart.so*"))]
    for name in names:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def device_facts(index, smi=None, lib=None):
    """What device @p index reports about itself: compute capability, SM count, maximum SM and memory clock,
    memory bus width, L2 size, and the memory bandwidth they give (2 transfers per memory clock x bus width).
    From the CUDA runtime (cudaDeviceGetAttribute) when it loads, else what nvidia-smi reported (compute
    capability and memory clock only). `device_facts_source` says which."""
    lib = lib if lib is not None else _cudart()
    facts = {}
    if lib is not None:
        value = ctypes.c_int()
        ok = True
        for key, attr in _ATTRIBUTES.items():
            if lib.cudaDeviceGetAttribute(ctypes.byref(value), attr, index) != 0:
                ok = False
                break
            facts[key] = value.value
        if ok:
            facts["compute_capability"] = f"{facts.pop('cc_major')}.{facts.pop('cc_minor')}"
            facts["device_facts_source"] = "CUDA runtime (cudaDeviceGetAttribute)"
        else:
            facts = {}
    if not facts and smi and smi.get("smi_compute_cap"):
        facts["compute_capability"] = smi["smi_compute_cap"]
        mem = str(smi.get("smi_memory_clock_max", "")).split()
        if mem and mem[0].replace(".", "").isdigit():
            facts["memory_clock_khz"] = int(float(mem[0]) * 1000)
        facts["device_facts_source"] = "nvidia-smi (the CUDA runtime did not answer the device query): no L2 size or bus width"
    if "memory_clock_khz" in facts and "memory_bus_width_bits" in facts:
        facts["memory_bandwidth_gb_s"] = round(2 * facts["memory_clock_khz"] * 1e3 * facts["memory_bus_width_bits"] / 8 / 1e9, 1)
    return facts


def gpu_slug(devices):
    """The results folder of a host: the GPU's name in lower case with dashes, "-xN" for N GPUs."""
    slug = re.sub(r"[^a-z0-9]+", "-", devices[0]["gpu_name"].lower()).strip("-")
    return slug + (f"-x{len(devices)}" if len(devices) > 1 else "")


# The source manifest of a copy without .git (tools/source_manifest.py writes it at the tree's root).
SOURCE_MANIFEST = ".source-manifest.json"
# Tracked paths that are not sources: what the runner and the kit write, which may change under a recording.
SOURCE_EXCLUDE = ("experiments/results/", "experiments/records/")


def blob_id(path):
    """The git blob id of the file at @p path as it is on disk (what `git hash-object` computes); a symbolic
    link's is that of its target's name. None when there is no such file."""
    path = pathlib.Path(path)
    try:
        data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    except OSError:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def tree_hash(blobs):
    """One SHA-256 of {path: blob id} (a missing file counts as "missing")."""
    h = hashlib.sha256()
    for path in sorted(blobs):
        h.update(f"{path}\0{blobs[path] or 'missing'}\n".encode())
    return h.hexdigest()


def is_source(path):
    return not path.startswith(SOURCE_EXCLUDE)


def commit_blobs(commit, root=ROOT):
    """{path: blob id} of the tracked sources at @p commit, from git (None where git cannot tell)."""
    r = sh(["git", "-C", str(root), "ls-tree", "-r", "-z", "--full-tree", commit])
    if r.returncode != 0:
        return None
    out = {}
    for entry in r.stdout.split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind == "blob" and is_source(path):
            out[path] = blob
    return out


_SOURCE_STATE = {}


def source_state(root=ROOT):
    """The measured source state of the tree at @p root: {commit, dirty, source_hash (of the files on disk),
    source_hash_expected (of the same files at the commit), source_files, source_mismatches (the first paths that
    differ), source_expected_from ("git" or the source manifest)}. The commit and the expected blob ids come from
    git where the tree has a usable .git, else from its source manifest; with neither the commit is "unknown" and
    the tree dirty. Computed once per process."""
    root = pathlib.Path(root)
    if root in _SOURCE_STATE:
        return _SOURCE_STATE[root]
    def measured(commit, expected, origin):
        state = {"commit": commit, "source_expected_from": origin}
        if expected is None:
            state.update(dirty=True, source_hash="unknown", source_hash_expected="unknown", source_files=0,
                         source_mismatches=["no .git and no source manifest: the sources' commit cannot be checked"])
        else:
            actual = {p: blob_id(root / p) for p in expected}
            mismatches = sorted(p for p in expected if actual[p] != expected[p])
            state.update(dirty=bool(mismatches), source_hash=tree_hash(actual), source_hash_expected=tree_hash(expected),
                         source_files=len(expected), source_mismatches=mismatches[:10])
        return state

    state = None
    r = sh(["git", "-C", str(root), "rev-parse", "HEAD"])
    if r.returncode == 0:
        commit = r.stdout.strip()
        expected = commit_blobs(commit, root)
        if expected is not None:
            state = measured(commit, expected, "git")
    # A copy whose sources are not its .git's HEAD (a copy of a working tree over an older checkout), or that has
    # no usable .git, is measured against its source manifest; the manifest's commit is taken only when every
    # file it lists is on disk as that commit has it.
    if (state is None or state["dirty"]) and (root / SOURCE_MANIFEST).is_file():
        try:
            m = json.loads((root / SOURCE_MANIFEST).read_text())
            by_manifest = measured(m["commit"], {p: b for p, b in m["files"].items() if is_source(p)}, SOURCE_MANIFEST)
            if state is None or not by_manifest["dirty"]:
                state = by_manifest
        except (OSError, ValueError, KeyError, TypeError):
            if state is None:
                state = measured("unknown", None, f"{SOURCE_MANIFEST} (unreadable)")
    if state is None:
        state = measured("unknown", None, "none")
    _SOURCE_STATE[root] = state
    return state


def git_state():
    """(commit, dirty) of this tree, measured (source_state): dirty when a tracked source file on disk is not
    the commit's, whatever a state file says (MWSEP_GIT_STATE is no longer read)."""
    state = source_state()
    return state["commit"], state["dirty"]


def host_facts():
    """Which host this is, for every result it records: its name, the kernel's boot id, the CPU's model as the
    kernel reports it (name, vendor, family, model number, stepping, microcode where readable) and the CPU
    frequency policy (cpufreq driver and governors, minimum and maximum; "unknown" where the kernel exposes none,
    as in many virtual machines)."""
    facts = {"host_name": socket.gethostname()}
    try:
        facts["boot_id"] = pathlib.Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        facts["boot_id"] = "unknown"
    info = {}
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if ":" in line:
                k, v = (x.strip() for x in line.split(":", 1))
                info.setdefault(k, v)
    except OSError:
        pass
    facts["cpu_model"] = info.get("model name", platform.processor() or "unknown")
    facts["cpu_id"] = {k: info.get(src, "unknown") for k, src in (("vendor", "vendor_id"), ("family", "cpu family"),
                                                                   ("model", "model"), ("stepping", "stepping"),
                                                                   ("microcode", "microcode"))}
    cpufreq = sorted(pathlib.Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cpufreq"))
    if cpufreq:
        def read(name):
            values = set()
            for d in cpufreq:
                try:
                    values.add((d / name).read_text().strip())
                except OSError:
                    pass
            return sorted(values) or ["unknown"]
        facts["cpu_frequency_policy"] = {"driver": read("scaling_driver"), "governors": read("scaling_governor"),
                                         "min_khz": read("scaling_min_freq"), "max_khz": read("scaling_max_freq")}
    else:
        facts["cpu_frequency_policy"] = "unknown (no cpufreq in /sys: a virtual machine or a kernel without it)"
    return facts


# The measured provenance every new .meta.json carries (the runner refuses to write one without them): the
# host's, and for a GPU result the GPUs' UUIDs and driver.
HOST_FIELDS = ("host_name", "boot_id", "cpu_model", "cpu_frequency_policy", "source_hash", "source_hash_expected")
GPU_FIELDS = ("gpu_uuids", "driver_version")


def host_cpu():
    """The host CPU: model, sockets, physical cores, hardware threads (lscpu), and the machine."""
    facts = {"host_cpu": platform.processor() or platform.machine(), "host_machine": platform.machine()}
    r = sh(["lscpu"]) if shutil.which("lscpu") else None
    if r and r.returncode == 0:
        kv = {k.strip(): v.strip() for k, v in (l.split(":", 1) for l in r.stdout.splitlines() if ":" in l)}
        facts["host_cpu"] = kv.get("Model name", facts["host_cpu"])
        sockets = int(kv.get("Socket(s)", "1") or 1)
        cores = int(kv.get("Core(s) per socket", "0") or 0)
        threads = int(kv.get("Thread(s) per core", "1") or 1)
        facts.update({"host_sockets": sockets, "host_physical_cores": sockets * cores,
                      "host_threads_per_core": threads, "host_logical_cpus": os.cpu_count()})
    return facts


def build_info(build):
    """What the build was (CMake writes build_info.json): CUDA architectures, flags, -march."""
    path = pathlib.Path(build) / "build_info.json"
    if not path.exists():
        raise RuntimeError(f"{path} missing: configure the build with CMake first")
    return json.loads(path.read_text())


def cuda_version():
    r = sh(["nvcc", "--version"]) if shutil.which("nvcc") else None
    m = re.search(r"release (\d+\.\d+)", r.stdout) if r and r.returncode == 0 else None
    return m.group(1) if m else ""
