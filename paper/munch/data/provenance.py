"""The provenance of every result the chapter read: its GPU or host, driver, CUDA, commits and date."""
from paper.report.common import cache_paragraph, provenance_table


def build(ctx, facts):
    ctx.tables["para_cache"] = cache_paragraph(facts.files)
    ctx.tables["table_munch_provenance"] = provenance_table(
        facts.files, "Table R@: provenance of every recorded result of this chapter; each has a provenance file beside it with "
        "the exact command, compiler flags and host")
