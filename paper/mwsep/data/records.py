"""The recorded re-runs of the artifact (experiments/records/): every comparison of one results folder with another
(a GPU against the other, a folder recorded again against the one it replaced, the reviewer's kit against the
committed folder) with its verdict counts, and each claim of the kit's recorded runs with its verdict and time."""
from paper.report.common import rel, table
# The order compare.py counts its verdicts in; a verdict not listed here still gets a column.
VERDICTS = ["agrees", "differs", "not compared", "unreadable", "not re-run", "missing", "new"]


def folder(path):
    """A results folder as a record names it, from experiments/ on (a kit run names the absolute path of its host)."""
    return path[path.index("experiments/"):] if "experiments/" in path else path


def build(ctx, facts):
    data = facts.records.compares
    if not data:
        ctx.tables["table_records"] = "No comparison is recorded in `experiments/records/`.\n"
    else:
        # Only the verdicts some record has (a column of zeros says nothing).
        seen = {v for _, d in data for v, n in d["totals"].items() if n}
        columns = [v for v in VERDICTS if v in seen] + sorted(seen - set(VERDICTS))
        body = [[f"`{name}`", f"`{folder(d['new'])}`", f"`{folder(d['ref'])}`"]
                + [d["totals"].get(v, 0) for v in columns] for name, d in data]
        ctx.tables["table_records"] = table(
            "Table R@: every comparison of two results folders recorded in `experiments/records/` (each record "
            "holds `compare.md`, with the verdict and the change of every result file): the folder, the one it was "
            "compared with, and how many result files got each verdict (a verdict no record has is left out). "
            "Folders recorded on different GPUs or hosts differ by design; `compare.md` says by how much.",
            ["record", "folder", "compared with"] + columns, body,
            widths=[24, 20, 20] + [36 // len(columns)] * len(columns))
    kits = facts.records.kits
    if not kits:
        ctx.tables["table_kit_records"] = "No run of the kit is recorded yet.\n"
        return
    # One row per claim, one column per recorded run: what it said of the claim and the seconds the claim's runs
    # took. The claim-level kit (kit_format 2) judges the claim and, apart, the repeatability of its timings; the
    # first kit said only whether the same medians came back, which is no verdict on the claim.
    def claim_level(r):
        return r.get("kit_format", 1) >= 2

    def same_as_committed(r):
        """Whether each claim's verdict in run @p r was the committed folder's, in words."""
        other = [c["id"] for c in r["claims"] if c.get("committed_verdict") not in (None, c["verdict"])]
        return ("the claim-level kit, every claim's verdict the committed folder's" if not other else
                "the claim-level kit, the verdicts of " + ", ".join(f"`{i}`" for i in other) +
                " other than the committed folder's")

    claims = {}
    for _, r in kits:
        for c in r["claims"]:
            claims.setdefault(c["id"], c["study"])
    by_run = [{c["id"]: c for c in r["claims"]} for _, r in kits]
    body = []
    for cid, study in claims.items():
        row = [f"`{cid}`", study]
        for (_, r), by_id in zip(kits, by_run):
            c = by_id.get(cid)
            seconds = r.get("claims_state", {}).get(cid, {}).get("seconds")
            if c is None:
                row.append("not declared then")
                continue
            said = (f"{c['verdict']}; timings {c.get('repeatability', 'not compared')}" if claim_level(r)
                    else f"timings {c['verdict']}")
            row.append(f"{said}, {seconds:.0f} s" if seconds is not None else said)
        body.append(row)
    runs = "; ".join(
        f"run {i}: {r['gpu']} at commit {r['commit'][:7]}{' with uncommitted changes' if r.get('dirty') else ''}, "
        f"against `{r['reference']}`, {r['total_s']:.0f} s in all ({r['estimate_s']:.0f} s estimated before it), "
        + (same_as_committed(r) if claim_level(r) else "the first kit, which compared the timings only") +
        f"; reasons and deciding files in `{rel(p.parent)}/reproduce_check.md`" for i, (p, r) in enumerate(kits, 1))
    ctx.tables["table_kit_records"] = table(
        "Table R@: the reviewer's kit (`make reproduce-check`) as recorded, per headline claim: the claim-level kit's "
        "verdict on the claim (holds, does not hold here, not testable here) and, apart, whether the claim's timings "
        "repeated those of the committed folder; the "
        "first kit's line is that repeatability alone, no verdict on the claim; then the seconds the claim's runs "
        f"took. {runs[0].upper()}{runs[1:]}.",
        ["claim", "study"] + [f"run {i}" for i in range(1, len(kits) + 1)], body,
        widths=[34, 14] + [52 // len(kits)] * len(kits))
