#!/usr/bin/env python3
"""Runs the declared experiments of every study and records every result file the report reads.

    python3 experiments/run.py [--out DIR] [--study mwsep] [--only a,b] [--quick] [--build build]
                               [--peer PATH [--peer-lib DIR]] [--peer-nufft LIBCUFINUFFT]
    python3 experiments/run.py --list [--study mwsep] [--only a,b] [--quick]

The studies: experiments/studies.json; definitions: experiments/definitions/<study>/<name>.json; how a
study's runs become commands: experiments/studies/<study>.py (a harness.study.Study); the runner:
experiments/harness/runner.py. Results go to a FRESH folder
by default, experiments/results/local/<gpu>-<UTC date and time>/ (never into the committed results);
--out names a folder, and running again on the same folder resumes it (jobs recorded as done are skipped).
A study's experiments run in file order, or with --only in the order it names them (an experiment whose
definition says `after` another named one still runs after it).
Every file is listed in <out>/manifest.json with its experiment, commits and status; each has a
<file>.meta.json with provenance. Exit status 1 when a job failed or without a GPU (CPU-only kinds can
still be run with --only).

Before any job of any study runs, every definition asked for is checked against its kind's declared inputs
(an unknown, mistyped or missing key is refused with the file and the key), the jobs of every experiment are
made, and a resumed --out folder is checked whole for every study (a damaged, foreign or newer manifest, a
file not as the runner left it, a folder of another GPU model, an experiment begun on another host, boot or
source tree: refused with the file and what to do). --list prints those jobs (their keys, the GPUs they need and their commands) and runs nothing: it needs
no GPU, no build and no results folder.
"""
import argparse
import datetime
import pathlib
import sys

if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments.harness import provenance, registry, runner  # noqa: E402

# The declared studies (experiments/studies.json), in their order.
STUDIES = registry.names()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=pathlib.Path, help="results folder (default: a fresh one under experiments/results/local)")
    p.add_argument("--study", action="append", choices=STUDIES, help="a study to run (default: all)")
    p.add_argument("--only", default="", help="comma-separated experiment names")
    p.add_argument("--redo", default="", help="comma-separated experiments to record anew in --out (their old files are removed)")
    p.add_argument("--quick", action="store_true", help="small work units only, 3 samples at least")
    p.add_argument("--build", default="build", help="the CMake build folder (default build)")
    p.add_argument("--peer", help="a built binary of the public MilkyWay@Home separation application (docs/peer.md)")
    p.add_argument("--peer-lib", help="folder of the OpenCL loader the peer runs with (default: <peer's folder>/lib)")
    p.add_argument("--list", action="store_true", help="print every experiment's jobs and their commands; run nothing")
    p.add_argument("--peer-nufft", help="a built libcufinufft.so, the peer of kirk_hwu's NUFFT (docs/peer.md, "
                                        "experiments/peer/finufft/build_cufinufft.sh)")
    args = p.parse_args()
    only = [s for s in args.only.split(",") if s]
    redo = [s for s in args.redo.split(",") if s]
    studies = args.study or STUDIES
    runner.check_names(studies, only + redo)  # an unknown name is an error, not a silent no-op
    options = {"peer": args.peer, "peer_lib": args.peer_lib, "peer_nufft": args.peer_nufft}
    if args.list:
        for study in studies:
            plan = runner.plan_study(study, args.build, only=only, quick=args.quick, options=options)
            print("\n".join(runner.describe_plan(plan)))
        return 0
    devices = provenance.gpus()
    if not devices and not only:
        print("experiments: no NVIDIA GPU on this machine (nvidia-smi finds none). The experiments time GPU kernels "
              "and need one; the committed results in experiments/results/ are what the report is built from.",
              file=sys.stderr)
        return 1
    # Every study's definitions and jobs are made and checked before any job of any study runs.
    plans = [runner.plan_study(study, args.build, only=only, quick=args.quick, options=options, devices=devices)
             for study in studies]
    out = args.out
    if out is None:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M")
        slug = provenance.gpu_slug(devices) if devices else "cpu-only"
        out = provenance.ROOT / "experiments" / "results" / "local" / f"{slug}-{stamp}"
    out = out.resolve()
    # The folder is checked whole, for every study, before any job runs (runner.prepare_folder).
    failures = runner.run_plans(plans, out, args.build, redo=redo, devices=devices)
    # An experiment whose every job was skipped (a host without what it needs) recorded nothing: said here, and
    # an error when --only named it, since then the run did not do what it was asked.
    skipped = [s for study in studies for s in runner.wholly_skipped(out, study, only)]
    for name, why in skipped:
        print(f"experiments: {name}: every job skipped, nothing recorded ({why})", file=sys.stderr)
    print(f"experiments: results in {out}; {failures} job(s) failed"
          + (f"; {len(skipped)} experiment(s) with every job skipped" if skipped else ""))
    return 1 if failures or (skipped and only) else 0


if __name__ == "__main__":
    sys.exit(main())
