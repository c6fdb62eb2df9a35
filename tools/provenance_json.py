#!/usr/bin/env python3
"""Writes <experiment>.meta.json from the provenance record a GPU run left (device_run.sh).

usage: provenance_json.py PROVENANCE_TXT VARIANTS_TXT OUT_JSON [key=value ...]
The SM count is read from `mwsep variants` output of the same run ("GPU: NAME (N SMs)").
"""
import json
import re
import sys


def main():
    prov_path, variants_path, out_path, *extra = sys.argv[1:]
    prov = dict(line.rstrip("\n").split("=", 1) for line in open(prov_path) if "=" in line)
    name, driver, memory, max_sm_clock, sm_clock = [s.strip() for s in prov["gpu"].split(",")]
    sm = re.search(r"GPU: (.*) \((\d+) SMs\)", open(variants_path).read())
    cuda = re.search(r"cuda_(\d+\.\d+)", prov["nvcc"])
    meta = {
        "gpu_name": name,
        "sm_count": int(sm.group(2)) if sm else None,
        "gpu_memory": memory,
        "max_sm_clock": max_sm_clock,
        "sm_clock_at_start": sm_clock,
        "driver_version": driver,
        "cuda_version": cuda.group(1) if cuda else prov["nvcc"],
        "compiler": prov["nvcc"],
        "compiler_flags": "-O3 (CMake Release), CUDA architecture sm_90, --resource-usage -lineinfo",
        "git_commit": prov["git_commit"],
        "git_dirty": prov.get("git_dirty", "unknown") == "true",
        "date_utc": prov["date_utc"],
        "command": prov["command"],
        "host_cpu": prov["host_cpu"],
    }
    for kv in extra:
        k, v = kv.split("=", 1)
        meta[k] = v
    with open(out_path, "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
