#!/usr/bin/env python3
"""Whether the committed results can be released as one recording: every result file of every GPU folder
recorded from one clean commit, and no code that makes a number changed between that commit and this one.

    python3 tools/release_check.py            # a summary per folder; exit 0 when releasable, 1 otherwise
    python3 tools/release_check.py --todo     # also, per folder, the experiments recorded at another commit

The recording commit is the one most result files name. "Code that makes a number" is everything but the
results, the records, the report, the documentation and the files that describe the release (PASSIVE below);
a change there between the recording commit and HEAD means the numbers may no longer be what this tree makes.
"""
import argparse
import collections
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results"
# Paths whose changes cannot change a recorded number.
PASSIVE = ("experiments/results/", "experiments/records/", "experiments/reruns/", "paper/", "docs/", "README.md",
           "CITATION.cff", "LICENSE", "DATA-TERMS.md", "tools/kit_summary.py", "tools/release_check.py",
           "tools/check_report.py", "tools/check_results.py", "figures/", "tests/")


def git(*args):
    r = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def folders():
    return sorted(p for p in RESULTS.iterdir() if p.is_dir() and p.name != "local" and (p / "manifest.json").exists())


def recordings(folder):
    """(experiment, commit, dirty) of every result file of @p folder, from the files' provenance."""
    out = []
    for meta in sorted(folder.glob("*/*.meta.json")):
        m = json.loads(meta.read_text())
        out.append((f"{meta.parent.name}/{m.get('experiment', '?')}", m.get("git_commit", "?"), bool(m.get("git_dirty"))))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--todo", action="store_true", help="list, per folder, the experiments recorded at another commit")
    a = p.parse_args(argv)
    per_folder = {f: recordings(f) for f in folders()}
    commits = collections.Counter(c for rec in per_folder.values() for _, c, _ in rec)
    if not commits:
        print("release check: no committed results")
        return 1
    main_commit = commits.most_common(1)[0][0]
    ok = True
    print(f"release check: recording commit {main_commit[:7]} ({commits[main_commit]} of {sum(commits.values())} files)")
    for folder, rec in per_folder.items():
        at = sum(1 for _, c, d in rec if c == main_commit and not d)
        dirty = sum(1 for _, _, d in rec if d)
        print(f"  {folder.name}: {at} of {len(rec)} files at {main_commit[:7]}, clean"
              + (f"; {dirty} from a dirty tree" if dirty else ""))
        if at != len(rec):
            ok = False
            if a.todo:
                others = sorted({e for e, c, d in rec if c != main_commit or d})
                print("    to record again: " + ", ".join(others))
    try:
        changed = [f for f in git("diff", "--name-only", main_commit, "HEAD").splitlines() if f]
    except RuntimeError as e:
        print(f"  the recording commit is not in this repository's history: {e}")
        return 1
    active = [f for f in changed if not f.startswith(PASSIVE)]
    if active:
        ok = False
        print(f"  changed since {main_commit[:7]} in code that makes numbers ({len(active)} files): "
              + ", ".join(active[:12]) + (" ..." if len(active) > 12 else ""))
    else:
        print(f"  since {main_commit[:7]}, only results, records, the report, documentation and tests changed")
    tags = git("tag", "--points-at", "HEAD").split()
    print(f"  tags on HEAD: {', '.join(tags) if tags else 'none'}")
    print("release check: " + ("releasable" if ok else "not releasable as one recording"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
