"""Where every number of the chapters comes from: each result file read, its experiment, commit and date."""
from paper.report.common import cache_paragraph, provenance_pointer, read_with_provenance, rel, table


def build(ctx, facts):
    ctx.tables["para_cache"] = cache_paragraph(facts.files)
    body, metas = [], []
    for path, meta in read_with_provenance(facts.files):
        metas.append(meta)
        body.append([rel(path), meta.get("experiment", ""),
                     meta.get("git_commit", "")[:7] + (" (dirty)" if meta.get("git_dirty") else ""), meta.get("date_utc", ""),
                     meta.get("gpu_name", "host only")])
    ctx.tables["kh_provenance"] = provenance_pointer(metas) + table(
        "Table R@: the result files this study's chapters read, with the experiment that wrote each, the "
        "commit it ran at and when.", ["file", "experiment", "commit", "date (UTC)", "device"], body)
