#!/usr/bin/env python3
"""Writes the source manifest of a commit: the git blob id of every tracked source file at that commit (the
files experiments/harness/provenance.py measures; the results and records excluded), for a copy of the tree
without .git (a `git archive` export, a tree carried to a GPU host) to check its files against.

    python3 tools/source_manifest.py [--commit HEAD] [--out .source-manifest.json]

On the measuring host the runner hashes each listed file as it is on disk (what `git hash-object` computes) and
compares it with the blob id listed here: a file that differs or is missing makes the recording dirty. The
manifest says what the commit holds, never what the copy holds, so a stale or edited copy shows as dirty; and
whoever has the repository can check a recording's `source_hash_expected` against the commit itself.
`make archive` puts one into the archive it writes. Exit status 2 when the commit is not in this repository.
"""
import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments.harness import provenance  # noqa: E402


def manifest(commit, root=ROOT):
    """The source manifest of @p commit (a dict), or None when git does not know the commit."""
    r = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    full = r.stdout.strip()
    blobs = provenance.commit_blobs(full, root)
    return {"format": 1, "commit": full, "excluded": list(provenance.SOURCE_EXCLUDE),
            "source_hash_expected": provenance.tree_hash(blobs), "files": blobs}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--commit", default="HEAD", help="the commit whose sources it lists (default HEAD)")
    p.add_argument("--out", type=pathlib.Path, default=ROOT / provenance.SOURCE_MANIFEST,
                   help=f"where to write it (default: {provenance.SOURCE_MANIFEST} at the tree's root)")
    args = p.parse_args(argv)
    m = manifest(args.commit)
    if m is None:
        print(f"source manifest: no commit {args.commit!r} in {ROOT}", file=sys.stderr)
        return 2
    tmp = args.out.with_name(f".{args.out.name}.partial")
    tmp.write_text(json.dumps(m, indent=1, sort_keys=True) + "\n")
    tmp.replace(args.out)
    print(f"source manifest: {len(m['files'])} files of commit {m['commit'][:12]} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
