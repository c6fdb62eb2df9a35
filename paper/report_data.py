#!/usr/bin/env python3
"""Generates every number and table of the report from the recorded results and the published numbers.

    python3 paper/report_data.py [RESULTS]     (default experiments/results/nvidia-h200; $RESULTS also works)
    COMPARE="experiments/results/<other gpu> ..." python3 paper/report_data.py ...

For each study (STUDIES below: a folder paper/<study>/ with chapters and a data package) it reads
RESULTS/<study>/ and the folders of the GPUs to compare with (COMPARE, default every other GPU folder with a
manifest.json), runs the study's chapter modules, numbers the report's own tables (Table R1, R2, ... in
the order the chapters include them) and writes paper/<study>/_generated/numbers.json and *.md. Fails,
naming the file, when a result the report needs is missing: no table or figure is built without its data.
"""
import importlib
import json
import os
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from report.common import ROOT, Context, MissingData, compare_folders, rel  # noqa: E402

STUDIES = ["mwsep", "ryoo", "kirk_hwu", "munch"]
# The letter of each study's own tables and figures ("Table K3"), so that no two share a number and none can
# pass for the thesis's or the papers' own numbers.
PREFIX = {"mwsep": "R", "ryoo": "P", "kirk_hwu": "K", "munch": "M"}


def chapters(study):
    return sorted(p for p in (HERE / study).glob("*.md") if p.name != "README.md")


def number_tables(study, tables):
    """Replaces 'Table R@' by the next number, in the order the chapters include the tables."""
    order = []
    for md in chapters(study):
        order += re.findall(r"_generated/(\w+)\.md", md.read_text())
    counter, refs = 0, {}
    for name in order:
        if name in tables and "Table R@" in tables[name]:
            counter += 1
            label = f"Table {PREFIX.get(study, 'R')}{counter}"
            tables[name] = tables[name].replace("Table R@", label)
            refs[f"ref_{name}"] = label
    left = [k for k, v in tables.items() if "Table R@" in v]
    if left:
        raise MissingData(f"tables generated but included by no chapter of paper/{study}: {', '.join(left)}")
    return refs


def build_study(study, results_gpu):
    results = results_gpu / study
    if not results.is_dir():
        raise MissingData(f"{rel(results)}: no results of the study {study} for this GPU")
    compare = [f / study for f in compare_folders(results_gpu)]
    if os.environ.get("COMPARE", "").strip():
        for f in compare:
            if not f.is_dir():
                raise MissingData(f"{rel(f)}: COMPARE names a GPU without results of the study {study}")
    else:
        # By default a study is compared with every other GPU that has recorded it; a GPU folder made
        # before the study existed is left out of that study's comparisons, not an error.
        compare = [f for f in compare if f.is_dir()]
    published = json.loads((HERE / "published.json").read_text())
    ctx = Context(study, results, compare, published)
    ctx.n["results_dir"] = rel(results_gpu)
    # A study's report package is paper/<study>; a figure module loaded by an earlier study may have put
    # figures/ (which has a package of the same name) ahead of it on the path.
    if sys.path[0] != str(HERE):
        sys.path.insert(0, str(HERE))
    package = importlib.import_module(f"{study}.data")
    for name in package.CHAPTERS:
        importlib.import_module(f"{study}.data.{name}").build(ctx)
    ctx.n.update(number_tables(study, ctx.tables))
    return ctx


def main():
    arg = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("RESULTS", "experiments/results/nvidia-h200")
    results_gpu = pathlib.Path(arg) if pathlib.Path(arg).is_absolute() else ROOT / arg
    numbers = {}
    for study in STUDIES:
        try:
            ctx = build_study(study, results_gpu)
        except MissingData as e:
            print(f"report_data: {e}", file=sys.stderr)
            return 1
        out = HERE / study / "_generated"
        out.mkdir(parents=True, exist_ok=True)
        for name, text in ctx.tables.items():
            (out / f"{name}.md").write_text(text)
        clash = {k for k in set(numbers) & set(ctx.n) if numbers[k] != ctx.n[k]}  # results_dir is shared
        if clash:
            print(f"report_data: numbers named alike in two studies: {', '.join(sorted(clash))}", file=sys.stderr)
            return 1
        numbers.update(ctx.n)
        print(f"report_data: {study}: {len(ctx.n)} numbers and {len(ctx.tables)} tables from {rel(ctx.results)}"
              + (f", compared with {', '.join(rel(f) for f in ctx.compare)}" if ctx.compare else ""))
    (HERE / "_generated").mkdir(exist_ok=True)
    (HERE / "_generated" / "numbers.json").write_text(json.dumps(numbers, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
