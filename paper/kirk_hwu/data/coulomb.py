"""Direct Coulomb summation: the ladder D0–D4, coarsening and atom placement, against the CPU loop."""
from paper.report.common import fmt, table
from paper.report.facts import available

from ..facts import need, rates
from .common import repeat_note

VARIANTS = ["dcs-global-sqrt-p1", "dcs-constant-sqrt-p1", "dcs-constant-rsqrt-p1", "dcs-constant-rsqrt-adjacent4",
            "dcs-constant-rsqrt-coalesced4", "dcs-constant-rsqrt-coalesced2", "dcs-constant-rsqrt-coalesced8",
            "dcs-global-rsqrt-coalesced4", "dcs-shared-rsqrt-coalesced4"]


def build(ctx, facts):
    n = ctx.n
    rows = facts.files.rows("coulomb_ladder")
    r = rates(rows)
    step = {x["variant"]: x["step"] for x in rows}
    desc = {}
    cpu = rates(facts.files.rows("cpu_baselines"), key=("problem", "precision"))
    cpu32 = need(cpu, ("coulomb", "f32"), "cpu_baselines")
    body, prev = [], None
    for v in VARIANTS:
        rate = need(r, (v, "full"), "coulomb_ladder")
        s = step[v]
        gain = f"{fmt(rate / prev)}x" if prev and s.startswith("D") else ""
        body.append([v, s, fmt(rate / 1e12, 3), gain, f"{fmt(rate / cpu32)}x"])
        n[f"kh_dcs_rate_{v.replace('-', '_')}"] = fmt(rate / 1e12, 3)
        n[f"kh_dcs_speedup_{v.replace('-', '_')}"] = fmt(rate / cpu32)
        if s.startswith("D"):
            prev = rate
        desc[v] = rate
    n["kh_dcs_cpu_repeats"] = repeat_note([r for r in facts.files.rows("cpu_baselines") if r["problem"] == "coulomb"])
    n["kh_dcs_cpu_f32"] = fmt(cpu32 / 1e6)
    n["kh_dcs_cpu_f64"] = fmt(need(cpu, ("coulomb", "f64"), "cpu_baselines") / 1e6)
    n["kh_dcs_best"] = max(desc, key=desc.get)
    n["kh_dcs_best_speedup"] = fmt(max(desc.values()) / cpu32)
    n["kh_pub_cp_speedup"] = str(facts.published["s1_table3"]["CP"]["kernel_speedup"])
    ctx.tables["kh_coulomb"] = table(
        f"Table R@: direct Coulomb summation on a 512 × 512 × 32 lattice with 40 000 atoms on the "
        f"{available(facts.gpu).name}: median rate in 10¹² atom-point pairs per second, the gain of each published "
        "step over the one before, and the speed-up over the single-precision CPU loop on one core (timed on "
        f"the small input, {n['kh_dcs_cpu_repeats']}).",
        ["variant", "step", "rate (10¹² pairs/s)", "gain over previous step", "over CPU FP32, 1 core"], body)
