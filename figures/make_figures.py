"""Draws every figure of the report from one GPU's recorded results and each study's published numbers, through
the study's facts (paper/<study>/facts.py), built once per study as the report builds them.

    .venv/bin/python -m figures.make_figures [--results DIR] [--out DIR] [--study NAME ...] [--strict]

Prints each file written. A figure whose source data is missing or empty is not drawn: an image saying it
was not measured on this GPU, and why, takes its place, and the figure is listed at the end. With --strict
the exit status is then 1."""
import argparse
import importlib
import pathlib
import sys

from experiments.harness import registry
from experiments.harness.results import NotAResultFolder, ResultFolder
from figures import common as c
from paper.report import facts as facts_layer

# The declared studies (experiments/studies.json): each has its package of figure modules under figures/<study>/.
STUDIES = registry.names()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=pathlib.Path, default=c.RESULTS)
    ap.add_argument("--out", type=pathlib.Path, default=c.OUT)
    ap.add_argument("--study", action="append", help="draw only this study's figures (repeatable)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a figure had no source data")
    args = ap.parse_args()
    failed, total = [], 0
    for study in STUDIES:
        if args.study and study not in args.study:
            continue
        # The study's facts, built once as the report builds them: every figure of the study draws from them.
        try:
            facts = importlib.import_module(f"paper.{study}.facts").build(
                ResultFolder(args.results), facts_layer.published(study),
                facts_layer.study_compare_folders(study, args.results.resolve()))
        except (c.MissingData, NotAResultFolder) as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        for name in importlib.import_module(f"figures.{study}").FIGURES:
            total += 1
            try:
                for path in importlib.import_module(f"figures.{study}.{name}").make(facts, args.out / study):
                    print(path)
            except c.MissingData as e:
                print(f"figures: {study}/{name} not drawn, not measured on this GPU: {e}", file=sys.stderr)
                for path in c.placeholder(args.out / study, name, e):
                    print(path)
                failed.append(f"{study}/{name}")
    if failed:
        print(f"figures: {len(failed)} of {total} figures had no source data (an image says so): {', '.join(failed)}",
              file=sys.stderr)
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
