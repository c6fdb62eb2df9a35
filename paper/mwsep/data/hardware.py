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

    # Thesis Table 4.1 and Appendix B, then and now: one column per GPU, the 8800 GTX and the HD 5870 of the
    # thesis's Appendix B beside its GTX 285.
    g80, hd = hw["8800gtx"], hw["hd5870"]
    header = ["", "GTX 285 (2010)", "8800 GTX (2010)", "HD 5870 (2010)"] + [g.short for g in gpus]

    def row(label, old_value, f, g80_value="-", hd_value="-"):
        return [label, old_value, g80_value, hd_value] + [f(g) for g in gpus]
    threads_then = g285["threads_per_sm"]
    body = [
        row("architecture (compute capability)", f"{old['architecture']} ({spec['per_gpu']['GTX 285']['compute_capability']})",
            lambda g: f"{g.arch['architecture']} ({g.cc})", f"G80 ({g80['compute_capability']}) (p)", "ATI (no compute capability, thesis 2.1)"),
        row("multiprocessors (SMs)", f"{g285['sms']} (p)", lambda g: f"{g.sms} (m)", f"{g80['sms']} (a)", "-"),
        row("shader cores", f"{g285['cores']} (p)", lambda g: f"{g.sms * g.arch['fp32_fma_per_sm']} (c)", f"{g80['cores']} (p)",
            f"{hd['cores']} (p)"),
        row("threads resident per SM", f"{threads_then} (p)", lambda g: f"{g.arch['threads_per_sm']}", f"{g80['threads_per_sm']} (r)", "-"),
        row("threads resident on the GPU", f"{g285['resident_threads']} (p)",
            lambda g: f"{g.sms * g.arch['threads_per_sm']} (c)", f"{g80['threads_per_sm'] * g80['sms']} (r)", "-"),
        row("core / memory clock (MHz)", f"{g285['core_clock_mhz']} / {g285['memory_clock_mhz']} (p)", lambda g: "-",
            f"{g80['core_clock_mhz']} / {g80['memory_clock_mhz']} (p)", f"{hd['core_clock_mhz']} / {hd['memory_clock_mhz']} (p)"),
        row("shader / SM clock (MHz)", f"{g285['shader_clock_mhz']} (p)", lambda g: f"{fmt(g.clock_mhz, 4)} (m)",
            f"{g80['shader_clock_mhz']} (p)", "-"),
        row("FP64 units per SM", str(old["fp64_fma_per_sm"]), lambda g: str(g.arch["fp64_fma_per_sm"])),
        row("FP64 peak (GFLOP/s)", f"{g285['gflops_double']} (p)", lambda g: f"{fmt(g.fp64_gflops, 4)} (c)", "none (p)",
            f"{hd['gflops_double']} (p)"),
        row("FP32 peak (GFLOP/s)", f"{g285['gflops_single']} (p)", lambda g: f"{fmt(g.fp32_gflops, 4)} (c)",
            f"{g80['gflops_single']} (p)", f"{hd['gflops_single']} (p)"),
        row("32-bit registers per SM", str(old["registers_per_sm"]), lambda g: str(g.arch["registers_per_sm"])),
        row("shared memory per SM (KB)", str(old["shared_memory_per_sm_kb"]), lambda g: str(g.arch["shared_memory_per_sm_kb"])),
        row("shared-memory banks", str(old["shared_memory_banks"]), lambda g: str(g.arch["shared_memory_banks"])),
        row("constant memory (KB)", str(old["constant_memory_kb"]), lambda g: str(g.arch["constant_memory_kb"])),
        row("constant cache per SM (KB)", str(old["constant_cache_per_sm_kb"]), lambda g: str(g.arch["constant_cache_per_sm_kb"])),
        row("local memory per thread (KB)", str(old["local_memory_per_thread_kb"]),
            lambda g: str(g.arch["local_memory_per_thread_kb"])),
        row("cache for global memory", old["global_memory_cache"], lambda g: g.arch["global_memory_cache"]),
        row("L2 cache (MB)", "none", lambda g: l2_text(g) + (f" ({g.l2_source})" if g.l2_source else "")),
        row("memory (GB)", f"{g285['memory_gb']} (p)", lambda g: f"{fmt(g.memory_gb, 3)} (m)", f"{g80['memory_mb'] / 1024:g} (p)",
            f"{hd['memory_mb'] / 1024:g} {hd['memory_type']} (p)"),
        row("memory bandwidth (GB/s)", str(old_gpu["memory_bandwidth_gb_s"]),
            lambda g: bandwidth_text(g) + (f" ({g.bandwidth_source})" if g.bandwidth_source else "")),
    ]
    ctx.tables["table_hardware_gpus"] = table(
        "Table 4.1 and Appendix B (thesis), then and now: the GPU of the thesis beside the GPUs measured here. "
        "(p) published in the thesis (section 4.1 and Appendix B), (m) measured by this artifact's programs, (c) computed "
        "from measured SMs and clock and the vendor's units per SM, (a) derived: 128 cores at 8 per SM (the thesis does "
        "not print the 8800 GTX's SMs), (r) not in the thesis: Ryoo et al. section 3.2 (768 threads per SM, 16 SMs), "
        "(d) reported by the device "
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
