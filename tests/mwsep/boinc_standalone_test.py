#!/usr/bin/env python3
"""The BOINC build of `mwsep run`, standalone (no client), in a slot folder as a client would prepare it.

    boinc_standalone_test.py MWSEP DATA_DIR

The slot folder holds the work unit, the stars and the output under their logical names, each a BOINC soft
link (a one-line XML file naming the real file in a separate project folder), so the run reads and writes
the right files only if it resolves every name through the runtime. Checked:
- the run succeeds and writes its JSON result to the file the output's link names (not over the link);
- its integrals and likelihood equal the stored ordinary CPU result, data/workunits/tiny/expected.json,
  within that file's stated tolerances (the likelihood only where the generated catalogue is the stored one,
  whose hash expected.json records);
- the integral's progress reached fraction done 1 (the program's finishing line);
- boinc_finish ran with status 0 (the runtime's boinc_finish_called file), and standard error stayed on the
  terminal (no stderr.txt), as in the ordinary program;
- a missing input ends through boinc_finish with a non-zero status and a message naming the file.
"""
import hashlib
import json
import pathlib
import subprocess
import sys
import tempfile


def soft_link(slot, logical, target):
    """A BOINC soft link: the slot's file under the logical name names the real file."""
    (slot / logical).write_text(f"<soft_link>{target}</soft_link>\n")


def close(got, want, rel):
    return abs(got - want) <= rel * abs(want)


def main():
    mwsep, data = sys.argv[1], pathlib.Path(sys.argv[2])
    expected = json.loads((data / "workunits" / "tiny" / "expected.json").read_text())
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        project, slot = tmp / "project", tmp / "slot"
        project.mkdir()
        slot.mkdir()
        unit = project / "tiny_astronomy_parameters.txt"
        unit.write_text((data / "workunits" / "tiny" / "astronomy_parameters.txt").read_text())
        stars = project / "tiny_stars.txt"
        cat = expected["catalogue"]
        subprocess.run([mwsep, "generate", "-a", str(unit), "-o", str(stars), "--count", str(cat["count"]),
                        "--seed", str(cat["seed"])], check=True, capture_output=True, cwd=project)
        same_catalogue = hashlib.sha256(stars.read_bytes()).hexdigest() == cat["sha256"]
        soft_link(slot, "astronomy_parameters.txt", unit)
        soft_link(slot, "stars.txt", stars)
        result = project / "tiny_result.json"
        soft_link(slot, "result.json", result)

        run = subprocess.run([mwsep, "run", "-a", "astronomy_parameters.txt", "-s", "stars.txt",
                              "--result", "result.json"], capture_output=True, text=True, cwd=slot)
        print(run.stderr, end="")
        if run.returncode != 0:
            print(f"FAIL: the run ended with status {run.returncode}")
            return 1
        got = json.loads(result.read_text())
        if "<soft_link>" not in (slot / "result.json").read_text():
            failures.append("the result was written over the output's soft link")
        keys = ["background_integral", "stream_integrals"]
        if same_catalogue:
            keys += ["likelihood", "background_likelihood", "stream_only_likelihoods"]
        else:
            print("note: the generated catalogue differs from the stored one (another libm): likelihoods not compared")
        for key in keys:
            rel = expected["tolerance"][key]["relative"]
            want, have = expected[key], got[key]
            pairs = list(zip(have, want)) if isinstance(want, list) else [(have, want)]
            if (isinstance(want, list) and len(have) != len(want)) or not all(close(h, w, rel) for h, w in pairs):
                failures.append(f"{key}: {have!r}, stored {want!r} (relative tolerance {rel:g})")
            else:
                print(f"{key}: {have!r} equals the stored {want!r} within {rel:g}")
        if "reported fraction done 1 (standalone)" not in run.stderr:
            failures.append("the integral did not report fraction done 1")
        finish_file = slot / "boinc_finish_called"
        if not finish_file.exists() or finish_file.read_text().split()[0] != "0":
            failures.append("boinc_finish(0) was not called")
        if (slot / "stderr.txt").exists():
            failures.append("standard error was redirected to stderr.txt although no client runs the program")

        finish_file.unlink()
        soft_link(slot, "stars.txt", project / "missing_stars.txt")
        bad = subprocess.run([mwsep, "run", "-a", "astronomy_parameters.txt", "-s", "stars.txt"],
                             capture_output=True, text=True, cwd=slot)
        status = finish_file.read_text().split()[0] if finish_file.exists() else None
        if bad.returncode == 0 or status in (None, "0") or "missing_stars.txt" not in bad.stderr:
            failures.append(f"a missing input: status {bad.returncode}, boinc_finish({status}), stderr {bad.stderr!r}")
        else:
            print(f"a missing input: boinc_finish({status}), exit status {bad.returncode}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
