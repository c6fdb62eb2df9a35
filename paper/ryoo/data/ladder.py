"""§1.3 of the spec: the ladder V0 -> V3 at n = 4096, the tile sizes of Figure 4, the residency emulation of
the register cliff, the later steps and the libraries, with registers and occupancy per variant."""
from paper.report.common import fmt, need, table
from paper.report.facts import available

from ..facts import LADDER, MODERN, TILES, by_variant


def build(ctx, facts):
    n, pub = ctx.n, facts.published
    lad = available(facts.ladder)
    gpu, size, gf = lad.gpu, lad.size, lad.gflops
    ratio = {r["variant"]: float(r["max_error_ratio"]) for r in facts.files.rows("ladder")}
    listing = by_variant(facts.files.rows("variants"))
    occupancy = {}
    ncu = facts.files.optional("ncu_ladder")
    if ncu:
        occupancy = {r["variant"]: float(r["achieved_occupancy_pct"]) for r in ncu}
    n["ryoo_gpu"] = gpu
    n["ryoo_n"] = str(size)
    n["ryoo_sm_count"] = str(lad.sm_count)

    def speedup(a, b):
        return need(gf, a, "ladder.csv") / need(gf, b, "ladder.csv")

    body = []
    previous = None
    for v in LADDER:
        l = need(listing, v, "variants.csv")
        step = l["step"]
        measured_step = f"{speedup(v, previous):.2f}x" if previous else ""
        published_step = f"{pub['ladder_gflops'][v] / pub['ladder_gflops'][previous]:.2f}x" if previous else ""
        body.append([step, v, fmt(pub["ladder_gflops"][v]), fmt(gf[v]), published_step, measured_step,
                     f"{pub['ladder_registers'][v]} / {l['registers']}",
                     f"{pub['ladder_threads_per_sm'][v]} / {int(l['warps_per_sm']) * 32}",
                     f"{occupancy[v]:.0f}%" if v in occupancy else "not recorded"])
        previous = v
    ctx.tables["table_ryoo_ladder"] = table(
        f"Table R@: the paper's ladder at n = {size}: GFLOP/s on the 8800 GTX (published) and on one {gpu} "
        "(median of the timed launches), the speed-up of each step over the one before, registers per thread "
        "and resident threads per SM (published / here, from the CUDA runtime's occupancy calculator), and the "
        "achieved occupancy from Nsight Compute.",
        ["step", "variant", "8800 GTX GFLOP/s", f"{gpu} GFLOP/s", "step (paper)", "step (here)",
         "registers", "threads per SM", "achieved occupancy"], body)
    n["ryoo_pub_naive_gflops"] = f"{pub['ladder_gflops']['naive']:.2f}"
    n["ryoo_pub_unrolled_gflops"] = f"{pub['ladder_gflops']['unrolled-16']:.2f}"
    n["ryoo_pub_prefetch_loss"] = f"{100 * (1 - pub['ladder_gflops']['prefetch-16'] / pub['ladder_gflops']['unrolled-16']):.1f}"
    n["ryoo_pub_prefetch_registers"] = str(pub["ladder_registers"]["prefetch-16"])
    n["ryoo_pub_threads_per_sm"] = str(pub["hardware"]["threads_per_sm"])
    n["ryoo_naive_gflops"] = fmt(gf["naive"])
    n["ryoo_tiled16_gflops"] = fmt(gf["tiled-16"])
    n["ryoo_unrolled16_gflops"] = fmt(gf["unrolled-16"])
    n["ryoo_prefetch16_gflops"] = fmt(gf["prefetch-16"])
    n["ryoo_step_tiling"] = f"{speedup('tiled-16', 'naive'):.2f}"
    n["ryoo_step_unrolling"] = f"{speedup('unrolled-16', 'tiled-16'):.2f}"
    n["ryoo_step_prefetch"] = f"{speedup('prefetch-16', 'unrolled-16'):.2f}"
    n["ryoo_pub_step_tiling"] = f"{pub['ladder_gflops']['tiled-16'] / pub['ladder_gflops']['naive']:.2f}"
    n["ryoo_pub_step_unrolling"] = f"{pub['ladder_gflops']['unrolled-16'] / pub['ladder_gflops']['tiled-16']:.2f}"
    n["ryoo_pub_step_prefetch"] = f"{pub['ladder_gflops']['prefetch-16'] / pub['ladder_gflops']['unrolled-16']:.3f}"

    tile_body = []
    for t in TILES:
        rolled, unrolled = f"tiled-{t}", f"unrolled-{t}"
        lr, lu = need(listing, rolled, "variants.csv"), need(listing, unrolled, "variants.csv")
        tile_body.append([f"{t} x {t}", fmt(gf[rolled]), fmt(gf[unrolled]), f"{gf[unrolled] / gf[rolled]:.2f}x",
                          f"{gf[rolled] / gf['naive']:.2f}x", f"{lr['warps_per_sm']} / {lu['warps_per_sm']}",
                          f"{lr['registers']} / {lu['registers']}"])
    ctx.tables["table_ryoo_tiles"] = table(
        f"Table R@: Figure 4 of the paper redone: tile sizes with the inner loop rolled (V1) and unrolled (V2) on "
        f"one {gpu} at n = {size} (12 x 12 pads the matrices to a multiple of 12); warps per SM and registers "
        "are V1 / V2.",
        ["tile", "V1 GFLOP/s", "V2 GFLOP/s", "V2 over V1", "V1 over V0", "warps per SM", "registers"], tile_body)
    n["ryoo_smallest_tile"] = f"{TILES[0]} x {TILES[0]}"
    n["ryoo_tiled4_over_naive"] = f"{gf['tiled-4'] / gf['naive']:.2f}"

    cliff = ["unrolled-16-g80-3blocks", "unrolled-16-g80-2blocks", "prefetch-16-g80-2blocks"]
    cliff_body = []
    for v in ["unrolled-16", "prefetch-16"] + cliff:
        l = need(listing, v, "variants.csv")
        cliff_body.append([v, l["blocks_per_sm"], str(int(l["warps_per_sm"]) * 32), l["registers"], fmt(gf[v]),
                           f"{occupancy[v]:.0f}%" if v in occupancy else "not recorded"])
    ctx.tables["table_ryoo_cliff"] = table(
        f"Table R@: the register cliff emulated on one {gpu}: shared-memory ballast leaves exactly 3 blocks of 256 "
        "threads per SM (the G80's 768 threads) or 2 (what one register more cost on the G80); n = "
        f"{size}.", ["variant", "blocks per SM", "threads per SM", "registers", "GFLOP/s", "achieved occupancy"],
        cliff_body)
    n["ryoo_cliff_loss"] = f"{100 * (1 - gf['unrolled-16-g80-2blocks'] / gf['unrolled-16-g80-3blocks']):.1f}"
    n["ryoo_cliff_prefetch_vs_unrolled"] = f"{100 * (gf['prefetch-16-g80-2blocks'] / gf['unrolled-16-g80-3blocks'] - 1):+.1f}"

    best = lad.best
    cublas = need(gf, "cublas-fp32", "ladder.csv")
    modern_body = []
    previous = "unrolled-16"
    for v in MODERN + ["cublas-fp32", "cublas-tf32"]:
        l = listing.get(v)
        modern_body.append([need(listing, v, "variants.csv")["step"] if l else "library", v, fmt(gf[v]),
                            f"{gf[v] / gf[previous]:.2f}x" if v in MODERN else "",
                            f"{100 * gf[v] / cublas:.0f}%", l["registers"] if l else "", f"{ratio[v]:.2g}"])
        previous = v
    ctx.tables["table_ryoo_modern"] = table(
        f"Table R@: beyond 2008 on one {gpu} at n = {size}: each register-tiled step adds one policy to the one "
        "before (the first is compared with V2, unrolled-16); the share of cuBLAS FP32 SGEMM; the worst error of "
        "the checked product as a fraction of its bound.",
        ["step", "variant", "GFLOP/s", "over the step before", "of cuBLAS FP32", "registers", "error / bound"],
        modern_body)
    n["ryoo_best_variant"] = best
    n["ryoo_best_gflops"] = fmt(gf[best])
    n["ryoo_cublas_fp32_gflops"] = fmt(cublas)
    n["ryoo_cublas_tf32_gflops"] = fmt(gf["cublas-tf32"])
    n["ryoo_best_of_cublas"] = f"{100 * gf[best] / cublas:.0f}"
    n["ryoo_tf32_over_fp32"] = f"{gf['cublas-tf32'] / cublas:.2f}"
    n["ryoo_best_over_naive"] = fmt(gf[best] / gf["naive"])
    n["ryoo_max_error_ratio"] = f"{max(ratio.values()):.2g}"
