"""The GPUs and the host: measured facts from the provenance files, vendor figures from paper/hardware.json,
the 2010 hardware from the thesis (Appendix B). Counterpart of thesis Table 4.1 and Appendix B."""
import json
import statistics

from paper.report.common import MissingData, fmt, table
from paper.report.facts import available

from ..facts import SPEC
from .common import bandwidth_text, l2_text


def with_article(name):
    """The name with its indefinite article, as it is read aloud: "an NVIDIA H200" (en-vidia), "a Tesla K20"."""
    first = name.split()[0] if name.split() else name
    initialism = len(first) > 1 and first.isupper()
    vowel_sound = first[:1].upper() in ("AEFHILMNORSX" if initialism else "AEIOU")
    return ("an " if vowel_sound else "a ") + name


def fp64_peak_note(ctx, facts, main):
    """One sentence setting the computed FP64 peak (SMs x clock x units) beside the FP64 roof measured on the
    same GPU by the Münch study's roofline kernel (munch/roofline.csv of the same results folder), with the
    ratio of the two; says so when that measurement is absent."""
    peak = main.fp64_gflops
    head = (f"The FP64 peak of the {main.short} used in this report, {fmt(peak, 4)} GFLOP/s, is computed from its "
            "SMs, its clock and the vendor's FP64 units per SM")
    folder = facts.files.results.parent / "munch"
    try:
        rows = facts.files.rows("roofline", folder) if (folder / "roofline.csv").exists() else []
    except MissingData as e:
        ctx.fallback("fp64_peak_note", e)
        return head + f"; the FP64 roof measured by the Münch study could not be read ({e})."
    values = [float(r["value"]) for r in rows if r["quantity"] == "fp64_fma_peak"]
    if not values:
        ctx.fallback("fp64_peak_note", "the munch study's roofline (its fp64_fma_peak) was not recorded",
                     [folder / "roofline.csv"])
        return head + ("; the FP64 roof that the Münch study's roofline kernel measures was not recorded on this GPU, "
                       "so the computed figure is not checked against a measurement.")
    measured = statistics.median(values)
    return head + (f"; the Münch study's roofline kernel (independent FMA chains on the whole GPU, munch/roofline.csv, median of "
                   f"{len(values)} runs) reaches {fmt(measured / 1e3, 3)} TFLOP/s on the same GPU, "
                   f"{measured / peak:.3f} of the computed figure, so a share of the computed peak is "
                   f"{peak / measured:.2f} times smaller than the same share of the measured roof.")


def build(ctx, facts):
    spec = json.loads(SPEC.read_text())
    gpus = available(facts.gpus)
    main, others = gpus[0], gpus[1:]
    n = ctx.n
    n["gpu"], n["gpu_short"], n["gpu_sms"] = main.name, main.short, str(main.sms)
    n["a_gpu"] = with_article(main.name)
    n["fp64_peak_note"] = fp64_peak_note(ctx, facts, main)
    n["gpu_fp64_tflops"] = fmt(main.fp64_gflops / 1e3, 3)
    n["gpu_arch"] = main.arch["architecture"]
    n["compare_gpus"] = ", ".join(g.name for g in others) if others else "none"
    n["compare_count"] = str(len(others))
    n["cuda_version"], n["driver_version"] = main.cuda, main.driver
    n["host_cpu"] = main.host_cpu
    hw = facts.published["hardware"]
    g285 = hw["gtx285"]
    old = spec["per_compute_capability"][spec["per_gpu"]["GTX 285"]["compute_capability"]]
    old_gpu = spec["per_gpu"]["GTX 285"]
    n["gtx285_fp64_gflops"] = fmt(g285["gflops_double"], 2)
    n["gtx285_sms"] = str(g285["sms"])
    n["fp64_peak_ratio"] = fmt(main.fp64_gflops / g285["gflops_double"], 3)
    n["gtx285_fp32_fp64"] = fmt(g285["gflops_single"] / g285["gflops_double"], 2)
    n["gpu_fp32_fp64"] = fmt(main.fp32_gflops / main.fp64_gflops, 2)

    # Thesis Table 4.1 and Appendix B, then and now: one column per GPU.
    header = ["", "GTX 285 (2010)"] + [g.short for g in gpus]
    def row(label, old_value, f):
        return [label, old_value] + [f(g) for g in gpus]
    body = [
        row("architecture (compute capability)", f"{old['architecture']} ({spec['per_gpu']['GTX 285']['compute_capability']})",
            lambda g: f"{g.arch['architecture']} ({g.cc})"),
        row("multiprocessors (SMs)", f"{g285['sms']} (a)", lambda g: f"{g.sms} (m)"),
        row("shader / SM clock (MHz)", f"{g285['shader_clock_mhz']} (p)", lambda g: f"{fmt(g.clock_mhz, 4)} (m)"),
        row("FP64 units per SM", str(old["fp64_fma_per_sm"]), lambda g: str(g.arch["fp64_fma_per_sm"])),
        row("FP64 peak (GFLOP/s)", f"{g285['gflops_double']} (p)", lambda g: f"{fmt(g.fp64_gflops, 4)} (c)"),
        row("FP32 peak (GFLOP/s)", f"{g285['gflops_single']} (p)", lambda g: f"{fmt(g.fp32_gflops, 4)} (c)"),
        row("32-bit registers per SM", str(old["registers_per_sm"]), lambda g: str(g.arch["registers_per_sm"])),
        row("shared memory per SM (KB)", str(old["shared_memory_per_sm_kb"]), lambda g: str(g.arch["shared_memory_per_sm_kb"])),
        row("shared-memory banks", str(old["shared_memory_banks"]), lambda g: str(g.arch["shared_memory_banks"])),
        row("constant memory (KB)", str(old["constant_memory_kb"]), lambda g: str(g.arch["constant_memory_kb"])),
        row("constant cache per SM (KB)", str(old["constant_cache_per_sm_kb"]), lambda g: str(g.arch["constant_cache_per_sm_kb"])),
        row("local memory per thread (KB)", str(old["local_memory_per_thread_kb"]),
            lambda g: str(g.arch["local_memory_per_thread_kb"])),
        row("cache for global memory", old["global_memory_cache"], lambda g: g.arch["global_memory_cache"]),
        row("L2 cache (MB)", "none", lambda g: l2_text(g) + (f" ({g.l2_source})" if g.l2_source else "")),
        row("memory (GB)", f"{g285['memory_gb']} (p)", lambda g: f"{fmt(g.memory_gb, 3)} (m)"),
        row("memory bandwidth (GB/s)", str(old_gpu["memory_bandwidth_gb_s"]),
            lambda g: bandwidth_text(g) + (f" ({g.bandwidth_source})" if g.bandwidth_source else "")),
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
        hosts.append([f"host of the {g.short}", f"{g.host_cpu} (as the operating system names it)"])
    ctx.tables["table_hardware_hosts"] = table(
        "Table R@: the host CPUs, then and now; (p) published in the thesis.", ["host", "processor"], hosts)
