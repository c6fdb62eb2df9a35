"""Provenance read from the build, the device, the host and git: nothing here is typed by hand."""
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
    """The host's NVIDIA GPUs as dicts (name, driver, memory, max SM clock), [] without one."""
    if not shutil.which("nvidia-smi"):
        return []
    r = sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,pci.bus_id",
            "--format=csv,noheader"])
    if r.returncode != 0:
        return []
    out = []
    for line in r.stdout.strip().splitlines():
        name, driver, memory, max_sm, bus = [s.strip() for s in line.split(",")]
        out.append({"gpu_name": name, "driver_version": driver, "gpu_memory": memory,
                    "sm_clock_max": max_sm, "pci_bus_id": bus})
    return out


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
