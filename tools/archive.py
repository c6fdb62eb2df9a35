#!/usr/bin/env python3
"""Writes the archive to deposit (Zenodo or another archive that mints DOIs): one self-contained .tar.gz of a
commit, and its checksum beside it.

    python3 tools/archive.py [--out build/archive] [--commit HEAD]      (make archive OUT=...)

The archive holds, under the folder gpu_studies-<version>-<commit>/:
  - the commit's tree as `git archive` exports it: the source, the committed results (experiments/results/),
    the records (experiments/records/), the documentation, and the redistributed third-party data with its
    terms (DATA-TERMS.md) and licence texts (LICENSES/);
  - .source-manifest.json: the blob id of every source file at the commit (tools/source_manifest.py), with which
    a copy of the archive checks its files when it records (experiments/harness/provenance.py);
  - .zenodo.json: the deposit's metadata, from CITATION.cff (title, authors, version, licence, keywords) and the
    commit;
  - SHA256SUMS: the SHA-256 of every other file of the archive (`sha256sum -c SHA256SUMS` in the folder checks
    them).
Beside the archive, <archive>.sha256 holds the archive's own SHA-256. Nothing is overwritten: an archive of that
name already in --out is refused (exit 2), and the files are written whole (a temporary file renamed).
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import pathlib
import re
import subprocess
import sys
import tarfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from tools import source_manifest  # noqa: E402


def citation(path):
    """The few fields of CITATION.cff the deposit needs: title, version, license, keywords and authors (each as
    its `name`, or `family-names, given-names`), read line by line (its top-level keys and their lists)."""
    fields, key, item = {"keywords": [], "authors": []}, None, None
    for line in pathlib.Path(path).read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        top = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
        if top:
            key, value = top.group(1), top.group(2).strip().strip('"')
            if key in ("title", "version", "license") and value:
                fields[key] = value
            item = None
            continue
        if key == "keywords":
            m = re.match(r"^\s*-\s*(.+)$", line)
            if m:
                fields["keywords"].append(m.group(1).strip().strip('"'))
        elif key == "authors":
            m = re.match(r"^\s*(-\s*)?([A-Za-z-]+):\s*(.+)$", line)
            if m:
                if m.group(1):
                    item = {}
                    fields["authors"].append(item)
                if item is not None:
                    item[m.group(2)] = m.group(3).strip().strip('"')
    return fields


def zenodo(cite, commit):
    """The .zenodo.json of the deposit."""
    creators = []
    for a in cite["authors"]:
        name = a.get("name") or ", ".join(x for x in (a.get("family-names"), a.get("given-names")) if x)
        creators.append({"name": name, **({"orcid": a["orcid"].rsplit("/", 1)[-1]} if a.get("orcid") else {})})
    return {"title": cite.get("title", "gpu_studies"), "upload_type": "software", "version": cite.get("version", ""),
            "license": cite.get("license", ""), "creators": creators, "keywords": cite["keywords"],
            "description": (f"{cite.get('title', '')}. The source at commit {commit}, the committed results and "
                            "records, the redistributed data with its terms (DATA-TERMS.md) and licence texts "
                            "(LICENSES/), checksums in SHA256SUMS."),
            "notes": f"git commit {commit}"}


def add(tar, name, data, mtime):
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), mtime, 0o644
    tar.addfile(info, io.BytesIO(data))


def build(commit, out):
    """Writes the archive of @p commit into the folder @p out; returns its path. Refuses (FileExistsError) an
    archive of that name already there."""
    full = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{commit}^{{commit}}"], check=True,
                          capture_output=True, text=True).stdout.strip()
    mtime = int(subprocess.run(["git", "-C", str(ROOT), "show", "-s", "--format=%ct", full], check=True,
                               capture_output=True, text=True).stdout.strip())
    cite = citation(ROOT / "CITATION.cff")
    name = f"gpu_studies-{cite.get('version', 'unversioned')}-{full[:12]}"
    target = out / f"{name}.tar.gz"
    if target.exists() or (out / f"{name}.tar.gz.sha256").exists():
        raise FileExistsError(target)
    exported = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", f"--prefix={name}/", full],
                              check=True, capture_output=True).stdout
    extra = {".source-manifest.json": (json.dumps(source_manifest.manifest(full), indent=1, sort_keys=True) + "\n").encode(),
             ".zenodo.json": (json.dumps(zenodo(cite, full), indent=1) + "\n").encode()}
    sums = []
    buffer = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(exported)) as src, tarfile.open(fileobj=buffer, mode="w") as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read() if member.isfile() else None
            dst.addfile(member, io.BytesIO(data) if data is not None else None)
            if data is not None:
                sums.append((member.name[len(name) + 1:], hashlib.sha256(data).hexdigest()))
        for rel, data in extra.items():
            add(dst, f"{name}/{rel}", data, mtime)
            sums.append((rel, hashlib.sha256(data).hexdigest()))
        add(dst, f"{name}/SHA256SUMS", "".join(f"{h}  {rel}\n" for rel, h in sorted(sums)).encode(), mtime)
    out.mkdir(parents=True, exist_ok=True)
    packed = gzip.compress(buffer.getvalue(), mtime=mtime)
    for path, data in ((target, packed), (out / f"{name}.tar.gz.sha256",
                                          f"{hashlib.sha256(packed).hexdigest()}  {target.name}\n".encode())):
        tmp = path.with_name(f".{path.name}.partial")
        try:
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError:
            tmp.unlink(missing_ok=True)
            raise
    return target


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=pathlib.Path, default=ROOT / "build" / "archive", help="the folder it goes into")
    p.add_argument("--commit", default="HEAD", help="the commit it holds (default HEAD)")
    args = p.parse_args(argv)
    t0 = time.monotonic()
    try:
        target = build(args.commit, args.out)
    except FileExistsError as e:
        print(f"archive: {e} exists; nothing is overwritten: choose another OUT= or remove it", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        print(f"archive: {' '.join(e.cmd[:4])} failed: {e.stderr.strip() if e.stderr else e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"archive: cannot write {e.filename or args.out}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"archive: {target} ({target.stat().st_size / 1e6:.1f} MB, {time.monotonic() - t0:.0f} s); its SHA-256 in "
          f"{target.name}.sha256")
    return 0


if __name__ == "__main__":
    sys.exit(main())
