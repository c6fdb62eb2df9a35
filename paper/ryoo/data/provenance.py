"""The ryoo chapter's provenance table: every result file it read, its GPU or host, driver, CUDA, commits, date."""
from paper.report.common import cache_paragraph, provenance_table


def build(ctx, facts):
    ctx.tables["para_cache"] = cache_paragraph(facts.files)
    ctx.tables["table_ryoo_provenance"] = provenance_table(
        facts.files, "Table R@: provenance of every recorded result this chapter reads (paths under the results folder); each "
        "has a provenance file beside it with the exact command, compiler flags and host.")
