"""Registers, local memory and occupancy of every variant's kernel, beside S1 Table 3's register counts."""
from paper.report.common import MissingData, fmt, table
from paper.report.facts import available

# The variant each of S1's application rows is set beside: the documents' final step of each ladder.
S1_ROWS = {"MRI-Q": "q-constaos-regs-sfu-u4-f32", "MRI-FHD": "fhd-constaos-regs-sfu-u4-f32",
           "CP": "dcs-constant-rsqrt-coalesced4"}


def build(ctx, facts):
    n = ctx.n
    rows = facts.files.rows("resources")
    by = {r["variant"]: r for r in rows}
    s1 = facts.published["s1_table3"]
    body = []
    for r in rows:
        body.append([r["variant"], r["step"], r["registers"], r["local_bytes"], r["threads_per_block"],
                     f"{fmt(float(r['occupancy_pct']), 3)}%"])
    ctx.tables["kh_resources"] = table(
        f"Table R@: every variant's kernel on the {available(facts.gpu).name}: registers per thread and local memory "
        "per thread as the runtime reports them, and the occupancy (resident threads as a share of the SM's "
        "maximum) at the variant's own block size.",
        ["variant", "step", "registers", "local bytes", "threads per block", "occupancy"], body)
    for app, variant in S1_ROWS.items():
        key = app.lower().replace("-", "_")
        if variant not in by:
            raise MissingData(f"resources: no row for {variant}")
        n[f"kh_regs_{key}"] = by[variant]["registers"]
        n[f"kh_regs_pub_{key}"] = str(s1[app]["registers"])
