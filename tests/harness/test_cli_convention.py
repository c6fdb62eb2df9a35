#!/usr/bin/env python3
"""The command language of the four programs (docs/cli.md), checked on the built programs.

The programs are those experiments/studies.json declares; each program's commands are those its own
`--help` lists. For every program: `--help` and `--version` exit 0, the version names a commit this
repository has, no command and an unknown command or option exit 2 with the one error prefix. For every
command: `--help` exits 0 and prints "usage: <program> <command>", every option line has a description and
every option that takes a value shows its default or "required"; an unknown option and a malformed value exit
2 with "<program> <command>: error: " and the command named once; a command that lists
--print-criterion prints its criterion as JSON and exits 0 (touching no file and no GPU).

Usage: test_cli_convention.py BUILD_DIR [--pending FILE]
  --pending FILE  findings known and not yet mended, one "<program> <command>: <check>" per line (# starts
                  a comment): each must still be found where the build has the command (a mended one is
                  removed from the file), and no other may be.
Before the programs, the checker is run on the help `munch bench-cpu` printed before the convention (a bare
list of option names): it must find that help wanting.
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
# A finding is "<program> <command>: <check>", then, after DETAIL, what was seen (which may differ between
# machines: the pending list names findings without it).
DETAIL = " -- "
TIMEOUT = 30
HEADING = re.compile(r"^(?:[a-z][a-z -]* )?options:$")
OPTION = re.compile(r"^  (-[^\s,]+(?:, -[^\s,]+)*)((?: [^\s]+)*?)(?:\s{2,}(\S.*))?$")

# What `munch bench-cpu --help` printed before the convention: names only.
OLD_MUNCH_BENCH_CPU_HELP = """usage: munch bench-cpu [options]
options:
  --computation VALUE
  --implementations VALUE
  --signal VALUE
  --filter VALUE
  --threads VALUE
  --experiment VALUE
  --csv VALUE
  --force
  --min-samples VALUE
"""


SCRATCH = pathlib.Path(tempfile.mkdtemp(prefix="cli_convention_"))  # the commands' working folder


def run(argv):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, cwd=SCRATCH)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", f"did not finish within {TIMEOUT} s"
    except OSError as e:  # a program that is not built, or cannot be run
        return "not run", "", str(e)


def options_of(help_text):
    """Every option a help lists: [names, value, description, under a heading] per option line, the
    description with its continuation lines joined. An option line is one that begins with spaces and a dash;
    under a heading ("options:", "measurement options:") the convention puts it at two spaces."""
    found, current, in_section = [], None, False
    for line in help_text.splitlines():
        if HEADING.match(line):
            in_section, current = True, None
            continue
        if not line.strip():
            in_section, current = False, None
            continue
        m = OPTION.match(line) if in_section else None
        if m:
            current = [m.group(1), m.group(2).strip(), (m.group(3) or "").strip(), True]
            found.append(current)
        elif re.match(r"^\s+-", line) and not (in_section and line.startswith("    ")):
            # An option line elsewhere, or one the convention's layout does not fit (two on one line, say).
            m = re.match(r"^\s+(-[^\s,]+)((?: [^\s-][^\s]*)*?)(?:\s{2,}(\S.*))?$", line)
            current = [m.group(1), m.group(2).strip(), (m.group(3) or "").strip(), False] if m else [line.strip(), "", "", False]
            found.append(current)
        elif current is not None and line.startswith("   "):
            current[2] = (current[2] + " " + line.strip()).strip()
    return found


def help_findings(label, help_text):
    """What the help of command @p label lacks, one finding per line."""
    findings = []
    if not help_text.startswith(f"usage: {label}"):
        findings.append(f"{label}: help: does not begin with 'usage: {label}'")
    if "exit status:" not in help_text:
        findings.append(f"{label}: help: no exit status")
    options = options_of(help_text)
    if any(not o[3] for o in options):
        findings.append(f"{label}: help: options listed outside an 'options:' section, or two on one line")
    for names, value, description, _ in options:
        if not description:
            findings.append(f"{label}: help: {names} has no description")
        elif value and "default" not in description and "required" not in description:
            findings.append(f"{label}: help: {names} {value} shows neither its default nor 'required'")
    return findings


def error_findings(label, what, code, stderr, program):
    out = []
    first = stderr.strip().splitlines()[0] if stderr.strip() else ""
    if code != 2:
        out.append(f"{label}: {what}: not exit status 2" + DETAIL + f"exit {code}: {first[:160]}")
    elif not first.startswith(f"{label}: error: ") or first.startswith(f"{label}: error: {label}") or \
            first.startswith(f"{label}: error: {program}:"):
        out.append(f"{label}: {what}: the error line is not '{label}: error: ...' once" + DETAIL + first[:160])
    return out


CHECKED = set()  # "<program> <command>" of every command this build has and the test checked


def check_program(build, program):
    findings = []
    exe = str(build / program)
    code, out, err = run([exe, "--help"])
    if code != 0:
        return [f"{program}: --help: exit {code}: {err[:200]}"]
    if "exit status:" not in out:
        findings.append(f"{program}: --help: no exit status")
    commands, section = [], False
    for line in out.splitlines():
        if line == "commands:":
            section = True
        elif section and not line.strip():
            section = False
        elif section:
            m = re.match(r"^  ([a-z][a-z0-9-]*)\s+(.*)$", line)
            if not m or not m.group(2).strip():
                findings.append(f"{program}: --help: a command line without a summary: {line!r}")
            else:
                commands.append((m.group(1), "(not in this build)" in m.group(2)))
    if not commands:
        findings.append(f"{program}: --help: lists no command")
    code, out, err = run([exe, "--version"])
    lines = out.splitlines()
    if code != 0 or len(lines) < 3 or not lines[0].startswith(program + " ("):
        findings.append(f"{program}: --version: exit {code}, printed {out[:200]!r}")
    else:
        m = re.match(r"^commit ([0-9a-f]{40})\b", lines[1])
        if not m:
            if not (lines[1].startswith("commit unknown") and not (ROOT / ".git").exists()):
                findings.append(f"{program}: --version: no commit on its second line: {lines[1]!r}")
        elif (ROOT / ".git").exists():
            known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", m.group(1) + "^{commit}"],
                                   capture_output=True).returncode == 0
            if not known:
                findings.append(f"{program}: --version: commit {m.group(1)} is not one of this repository's")
        if not any("compiler" in line for line in lines[2:]) or not any(line.startswith("CUDA: ") for line in lines[2:]):
            findings.append(f"{program}: --version: no compiler or CUDA line: {out[:300]!r}")
    code, _, err = run([exe])
    if code != 2:
        findings.append(f"{program}: no command: exit {code}, expected 2")
    code, _, err = run([exe, "no-such-command"])
    if code != 2 or not err.startswith(f"{program}: error: unknown command 'no-such-command'"):
        findings.append(f"{program}: an unknown command: exit {code}: {err[:160]!r}")

    for command, unavailable in commands:
        label = f"{program} {command}"
        code, out, err = run([exe, command, "--help"])
        if unavailable:
            if code != 3 or f"{label}: error: needs a build with CUDA" not in err:
                findings.append(f"{label}: not in this build, yet --help gave exit {code}: {(out + err)[:160]!r}")
            continue
        if code != 0:
            findings.append(f"{label}: --help: exit {code}: {err[:200]!r}")
            continue
        CHECKED.add(label)
        findings += help_findings(label, out)
        options = options_of(out)
        code, _, err = run([exe, command, "--no-such-option"])
        findings += error_findings(label, "an unknown option", code, err, program)
        # A malformed value, with every required option given a placeholder (so that the value, not the
        # missing option, is what the command refuses; no file is read before the options are checked).
        required = [w for o in options if o[1] and "(required)" in o[2] for w in (o[0], "x")]
        numeric = next((o for o in options if o[1] in ("N", "S") and "(required)" not in o[2]), None)
        if numeric:
            code, _, err = run([exe, command, *required, numeric[0], "not-a-number"])
            findings += error_findings(label, f"{numeric[0]} not-a-number", code, err, program)
        choice = next((o for o in options if "|" in o[1] and "(required)" not in o[2]), None)
        if choice:
            code, _, err = run([exe, command, *required, choice[0], "no-such-choice"])
            findings += error_findings(label, f"{choice[0]} no-such-choice", code, err, program)
        if any(o[0] == "--print-criterion" for o in options):
            code, out, err = run([exe, command, "--print-criterion"])
            try:
                criterion = json.loads(out) if code == 0 else None
            except ValueError:
                criterion = None
            if not isinstance(criterion, dict) or "min_samples" not in criterion:
                findings.append(f"{label}: --print-criterion: no criterion printed" + DETAIL +
                                f"exit {code}: {(out + err)[:160]!r}")
    return findings


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    build = pathlib.Path(argv[1]).resolve()
    pending = set()
    if "--pending" in argv:
        path = pathlib.Path(argv[argv.index("--pending") + 1])
        pending = {line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")}
    # The checker itself must find the old help wanting.
    old = help_findings("munch bench-cpu", OLD_MUNCH_BENCH_CPU_HELP)
    if not any("--computation has no description" in f for f in old) or not any("no exit status" in f for f in old):
        print("FAIL: the checker does not find the old help of munch bench-cpu wanting:", old)
        return 1
    programs = [s["program"] for s in json.loads((ROOT / "experiments" / "studies.json").read_text())["studies"]]
    findings = []
    for program in programs:
        findings += check_program(build, program)
    keys = {f.split(DETAIL)[0] for f in findings}
    shutil.rmtree(SCRATCH, ignore_errors=True)
    new = [f for f in findings if f.split(DETAIL)[0] not in pending]
    # A pending finding of a command this build lacks (a build without CUDA) is neither found nor mended.
    mended = sorted(p for p in pending - keys if any(p.startswith(label + ": ") for label in CHECKED))
    for f in new:
        print("FAIL:", f)
    for f in mended:
        print(f"FAIL: mended, remove it from the pending list: {f}")
    known = len(keys & pending)
    print(f"{len(programs)} programs ({', '.join(programs)}): {len(findings)} findings, {known} of them pending, "
          f"{len(new)} new, {len(mended)} pending ones mended")
    return 1 if new or mended else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
