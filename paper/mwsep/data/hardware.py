"""The GPUs and the host: measured facts from the provenance files, vendor figures from paper/hardware.json,
the 2010 hardware from the thesis (Appendix B). Counterpart of thesis Table 4.1 and Appendix B."""
import json
import statistics

from paper.report.common import ROOT, MissingData, fmt, rel, short_gpu, table

SPEC = ROOT / "paper" / "hardware.json"


def gpu_info(ctx, folder):
    """What one GPU folder's provenance says about its GPU, with its FP64 and FP32 peaks."""
    meta = ctx.meta("memory_spaces", folder)
    spec = json.loads(SPEC.read_text())
    name = meta.get("gpu_name")
    per_gpu = spec["per_gpu"].get(name, {})
    # Two generations of provenance files: the device query's fields, or nvidia-smi's strings.
    cc = meta.get("compute_capability") or per_gpu.get("compute_capability")
    if not name or not meta.get("sm_count"):
        raise MissingData(f"{rel(folder)}/memory_spaces.meta.json: no gpu_name or sm_count")
    if cc not in spec["per_compute_capability"]:
        raise MissingData(f"{rel(SPEC)}: no compute capability or figures for {name}: add the GPU there")
    arch = spec["per_compute_capability"][cc]
    if "sm_clock_max_khz" in meta:
        clock = meta["sm_clock_max_khz"] / 1e3
    elif "sm_clock_max" in meta:
        clock = float(str(meta["sm_clock_max"]).split()[0])
    else:
        raise MissingData(f"{rel(folder)}/memory_spaces.meta.json: no maximum SM clock")
    if "memory_bytes" in meta:
        memory_gb = meta["memory_bytes"] / 2**30
    else:
        memory_gb = float(str(meta.get("gpu_memory", "0")).split()[0]) / 1024  # nvidia-smi gives MiB
    sms = int(meta["sm_count"])
    # L2 size and memory bandwidth: from the device (provenance written since the runner queries it, marked
    # (d)); a folder recorded before that takes them from paper/hardware.json by GPU name (marked (v)).
    if meta.get("l2_cache_bytes") is not None:
        l2 = (fmt(meta["l2_cache_bytes"] / 2**20, 3), "d")
    else:
        l2 = (str(per_gpu["l2_mb"]), "v") if "l2_mb" in per_gpu else ("unknown", "")
    if meta.get("memory_bandwidth_gb_s") is not None:
        bandwidth = (fmt(meta["memory_bandwidth_gb_s"], 4), "d")
    else:
        bandwidth = ((str(per_gpu["memory_bandwidth_gb_s"]), "v") if "memory_bandwidth_gb_s" in per_gpu
                     else ("unknown", ""))
    return {
        "name": name, "short": short_gpu(name), "sms": sms, "clock_mhz": clock, "cc": cc,
        "memory_gb": memory_gb, "arch": arch, "per_gpu": per_gpu, "l2_mb": l2, "bandwidth_gb_s": bandwidth,
        "fp64_gflops": sms * clock * 1e-3 * 2 * arch["fp64_fma_per_sm"],
        "fp32_gflops": sms * clock * 1e-3 * 2 * arch["fp32_fma_per_sm"],
        "driver": meta.get("driver_version", ""), "cuda": meta.get("cuda_version", ""),
        "host_cpu": meta.get("host_cpu", ""), "folder": folder,
    }


def with_article(name):
    """The name with its indefinite article, as it is read aloud: "an NVIDIA H200" (en-vidia), "a Tesla K20"."""
    first = name.split()[0] if name.split() else name
    initialism = len(first) > 1 and first.isupper()
    vowel_sound = first[:1].upper() in ("AEFHILMNORSX" if initialism else "AEIOU")
    return ("an " if vowel_sound else "a ") + name


def fp64_peak_note(ctx, main):
    """One sentence setting the computed FP64 peak (SMs x clock x units) beside the FP64 roof measured on the
    same GPU by the Münch study's roofline kernel (munch/roofline.csv of the same results folder), with the
    ratio of the two; says so when that measurement is absent."""
    peak = main["fp64_gflops"]
    head = (f"The FP64 peak of the {main['short']} used in this report, {fmt(peak, 4)} GFLOP/s, is computed from its "
            "SMs, its clock and the vendor's FP64 units per SM")
    folder = ctx.results.parent / "munch"
    try:
        rows = ctx.rows("roofline", folder) if (folder / "roofline.csv").exists() else []
    except MissingData as e:
        return head + f"; the FP64 roof measured by the Münch study could not be read ({e})."
    values = [float(r["value"]) for r in rows if r["quantity"] == "fp64_fma_peak"]
    if not values:
        return head + ("; the FP64 roof that the Münch study's roofline kernel measures was not recorded on this GPU, "
                       "so the computed figure is not checked against a measurement.")
    measured = statistics.median(values)
    ctx.facts["fp64_roof_measured_gflops"] = measured
    return head + (f"; the Münch study's roofline kernel (independent FMA chains on the whole GPU, munch/roofline.csv, median of "
                   f"{len(values)} runs) reaches {fmt(measured / 1e3, 3)} TFLOP/s on the same GPU, "
                   f"{measured / peak:.3f} of the computed figure, so a share of the computed peak is "
                   f"{peak / measured:.2f} times smaller than the same share of the measured roof.")


def build(ctx):
    spec = json.loads(SPEC.read_text())
    main = gpu_info(ctx, ctx.results)
    others = [gpu_info(ctx, f) for f in ctx.compare]
    ctx.facts["gpu"], ctx.facts["gpus"] = main, [main] + others
    n = ctx.n
    n["gpu"], n["gpu_short"], n["gpu_sms"] = main["name"], main["short"], str(main["sms"])
    n["a_gpu"] = with_article(main["name"])
    n["fp64_peak_note"] = fp64_peak_note(ctx, main)
    n["gpu_fp64_tflops"] = fmt(main["fp64_gflops"] / 1e3, 3)
    n["gpu_arch"] = main["arch"]["architecture"]
    n["compare_gpus"] = ", ".join(g["name"] for g in others) if others else "none"
    n["compare_count"] = str(len(others))
    n["cuda_version"], n["driver_version"] = main["cuda"], main["driver"]
    n["host_cpu"] = main["host_cpu"]
    hw = ctx.published["hardware"]
    g285 = hw["gtx285"]
    old = spec["per_compute_capability"][spec["per_gpu"]["GTX 285"]["compute_capability"]]
    old_gpu = spec["per_gpu"]["GTX 285"]
    n["gtx285_fp64_gflops"] = fmt(g285["gflops_double"], 2)
    n["gtx285_sms"] = str(g285["sms"])
    n["fp64_peak_ratio"] = fmt(main["fp64_gflops"] / g285["gflops_double"], 3)
    n["gtx285_fp32_fp64"] = fmt(g285["gflops_single"] / g285["gflops_double"], 2)
    n["gpu_fp32_fp64"] = fmt(main["fp32_gflops"] / main["fp64_gflops"], 2)

    # Thesis Table 4.1 and Appendix B, then and now: one column per GPU.
    gpus = ctx.facts["gpus"]
    header = ["", "GTX 285 (2010)"] + [g["short"] for g in gpus]
    def row(label, old_value, f):
        return [label, old_value] + [f(g) for g in gpus]
    body = [
        row("architecture (compute capability)", f"{old['architecture']} ({spec['per_gpu']['GTX 285']['compute_capability']})",
            lambda g: f"{g['arch']['architecture']} ({g['cc']})"),
        row("multiprocessors (SMs)", f"{g285['sms']} (a)", lambda g: f"{g['sms']} (m)"),
        row("shader / SM clock (MHz)", f"{g285['shader_clock_mhz']} (p)", lambda g: f"{fmt(g['clock_mhz'], 4)} (m)"),
        row("FP64 units per SM", str(old["fp64_fma_per_sm"]), lambda g: str(g["arch"]["fp64_fma_per_sm"])),
        row("FP64 peak (GFLOP/s)", f"{g285['gflops_double']} (p)", lambda g: f"{fmt(g['fp64_gflops'], 4)} (c)"),
        row("FP32 peak (GFLOP/s)", f"{g285['gflops_single']} (p)", lambda g: f"{fmt(g['fp32_gflops'], 4)} (c)"),
        row("32-bit registers per SM", str(old["registers_per_sm"]), lambda g: str(g["arch"]["registers_per_sm"])),
        row("shared memory per SM (KB)", str(old["shared_memory_per_sm_kb"]), lambda g: str(g["arch"]["shared_memory_per_sm_kb"])),
        row("shared-memory banks", str(old["shared_memory_banks"]), lambda g: str(g["arch"]["shared_memory_banks"])),
        row("constant memory (KB)", str(old["constant_memory_kb"]), lambda g: str(g["arch"]["constant_memory_kb"])),
        row("constant cache per SM (KB)", str(old["constant_cache_per_sm_kb"]), lambda g: str(g["arch"]["constant_cache_per_sm_kb"])),
        row("local memory per thread (KB)", str(old["local_memory_per_thread_kb"]),
            lambda g: str(g["arch"]["local_memory_per_thread_kb"])),
        row("cache for global memory", old["global_memory_cache"], lambda g: g["arch"]["global_memory_cache"]),
        row("L2 cache (MB)", "none", lambda g: g["l2_mb"][0] + (f" ({g['l2_mb'][1]})" if g["l2_mb"][1] else "")),
        row("memory (GB)", f"{g285['memory_gb']} (p)", lambda g: f"{fmt(g['memory_gb'], 3)} (m)"),
        row("memory bandwidth (GB/s)", str(old_gpu["memory_bandwidth_gb_s"]),
            lambda g: g["bandwidth_gb_s"][0] + (f" ({g['bandwidth_gb_s'][1]})" if g["bandwidth_gb_s"][1] else "")),
    ]
    ctx.tables["table_hardware_gpus"] = table(
        "Table 4.1 and Appendix B (thesis), then and now: the GPU of the thesis beside the GPUs measured here. "
        "(p) published in the thesis, (m) measured by this artifact's programs, (c) computed from measured "
        "SMs and clock and the vendor's units per SM, (a) 240 cores at 8 per SM, (d) reported by the device "
        "(cudaDeviceGetAttribute; bandwidth = 2 x memory clock x bus width), (v) vendor figure from "
        "paper/hardware.json for a results folder recorded before the runner queried the device; the rest are "
        "vendor figures.",
        header, body, name="table-hardware-gpus")
    cpu = hw["cpu"]
    hosts = [["thesis host (2010)", f"{cpu['name']}, {cpu['clock_ghz']} GHz, {cpu['l2_kb_per_core']} KB L2 per core (p)"]]
    for g in gpus:
        hosts.append([f"host of the {g['short']}", f"{g['host_cpu']} (as the operating system names it)"])
    ctx.tables["table_hardware_hosts"] = table(
        "Table R@: the host CPUs, then and now; (p) published in the thesis.", ["host", "processor"], hosts)
