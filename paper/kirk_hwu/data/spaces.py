"""The memory-space question asked of the MRI kernel: the tuned kernel with its samples in each space."""
from paper.report.common import fmt, table
from paper.report.facts import available

from ..facts import need, rates
from .common import comparative

SPACES = [("global", "global memory, ordinary loads"), ("readonly", "global memory, read-only cache (__ldg)"),
          ("constsoa", "constant memory, separate arrays"), ("constaos", "constant memory, records"),
          ("shared", "shared memory, tiles of records"), ("param", "kernel parameter (__grid_constant__)")]


def build(ctx, facts):
    n = ctx.n
    r = rates(facts.files.rows("mri_memory_spaces"))
    body = []
    best = {}
    for prefix in ("q", "fhd"):
        best[prefix] = max(need(r, (f"{prefix}-{s}-regs-sfu-u4-f32", "full"), "mri_memory_spaces") for s, _ in SPACES)
    for space, label in SPACES:
        q, f = r[(f"q-{space}-regs-sfu-u4-f32", "full")], r[(f"fhd-{space}-regs-sfu-u4-f32", "full")]
        body.append([label, fmt(q / 1e12, 3), f"{fmt(100 * q / best['q'], 3)}%", fmt(f / 1e12, 3),
                     f"{fmt(100 * f / best['fhd'], 3)}%"])
        n[f"kh_space_q_{space}"] = fmt(100 * q / best["q"], 3)
        n[f"kh_space_fhd_{space}"] = fmt(100 * f / best["fhd"], 3)
    for prefix in ("q", "fhd"):
        fastest = max(SPACES, key=lambda s: r[(f"{prefix}-{s[0]}-regs-sfu-u4-f32", "full")])
        n[f"kh_space_fastest_{prefix}"] = fastest[1]
        const = r[(f"{prefix}-constaos-regs-sfu-u4-f32", "full")]
        glob = r[(f"{prefix}-global-regs-sfu-u4-f32", "full")]
        n[f"kh_space_const_word_{prefix}"] = comparative(const / glob)
        n[f"kh_space_const_ratio_{prefix}"] = fmt(max(const / glob, glob / const))
    ctx.tables["kh_spaces"] = table(
        f"Table R@: the tuned MRI kernel (F8: registers, SFU sin and cos, inner loop unrolled 4 times) with the "
        f"k-space samples in each memory space, 128³ voxels × 100 000 samples on the {available(facts.gpu).name}: "
        "median rate in 10¹² pairs per second and as a share of the fastest space.",
        ["where the samples live", "Q (10¹² pairs/s)", "Q, of fastest", "F^H d (10¹² pairs/s)",
         "F^H d, of fastest"], body)
