"""Draws every figure of the report from one GPU's recorded results and paper/published.json.

    .venv/bin/python figures/make_figures.py [--results DIR] [--published FILE] [--out DIR]

Prints each file written. Exits with status 1 if any figure's source data is missing or empty; such a
figure is not drawn."""
import argparse
import importlib
import pathlib
import sys

import common as c

sys.path.append(str(pathlib.Path(__file__).resolve().parents[1] / "experiments"))
from harness import registry  # noqa: E402

# The declared studies (experiments/studies.json): each has its package of figure modules under figures/<study>/.
STUDIES = registry.names()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=pathlib.Path, default=c.RESULTS)
    ap.add_argument("--published", type=pathlib.Path, default=c.PUBLISHED)
    ap.add_argument("--out", type=pathlib.Path, default=c.OUT)
    args = ap.parse_args()
    try:
        published = c.load_published(args.published)
    except c.MissingData as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    failed, total = [], 0
    for study in STUDIES:
        for name in importlib.import_module(study).FIGURES:
            total += 1
            try:
                module = importlib.import_module(f"{study}.{name}")
                for path in module.make(args.results / study, published, args.out / study):
                    print(path)
            except c.MissingData as e:
                print(f"error: {study}/{name} not drawn: {e}", file=sys.stderr)
                failed.append(name)
    if failed:
        print(f"{len(failed)} of {total} figures had no source data: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
