#!/usr/bin/env python3
"""Runs the declared experiments of every study and records every result file the report reads.

    python3 experiments/run.py [--out DIR] [--study mwsep] [--only a,b] [--quick] [--build build]
                               [--peer PATH [--peer-lib DIR]] [--peer-nufft LIBCUFINUFFT]

The studies: experiments/studies.json; definitions: experiments/definitions/<study>/<name>.json; how a
study's runs become commands: experiments/studies/<study>.py (a harness.study.Study); the runner:
experiments/harness/runner.py. Results go to a FRESH folder
by default, experiments/results/local/<gpu>-<UTC date and time>/ (never into the committed results);
--out names a folder, and running again on the same folder resumes it (jobs recorded as done are skipped).
Every file is listed in <out>/manifest.json with its experiment, commits and status; each has a
<file>.meta.json with provenance. Exit status 1 when a job failed or without a GPU (CPU-only kinds can
still be run with --only).
"""
import argparse
import datetime
import pathlib
import sys

if not __package__:  # run by its path, not with -m: import from the checkout's root
    sys.path[0] = str(pathlib.Path(__file__).resolve().parents[1])

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
    p.add_argument("--peer-nufft", help="a built libcufinufft.so, the peer of kirk_hwu's NUFFT (docs/peer.md, "
                                        "experiments/peer/finufft/build_cufinufft.sh)")
    args = p.parse_args()
    only = [s for s in args.only.split(",") if s]
    redo = [s for s in args.redo.split(",") if s]
    runner.check_names(args.study or STUDIES, only + redo)  # an unknown name is an error, not a silent no-op
    devices = provenance.gpus()
    if not devices and not only:
        print("experiments: no NVIDIA GPU on this machine (nvidia-smi finds none). The experiments time GPU kernels "
              "and need one; the committed results in experiments/results/ are what the report is built from.",
              file=sys.stderr)
        return 1
    out = args.out
    if out is None:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M")
        slug = provenance.gpu_slug(devices) if devices else "cpu-only"
        out = provenance.ROOT / "experiments" / "results" / "local" / f"{slug}-{stamp}"
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()) and not (out / "manifest.json").exists():
        print(f"experiments: {out} holds files but no manifest.json: not a folder this runner wrote; "
              "choose another --out", file=sys.stderr)
        return 1
    options = {"peer": args.peer, "peer_lib": args.peer_lib, "peer_nufft": args.peer_nufft}
    failures = 0
    for study in args.study or STUDIES:
        failures += runner.run_study(study, out, args.build, only=only, quick=args.quick, options=options,
                                     redo=redo)
    # An experiment whose every job was skipped (a host without what it needs) recorded nothing: said here, and
    # an error when --only named it, since then the run did not do what it was asked.
    skipped = [s for study in args.study or STUDIES for s in runner.wholly_skipped(out, study, only)]
    for name, why in skipped:
        print(f"experiments: {name}: every job skipped, nothing recorded ({why})", file=sys.stderr)
    print(f"experiments: results in {out}; {failures} job(s) failed"
          + (f"; {len(skipped)} experiment(s) with every job skipped" if skipped else ""))
    return 1 if failures or (skipped and only) else 0


if __name__ == "__main__":
    sys.exit(main())
