"""The throughput bound of each best variant, from the measured instruction rates.

Two pipes work side by side in every inner loop: the special-function unit (MUFU: sin, cos, rsqrt) and the
FP32 pipe (FMA, FMUL, FADD). A variant can complete no more pairs per second than either pipe allows:

    bound = min(rate of the loop's MUFU work, FP32 rate / FP32 operations per pair).

The MUFU work is timed as the loop issues it: a sin+cos pair of one argument (`__sinf`, `__cosf`, each
with its argument-scaling FMUL) for MRI, one `rsqrtf` for Coulomb. The FP32 operations per pair are listed
in FP32_OPS below (for MRI counted in the compiled code); the argument-scaling FMUL is counted on the FP32
side as well, since it issues there."""
import statistics

from paper.report.common import fmt, table
from paper.report.facts import available

from ..facts import rates

from paper.report.targets import KIRK_HWU_BOUND_SHARE_PCT as TARGET_SHARE_PCT  # who set it and why: Table of targets

# FP32-pipe operations per pair of the best variants' inner loops. MRI: counted in the SASS that nvcc 13
# makes for sm_90 (nvdisasm of the kernels' cubin), since the source does not say what the compiler fuses:
#   Q:     phase kx·x + ky·y + kz·z (1 FMUL + 2 FFMA), × 2π (1 FMUL), one argument scaling shared by
#          MUFU.SIN and MUFU.COS (1 FMUL.RZ), r += w cos, i += w sin (2 FFMA)                    = 7
#   F^H d: as Q, with four FFMAs for r += rμ cos − iμ sin, i += iμ cos + rμ sin (pair_math.hpp writes
#          them as four separate updates so that each contracts to one FFMA)                       = 9
#   Coulomb (counted in the source), 4 points per thread: per point dx (FADD), dx² + (dy² + dz²)
#          (FFMA), e += q·r (FFMA); per atom dy (FADD) and dy² + dz² (FFMA), shared by the 4 points = 3.5
FP32_OPS = {"q": 7, "fhd": 9, "dcs": 3.5}
MUFU_OP = {"q": "sincos_pair", "fhd": "sincos_pair", "dcs": "rsqrt"}


def build(ctx, facts):
    n = ctx.n
    rate_rows = facts.files.rows("rates")
    op_rate = {}
    for op in ("ffma", "sincos_pair", "rsqrt"):
        op_rate[op] = statistics.median(float(r["ops_per_second"]) for r in rate_rows if r["operation"] == op)
    sms = int(rate_rows[0]["sm_count"])
    clock = statistics.median(float(r["sm_clock_mhz"]) for r in rate_rows) * 1e6
    for op, v in op_rate.items():
        n[f"kh_rate_{op}"] = fmt(v / 1e12, 3)
        n[f"kh_rate_{op}_per_sm_clk"] = fmt(v / sms / clock, 3) if clock > 0 else "unknown"
    n["kh_rates_clock_mhz"] = fmt(clock / 1e6, 4)
    key = ("variant", "size", "threads_per_block", "chunk")
    mri = rates(facts.files.rows("mri_memory_spaces"), key=key)
    mri.update(rates(facts.files.rows("mri_tuning"), key=key))
    dcs = rates(facts.files.rows("coulomb_ladder"), key=key)
    body = []
    for prefix, label, table_rates in (("q", "MRI Q", mri), ("fhd", "MRI F^H d", mri), ("dcs", "Coulomb", dcs)):
        candidates = {k: v for k, v in table_rates.items() if k[0].startswith(prefix + "-") and k[1] == "full"}
        (variant, _, threads, chunk), best = max(candidates.items(), key=lambda kv: kv[1])
        mufu = op_rate[MUFU_OP[prefix]]
        fp32 = op_rate["ffma"] / FP32_OPS[prefix]
        bound = min(mufu, fp32)
        share = 100 * best / bound
        limiter = "special-function unit" if mufu <= fp32 else "FP32 pipe"
        body.append([label, f"{variant} ({threads} threads/block" + (f", chunk {chunk}" if chunk != "0" else "") + ")",
                     fmt(best / 1e12, 3), fmt(mufu / 1e12, 3), f"{fmt(fp32 / 1e12, 3)} ({FP32_OPS[prefix]} ops)",
                     fmt(bound / 1e12, 3), limiter, f"{fmt(share, 3)}%"])
        n[f"kh_bound_{prefix}"] = fmt(bound / 1e12, 3)
        n[f"kh_best_{prefix}"] = fmt(best / 1e12, 3)
        n[f"kh_best_variant_{prefix}"] = variant
        n[f"kh_share_{prefix}"] = fmt(share, 3)
        n[f"kh_limiter_{prefix}"] = limiter
        n[f"kh_target_{prefix}"] = "reaches" if share >= TARGET_SHARE_PCT else "falls short of"
    ctx.tables["kh_bounds"] = table(
        f"Table R@: the best variant of each computation at the full size on the {available(facts.gpu).name} against "
        "the bound that the measured rates imply (10¹² pairs per second): the MUFU bound is the rate of the "
        "loop's special-function work per pair, the FP32 bound the FMA rate divided by the FP32 operations "
        "per pair; the bound is the smaller of the two.",
        ["computation", "best variant", "measured", "MUFU bound", "FP32 bound", "bound", "limited by",
         "share of bound"], body)
