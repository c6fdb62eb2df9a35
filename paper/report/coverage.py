"""The coverage table every study's report carries: the items of the documents that an item-by-item reading found
partly or not reproduced, each with its state in this recording: reproduced (and where), ready to record (the
experiment's result not in this GPU's folder: the command that records it), or not reproducible here (and why). A
row whose result is absent is a fallback the report check follows: once the result is recorded, the row must say
where it is reported. Each study lists its items in paper/<study>/data/coverage.py (ITEMS) and builds the table
with build_coverage."""
from paper.report.common import table


def build_coverage(ctx, facts, study, items):
    """The table `table_<study>_coverage` of @p items: (id, the document's item, state), state one of
    ("done", where), ("file", study, result, experiment, where) or ("not", why)."""
    files = facts.files
    body = []
    for ident, item, state in items:
        if state[0] == "done":
            body.append([ident, item, "reproduced", state[1]])
        elif state[0] == "file":
            _, owner, result, experiment, where = state  # the study whose experiment records it
            path = files.results.parent / owner / f"{result}.csv"
            if path.exists():
                body.append([ident, item, "reproduced", where])
            else:
                body.append([ident, item, "ready to record",
                             f"{where}; not measured on this GPU: `python3 experiments/run.py --study {owner} --only {experiment}`"])
                ctx.fallback(f"the coverage row {ident}", f"{owner}/{result} was not recorded on this GPU", [path])
        else:
            body.append([ident, item, "not reproducible here", state[1]])
    ctx.tables[f"table_{study}_coverage"] = table(
        "Table R@: the documents' items that an item-by-item reading found partly or not reproduced before this "
        "recording, each with its state: reproduced (where), ready to record (its experiment, not yet recorded on "
        "this GPU), or not reproducible here (why).", ["item", "the document", "state", "where, or why"], body,
        widths=[7, 33, 14, 46])
