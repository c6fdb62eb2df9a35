"""Where every number of the chapters comes from: each result file read, its experiment, commit and date."""
import json

from paper.report.common import cache_paragraph, meta_path_of, provenance_caption, rel, table


def build(ctx):
    ctx.tables["para_cache"] = cache_paragraph(ctx)
    body, metas = [], []
    for path in sorted(ctx.read, key=str):
        meta_path = meta_path_of(path)
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        metas.append(meta)
        body.append([rel(path), meta.get("experiment", ""),
                     meta.get("git_commit", "")[:7] + (" (dirty)" if meta.get("git_dirty") else ""), meta.get("date_utc", ""),
                     meta.get("gpu_name", "host only")])
    ctx.tables["kh_provenance"] = table(provenance_caption(
        "Table R@: the result files this study's chapters read, with the experiment that wrote each, the "
        "commit it ran at and when.", metas), ["file", "experiment", "commit", "date (UTC)", "device"], body)
