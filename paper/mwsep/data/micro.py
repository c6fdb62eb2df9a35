"""The hardware explanations of the thesis (and of Ryoo et al., whose figures the thesis's sources share),
measured by the microbenchmarks of experiments/studies/mwsep_hardware_micro.cu (experiment hardware_micro):
global-memory latency, constant-cache serialisation, coalescing and FP64 bank conflicts in shared memory.
One row per claim with the measured value and a verdict, and the raw measurements. A GPU folder without the
experiment gets a paragraph saying so (the rest of the report is unaffected)."""
import statistics

from paper.report.common import fmt, table
from paper.report.facts import available

NOT_RECORDED = "not recorded on this GPU"


def _by(rows, test, case=None, element_bytes=None):
    """{param: value} of one test's rows (medians where a configuration was recorded more than once)."""
    out = {}
    for r in rows:
        if r["test"] == test and (case is None or r["case"] == case) and \
                (element_bytes is None or int(r["element_bytes"]) == element_bytes):
            out.setdefault(int(float(r["param"])), []).append(float(r["value"]))
    return {k: statistics.median(v) for k, v in sorted(out.items())}


def _latency(rows):
    ns = {}
    for r in rows:
        if r["test"] == "latency" and r["ns_per_access"]:
            ns.setdefault((r["case"], int(float(r["param"]))), []).append(float(r["ns_per_access"]))
    return {k: statistics.median(v) for k, v in ns.items()}


def _linear_r2(xs, ys):
    """The coefficient of determination of the least-squares line through (xs, ys)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my) ** 2 for y in ys)
    return 1.0 if syy == 0 else (sxy * sxy) / (sxx * syy)


def claim_rows(rows, claims, short):
    """The verdict rows: [claim, document, measured here, verdict, where it belongs]."""
    body = []
    # (a) Global-memory latency: the largest chase, with L2 and L1 for context.
    cyc = {}
    for r in rows:
        if r["test"] == "latency":
            cyc.setdefault((r["case"], int(float(r["param"]))), []).append(float(r["value"]))
    cyc = {k: statistics.median(v) for k, v in cyc.items()}
    ns = _latency(rows)
    glob = sorted(k for k in cyc if k[0] == "global")
    if glob and any(k[0] == "l2" for k in cyc) and any(k[0] == "l1" for k in cyc):
        # The smallest of the chases larger than L2: global memory with the fewest address-translation misses
        # (the larger one, in the detail table, shows what those add).
        big = glob[0]
        c, t = cyc[big], ns.get(big, float("nan"))
        l2 = next(k for k in cyc if k[0] == "l2")
        l1 = next(k for k in cyc if k[0] == "l1")
        measured = (f"{fmt(c, 3)} cycles ({fmt(t, 3)} ns) over {fmt(big[1] / 2**20, 4)} MiB; L2 {fmt(cyc[l2], 3)}, "
                    f"L1 {fmt(cyc[l1], 3)} cycles")
        for key in ("global_latency", "global_latency_ryoo"):
            cl = claims[key]
            inside = cl["low"] <= c <= cl["high"]
            verdict = ("confirmed" if inside else
                       f"not confirmed on the {short}: {fmt(c / cl['high'], 2)} x the upper figure. The figure is the "
                       "latency of a 2008-2010 GPU; that global memory costs hundreds of cycles, "
                       f"{fmt(c / cyc[l1], 2)} x an L1 hit, holds")
            body.append([cl["text"], cl["source"], measured, verdict, "Thesis 4.2 (global memory), Table 4.1"])
    else:
        body.append([claims["global_latency"]["text"], claims["global_latency"]["source"], NOT_RECORDED,
                     "not testable: no latency rows", "Thesis 4.2"])

    # (b) Constant cache: a warp's load over k distinct addresses.
    const, glob_div = _by(rows, "constant", "constant"), _by(rows, "constant", "global")
    cl = claims["constant_single_ported"]
    if 1 in const and 32 in const:
        ks = sorted(const)
        per = (const[32] - const[1]) / 31
        r2 = _linear_r2(ks, [const[k] for k in ks])
        measured = (f"{fmt(const[1], 3)} cycles per dependent load at one address, {fmt(const[32], 3)} at 32 "
                    f"({fmt(per, 3)} more per extra address, straight line R^2 {r2:.3f})")
        if 1 in glob_div and 32 in glob_div:
            measured += f"; the same pattern from global memory (L1): {fmt(glob_div[1], 3)} and {fmt(glob_div[32], 3)}"
        rising = const[32] / const[1] >= 4 and r2 >= 0.95
        verdict = ("confirmed: the load is serialised over the distinct addresses, about linearly" if rising else
                   f"not confirmed on the {short}: 32 addresses cost {fmt(const[32] / const[1], 2)} x one")
        body.append([cl["text"], cl["source"], measured, verdict,
                     "Thesis 4.4.1 (alternate memory types): every thread reads the same fstream entry, the case the "
                     "cache serves at full speed"])
    else:
        body.append([cl["text"], cl["source"], NOT_RECORDED, "not testable: no constant-cache rows", "Thesis 4.4.1"])

    # (c) Coalescing: useful bandwidth against the stride and a misaligned start.
    cl = claims["coalescing"]
    f4, f4m = _by(rows, "coalescing", "aligned", 4), _by(rows, "coalescing", "misaligned", 4)
    f8 = _by(rows, "coalescing", "aligned", 8)
    if 1 in f4 and 2 in f4 and 8 in f4 and 1 in f4m:
        # The largest access (stride x element) whose useful bandwidth still falls as 1/stride: the bytes one
        # request fetches at least.
        unit = max((s * 4 for s in f4 if f4[1] / f4[s] >= 0.7 * s), default=4)
        measured = (f"4-byte words, useful bandwidth against contiguous: stride 2 {fmt(f4[2] / f4[1], 2)}, stride 8 "
                    f"{fmt(f4[8] / f4[1], 2)}; start moved by one word {fmt(f4m[1] / f4[1], 3)}; "
                    f"the bandwidth falls as 1/stride up to {unit}-byte steps")
        if 1 in f8 and 4 in f8:
            measured += f"; 8-byte words at stride 4: {fmt(f8[4] / f8[1], 2)}"
        confirmed = f4[2] / f4[1] < 0.65
        line = 4 * cl["words"]
        size = (f"the fetched unit is {unit} bytes, as the {cl['words']}-word line ({line} bytes)" if unit == line else
                f"the fetched unit is now {unit} bytes (the {cl['words']}-word line: {line} bytes)")
        loss = 100 * (1 - f4m[1] / f4[1])
        verdict = ("confirmed: a warp's scattered words cost whole memory transactions; " + size +
                   (f"; a contiguous read moved by one word loses {fmt(loss, 2)} % of its bandwidth" if loss > 0 else
                    "; a contiguous read moved by one word loses nothing measurable") if confirmed else
                   f"not confirmed on the {short}: stride 2 keeps {fmt(f4[2] / f4[1], 2)} of the bandwidth")
        body.append([cl["text"], cl["source"], measured, verdict,
                     "Thesis 4.2 (the stars layout, Figs. 4.1 and 4.2) and 4.4.4"])
    else:
        body.append([cl["text"], cl["source"], NOT_RECORDED, "not testable: no coalescing rows", "Thesis 4.2"])

    # (d) Doubles in shared memory.
    cl = claims["fp64_shared_conflict"]
    dw, fw = _by(rows, "shared", "write", 8), _by(rows, "shared", "write", 4)
    dr = _by(rows, "shared", "read", 8)
    if 1 in dw and 1 in fw and 2 in dw:
        bytes_rate = (32 * 8 / dw[1]) / (32 * 4 / fw[1])
        measured = (f"a warp's write of consecutive doubles: {fmt(dw[1], 3)} cycles, of consecutive floats "
                    f"{fmt(fw[1], 3)} (bytes per cycle, double against float: {fmt(bytes_rate, 3)}); doubles at stride "
                    f"2: {fmt(dw[2], 3)}" + (f"; reads of consecutive doubles {fmt(dr[1], 3)}" if 1 in dr else ""))
        no_conflict = bytes_rate >= 0.8
        verdict = (f"not confirmed on the {short}: consecutive doubles move as many bytes per cycle as floats (32 banks, "
                   "a warp's 256 bytes in two passes: no conflict); a stride of two doubles does conflict. The claim "
                   f"concerns the {cl['banks']}-bank half-warp GPU of 2010 and is not testable here" if no_conflict else
                   "confirmed: consecutive doubles move fewer bytes per cycle than floats")
        body.append([cl["text"], cl["source"], measured, verdict,
                     "Thesis 4.3 and 4.4.3 (st_int moved from shared memory to registers by the unrolling)"])
    else:
        body.append([cl["text"], cl["source"], NOT_RECORDED, "not testable: no shared-memory rows", "Thesis 4.3"])
    return body


# The largest unit's footprint counts as the thesis's figure when within this factor of it either way.
FOOTPRINT_FACTOR = 1.5


def memory_row(memory, claims, final, short):
    """The row of the thesis's memory figure: the largest device footprint of an evaluation (experiment
    device_memory) with the thesis's final kernel, else with any variant recorded."""
    cl = claims["largest_unit_memory"]
    if not memory:
        return [cl["text"], cl["source"], NOT_RECORDED, "not testable: experiment device_memory not recorded",
                "Thesis 4.2 (initialisation)"]
    mine = [r for r in memory if r["variant"] == final] or memory
    big = max(mine, key=lambda r: float(r["total_bytes"]))
    mb = float(big["total_bytes"]) / 1e6
    parts = ", ".join(f"{r['work_unit']} {fmt(float(r['total_bytes']) / 1e6, 3)}" for r in
                      sorted(mine, key=lambda r: float(r["total_bytes"])))
    measured = (f"{fmt(mb, 3)} MB for {big['work_unit']} with {big['variant']} (integral {fmt(float(big['integral_bytes']) / 1e6, 3)}, "
                f"stars {fmt(float(big['star_bytes']) / 1e6, 3)} MB, {big['stars']} stars); all units: {parts} MB")
    ratio = mb / cl["value"]
    inside = 1 / FOOTPRINT_FACTOR <= ratio <= FOOTPRINT_FACTOR
    verdict = ((f"confirmed: the same size (within a factor {FOOTPRINT_FACTOR:g})" if inside else
                f"not confirmed: {fmt(ratio, 2)} x the figure") +
               "; the units here are this reproduction's, with synthetic catalogues, and a buffer's size is measured "
               f"as the drop of the {short}'s free memory (rounded to its allocation granules)")
    return [cl["text"], cl["source"], measured, verdict, "Thesis 4.2 (initialisation: the memory the GPU must hold)"]


# The spaces of the two tables in their order, with the cases of the latency rows measured for each.
SPACES = [("register", "register", ["register"]), ("shared", "shared", ["shared"]), ("constant", "constant", ["constant"]),
          ("texture", "texture", ["texture", "readonly"]), ("global", "global", ["l1", "l2", "global"]),
          ("local", "local", [])]
CASE_NAMES = {"register": "a dependent register add", "shared": "shared memory", "constant": "the constant cache",
              "texture": "the texture path", "readonly": "the read-only data path", "l1": "global, an L1 hit",
              "l2": "global, an L2 hit", "global": "global, from memory"}


def memory_latency_table(ctx, facts, short):
    """Ryoo et al.'s Table 1 and Münch's Table 2.1 beside the hit latency of each space measured here (experiment
    memory_latency: `mwsep hardware-micro --tests spaces,latency`), with a verdict per space that can fail."""
    tables = facts.published["memory_tables"]
    ryoo, munch = tables["ryoo_table_1"]["rows"], tables["munch_table_2_1"]["rows"]
    rows = facts.files.optional("memory_latency")
    # L1, L2 and global memory are measured by hardware_micro too (the same chase): used where memory_latency is absent.
    earlier = [r for r in facts.files.optional("hardware_micro") or [] if r["test"] == "latency"]
    cyc, ns = {}, {}
    for r in (rows if rows is not None else earlier):
        if r["test"] == "latency":
            cyc.setdefault(r["case"], []).append(float(r["value"]))
            if r["ns_per_access"]:
                ns.setdefault(r["case"], []).append(float(r["ns_per_access"]))
    # The smallest buffer's value per case (the global case has two buffers: the one nearer L2's size is the
    # latency of memory with the fewest translation misses, as the thesis's row of the detail table).
    cyc = {k: min(v) for k, v in cyc.items()}
    ns = {k: min(v) for k, v in ns.items()}
    if rows is None:
        ctx.fallback("table_memory_latency (measured column)", "memory_latency was not recorded on this GPU",
                     [facts.files.path("memory_latency")])

    def measured(cases):
        got = [f"{CASE_NAMES[c]}: {fmt(cyc[c], 3)} cycles ({fmt(ns[c], 3)} ns)" for c in cases if c in cyc]
        return "; ".join(got) if got else ("not measured on this GPU" if cases else "not measured (local memory is "
                                                                                  "global memory, cached as it is)")

    def verdict(space):
        reg = cyc.get("register")
        if not cyc:
            return "not judged: not measured on this GPU"
        if space in ("shared", "constant") and reg and space in cyc:
            ratio = cyc[space] / reg
            near = ratio <= 2
            text = (f"{'confirmed' if near else 'not confirmed'}: {fmt(ratio, 2)} x a register operation")
            if space == "constant" and "shared" in cyc:
                same = 2 / 3 <= cyc["constant"] / cyc["shared"] <= 1.5
                text += (f"; Münch's 'same as shared': {'confirmed' if same else 'not confirmed'} "
                         f"({fmt(cyc['constant'] / cyc['shared'], 2)} x shared)")
            return text
        if space == "texture" and "texture" in cyc:
            over = tables["texture_over_cycles"]["value"]
            return f"{'confirmed' if cyc['texture'] > over else 'not confirmed'}: over {over} cycles"
        if space == "global" and "global" in cyc:
            g = tables["global_low"]
            inside = g["low"] <= cyc["global"] <= g["high"]
            return (f"{'confirmed' if inside else 'not confirmed'}: {g['low']}-{g['high']} cycles; "
                    f"{fmt(cyc['global'] / cyc['l1'], 2) if 'l1' in cyc else '-'} x an L1 hit, which the G80 did not have for "
                    "global memory")
        return "-"
    body = []
    for space, key, cases in SPACES:
        r, m = ryoo.get(key), munch.get(key)
        body.append([space, r["latency"] if r else "-", m["latency"] if m else "-",
                     f"{r['location']}, {r['size']}, read-only {r['read_only']}, scope {r['scope']}" if r else "-",
                     measured(cases), verdict(space)])
    ctx.tables["table_memory_latency"] = table(
        f"Table R@: the hit latency of each memory space as Ryoo et al.'s Table 1 (8800 GTX) and Münch's Table 2.1 "
        f"(Quadro FX 3700) give it, Ryoo et al.'s location, size, read-only and scope columns, and the latency "
        f"measured on the {short} by a one-thread dependent chase in each space (experiment memory_latency, or for L1, L2 "
        "and global memory hardware_micro where it is not recorded; cycles of "
        "the SM clock and nanoseconds per access; each chase checked against the host's walk), with a verdict on "
        "each published figure.", ["space", "Ryoo et al. Table 1", "Münch Table 2.1", "Ryoo et al.: location, size, "
                                   "read-only, scope", f"measured on the {short}", "verdict"], body,
        widths=[8, 10, 10, 20, 30, 22])


def build(ctx, facts):
    n = ctx.n
    short = available(facts.gpu).short
    memory_latency_table(ctx, facts, short)
    claims = facts.published["hardware_claims"]
    rows = facts.files.optional("hardware_micro")
    memory = facts.files.optional("device_memory")
    n["micro_measured"] = "yes" if rows else "no"
    if not rows:
        ctx.fallback("table_micro_detail", "hardware_micro was not recorded", [facts.files.path("hardware_micro")])
    if not rows and not memory:
        ctx.tables["table_micro"] = (f"*The hardware microbenchmarks (experiments hardware_micro and device_memory) were "
                                     f"{NOT_RECORDED} ({short}).*\n")
        ctx.tables["table_micro_detail"] = ""
        return
    body = claim_rows(rows or [], claims, short) + [memory_row(memory, claims, facts.final, short)]
    ctx.tables["table_micro"] = table(
        f"Table R@: the hardware explanations of the thesis and of Ryoo et al., measured on the {short} "
        "(experiments hardware_micro and device_memory; every microbenchmark checks its own result before it "
        "reports): the claim, its document, the measurement, the verdict and where it belongs.",
        ["claim", "document", "measured here", "verdict", "where"], body)
    if not rows:
        ctx.tables["table_micro_detail"] = ""
        return
    body = []
    for r in rows:
        extra = (f"{fmt(float(r['ns_per_access']), 3)} ns" if r["ns_per_access"] else
                 f"{fmt(float(r['kernel_ms']), 3)} ms" if r["kernel_ms"] else "")
        param = int(float(r["param"]))
        label = {"latency": f"{fmt(param / 2**20, 4)} MiB", "constant": f"{param} distinct"}.get(r["test"], f"stride {param}")
        body.append([r["test"], r["case"], r["element_bytes"], label, fmt(float(r["value"]), 3), r["unit"], extra])
    ctx.tables["table_micro_detail"] = table(
        f"Table R@: every microbenchmark row on the {short}: latency per dependent load (one thread: L1-, L2- and "
        "global-memory-sized chases), cycles per dependent warp load of constant (or global) memory at k distinct "
        "addresses, useful bandwidth of strided whole-GPU reads, and SM cycles per warp access of shared memory "
        "at a stride (16 warps).",
        ["test", "case", "bytes", "size or stride", "value", "unit", "time"], body)
