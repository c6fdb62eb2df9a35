"""Draws every figure of the report from one GPU's recorded results and paper/published.json.

    .venv/bin/python figures/make_figures.py [--results DIR] [--published FILE] [--out DIR]

Prints each file written. Exits with status 1 if any figure's source data is missing or empty; such a
figure is not drawn."""
import argparse
import importlib
import pathlib
import sys

import common as c

FIGURES = ["fig_4_3_memory_spaces", "fig_4_4_division_sqrt", "fig_4_5_loop_unrolling", "fig_4_6_scaling",
           "fig_5_1_cpu_vs_gpu", "fig_5_2_speedup", "fig_5_3_optimized_vs_unoptimized", "fig_roofline",
           "fig_registers_occupancy"]


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
    failed = []
    for name in FIGURES:
        try:
            for path in importlib.import_module(name).make(args.results / "mwsep", published, args.out):
                print(path)
        except c.MissingData as e:
            print(f"error: {name} not drawn: {e}", file=sys.stderr)
            failed.append(name)
    if failed:
        print(f"{len(failed)} of {len(FIGURES)} figures had no source data: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
