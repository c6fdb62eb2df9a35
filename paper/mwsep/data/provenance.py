"""One provenance table: every result file the report read, its GPU or host, driver, CUDA, commits, date (a
text listing without a provenance file of its own takes that of memory_spaces: paper/mwsep/facts.py)."""
from paper.report.common import cache_paragraph, provenance_table


def build(ctx, facts):
    ctx.tables["para_cache"] = cache_paragraph(facts.files)
    ctx.tables["table_provenance"] = provenance_table(
        facts.files, "Table R@: provenance of every recorded result the report reads (paths under the results folder). Each "
        "has a provenance file beside it with the exact command, compiler flags and host.")
