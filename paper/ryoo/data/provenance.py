"""The ryoo chapter's provenance table: every result file it read, its GPU or host, driver, CUDA, commits, date."""
from paper.report.common import cache_paragraph, provenance_table


def build(ctx):
    ctx.tables["para_cache"] = cache_paragraph(ctx)
    ctx.tables["table_ryoo_provenance"] = provenance_table(
        ctx, "Table R@: provenance of every recorded result this chapter reads (paths under the results folder); each "
        "has a provenance file beside it with the exact command, compiler flags and host.")
