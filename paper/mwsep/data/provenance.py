"""One provenance table: every result file the report read, its GPU or host, driver, CUDA, commits, date."""
from paper.report.common import cache_paragraph, meta_path_of, provenance_table


def meta_path(path):
    """The provenance file of a result (the runner's <name>.meta.json for <name>.<suffix>); a text listing without
    its own takes that of memory_spaces."""
    meta = meta_path_of(path)
    if path.suffix == ".txt" and not meta.exists():
        meta = path.with_name("memory_spaces.meta.json")
    return meta


def build(ctx):
    ctx.tables["para_cache"] = cache_paragraph(ctx)
    ctx.tables["table_provenance"] = provenance_table(
        ctx, "Table R@: provenance of every recorded result the report reads (paths under the results folder). Each "
        "has a provenance file beside it with the exact command, compiler flags and host.", meta_path)
