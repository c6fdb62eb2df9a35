"""Provenance read from the build, the device, the host and git: nothing here is typed by hand."""
import ctypes
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


def gpus():
    """The host's NVIDIA GPUs as dicts (name, driver, memory, max SM clock, and what the device itself reports:
    device_facts), [] without one."""
    if not shutil.which("nvidia-smi"):
        return []
    r = sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,pci.bus_id,compute_cap,clocks.max.memory",
            "--format=csv,noheader"])
    if r.returncode != 0:
        r = sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,pci.bus_id", "--format=csv,noheader"])
        if r.returncode != 0:
            return []
    out = []
    for index, line in enumerate(r.stdout.strip().splitlines()):
        fields = [f.strip() for f in line.split(",")]
        name, driver, memory, max_sm, bus = fields[:5]
        g = {"gpu_name": name, "driver_version": driver, "gpu_memory": memory, "sm_clock_max": max_sm, "pci_bus_id": bus}
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


def git_state():
    """(commit, dirty). A copy of the tree without a usable .git names its commit in MWSEP_GIT_STATE."""
    explicit = os.environ.get("MWSEP_GIT_STATE")
    if explicit and pathlib.Path(explicit).exists():
        kv = dict(l.split("=", 1) for l in pathlib.Path(explicit).read_text().split() if "=" in l)
        return kv.get("git_commit", "unknown"), kv.get("git_dirty") == "true"
    r = sh(["git", "-C", str(ROOT), "rev-parse", "HEAD"])
    if r.returncode != 0:
        return "unknown", True
    dirty = bool(sh(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"]).stdout.strip())
    return r.stdout.strip(), dirty


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
