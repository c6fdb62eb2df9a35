"""The paper's analysis redone with today's tools: the potential throughput of each variant from the
instruction mix (SASS inner loop, statically; executed instructions, from Nsight Compute) against the
achieved rate, and the DRAM traffic of each variant (does tiling still cut it 16x when caches catch V0's reuse?)."""
from paper.report.common import MissingData, big, fmt, need, table
from paper.report.facts import available

from ..facts import Traffic, by_variant

LANES_PER_SM = 128  # FP32 lanes, and thread instructions issued per clock, of a Hopper SM (4 x 32)
ORDER = ["naive", "tiled-4", "tiled-8", "tiled-12", "tiled-16", "unrolled-16", "prefetch-16",
         "unrolled-16-g80-3blocks", "unrolled-16-g80-2blocks", "prefetch-16-g80-2blocks", "register-tiled-scalar",
         "register-tiled-vector", "register-tiled-vector-double", "register-tiled-vector-double-warp"]


def direction(naive_over_tiled):
    """How traffic changes from V0 to the tiled kernel, given naive / tiled: "falls N times" or "rises N times"."""
    if naive_over_tiled >= 1:
        return f"falls {fmt(naive_over_tiled)} times"
    return f"rises {fmt(1 / naive_over_tiled)} times"


def build(ctx, facts):
    n, pub, lad = ctx.n, facts.published, available(facts.ladder)
    gf, clock, sms, size = lad.gflops, lad.clock, lad.sm_count, lad.size
    sass = by_variant(facts.files.rows("sass_loops"))
    ncu = facts.files.optional("ncu_ladder")
    ncu = by_variant(ncu) if ncu else {}

    def potential(fraction, variant):
        mhz = need(clock, variant, "ladder.csv")
        if mhz <= 0:
            raise MissingData(f"ladder.csv: no SM clock recorded for {variant} (NVML unavailable)",
                              [facts.files.path("ladder")])
        return 2 * fraction * LANES_PER_SM * sms * mhz / 1e3

    body = []
    for v in ORDER:
        s = need(sass, v, "sass_loops.csv")
        static = float(s["ffma_fraction"])
        row = [v, f"{s['ffma']} / {s['loop_instructions']}", fmt(potential(static, v))]
        if v in ncu:
            dyn = float(ncu[v]["ffma_thread_instructions"]) / float(ncu[v]["thread_instructions"])
            row += [f"{100 * dyn:.1f}%", fmt(potential(dyn, v)), f"{float(ncu[v]['fma_pipe_pct']):.0f}%"]
        else:
            row += ["not recorded"] * 3
        row += [fmt(gf[v]), f"{100 * gf[v] / potential(static, v):.0f}%"]
        body.append(row)
    ctx.tables["table_ryoo_mix"] = table(
        f"Table R@: principle P-a redone on the {lad.gpu}: FFMAs among the instructions of each kernel's innermost "
        "loop in the SASS and the potential rate they allow (2 x share x 128 lanes x SMs x the SM clock recorded "
        "while timing), the FFMA share of all executed thread instructions and its potential (Nsight Compute, one "
        "launch), the FMA pipe's use, the achieved rate and its share of the static potential.",
        ["variant", "FFMA / loop instr.", "potential (loop)", "FFMA share (executed)", "potential (executed)",
         "FMA pipe", "achieved", "achieved / potential (loop)"], body)
    naive_loop = need(sass, "naive", "sass_loops.csv")
    unrolled_loop = need(sass, "unrolled-16", "sass_loops.csv")
    n["ryoo_naive_loop_mix"] = f"{naive_loop['ffma']} FFMA in {naive_loop['loop_instructions']}"
    n["ryoo_unrolled_loop_mix"] = f"{unrolled_loop['ffma']} FFMA in {unrolled_loop['loop_instructions']}"
    n["ryoo_pub_naive_mix"] = pub["potential_gflops"]["naive_ffma_per_instruction"]
    n["ryoo_pub_unrolled_mix"] = pub["potential_gflops"]["unrolled-16_ffma_per_instruction"]
    n["ryoo_unrolled_achieved_of_potential"] = \
        f"{100 * gf['unrolled-16'] / potential(float(unrolled_loop['ffma_fraction']), 'unrolled-16'):.0f}"

    if not ncu:
        ctx.tables["table_ryoo_dram"] = "The Nsight Compute measurements were not recorded on this GPU.\n"
        ctx.tables["para_ryoo_dram"] = ""
        ctx.fallback("table_ryoo_dram", "the profiler's counts (ncu_ladder) were not recorded",
                     [facts.files.path("ncu_ladder")])
        return
    traffic = facts.traffic
    if not isinstance(traffic, Traffic):
        traffic = available(traffic)
    # Operand bytes the kernels request from global memory: V0 reads 2 n^3 floats, a T x T tiling 2 n^3 / T.
    requested = {"naive": 8.0 * size ** 3}
    for t in (4, 8, 12, 16):
        requested[f"tiled-{t}"] = 8.0 * size ** 3 / t
    dram_body = []
    for v in ["naive", "tiled-4", "tiled-8", "tiled-12", "tiled-16", "unrolled-16", "register-tiled-vector-double-warp"]:
        r = need(ncu, v, "ncu_ladder.csv")
        dram = float(r["dram_read_bytes"]) + float(r["dram_write_bytes"])
        dram_body.append([v, big(requested[v]) if v in requested else "", big(float(r["l2_bytes"])), big(dram),
                          f"{dram / (12.0 * size * size):.1f}"])
    ctx.tables["table_ryoo_dram"] = table(
        f"Table R@: memory traffic of one launch at n = {size} on the {lad.gpu} (Nsight Compute): the operand bytes "
        "the kernel's loads request (2 n^3 / T floats for a T x T tiling), the bytes the L2 cache served, the DRAM "
        "bytes read and written, and the DRAM bytes in units of the three matrices' size (12 n^2 bytes).",
        ["variant", "requested by loads", "L2 traffic", "DRAM traffic", "DRAM / matrices"], dram_body)
    n["ryoo_dram_ratio"] = fmt(traffic.dram_ratio)
    n["ryoo_l2_ratio"] = fmt(traffic.l2_ratio)
    n["ryoo_naive_dram"] = big(traffic.dram["naive"])
    n["ryoo_naive_requested"] = big(requested["naive"])
    ctx.tables["para_ryoo_dram"] = (
        f"V0 asks global memory for {n['ryoo_naive_requested']} bytes of operands; DRAM delivers "
        f"{n['ryoo_naive_dram']} bytes. Between V0 and 16 x 16 tiling the L2 traffic {direction(traffic.l2_ratio)} and "
        f"the DRAM traffic {direction(traffic.dram_ratio)}, where the paper counted the loads falling 16 times.\n")
