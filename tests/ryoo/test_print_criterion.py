"""Every `ryoo` command whose help offers --print-criterion honours it: it prints its measurement criterion as
one JSON object naming the command and exits 0 before any work, touching no device (so this passes on a
machine without a GPU) and writing no CSV even when one is named. Every application command (its help lists
the shared options) must be among them. Usage: test_print_criterion.py BUILD_DIR"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

FIELDS = ("min_samples", "max_samples", "min_time_s", "noise_target_pct", "time_limit_s", "cache", "throttle", "timer")


def main(build):
    ryoo = pathlib.Path(build) / "ryoo"
    usage = subprocess.run([str(ryoo), "--help"], capture_output=True, text=True, check=True).stdout
    commands = re.findall(r"^  ([a-z][a-z0-9-]+)", usage, re.M)
    problems, offering, applications = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for command in commands:
            help_text = subprocess.run([str(ryoo), command, "--help"], capture_output=True, text=True, timeout=20).stdout
            if "shared options:" in help_text:
                applications.append(command)
            if "--print-criterion" not in help_text:
                continue
            offering.append(command)
            csv = pathlib.Path(tmp) / f"{command}.csv"
            r = subprocess.run([str(ryoo), command, "--print-criterion", "--csv", str(csv)], capture_output=True, text=True,
                               timeout=20)
            where = f"ryoo {command} --print-criterion"
            if r.returncode != 0:
                problems.append(f"{where}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
                continue
            try:
                printed = json.loads(r.stdout)
            except ValueError:
                problems.append(f"{where}: not one JSON object: {r.stdout.strip()[:300]}")
                continue
            if printed.get("command") != f"ryoo {command}":
                problems.append(f"{where}: names the command {printed.get('command')!r}")
            missing = [f for f in FIELDS if f not in printed]
            if missing:
                problems.append(f"{where}: no {', '.join(missing)}")
            if csv.exists():
                problems.append(f"{where}: wrote {csv.name}")
    if not applications:
        problems.append("no command's help lists the shared options of the application commands")
    for command in applications:
        if command not in offering:
            problems.append(f"ryoo {command}: an application command whose help does not offer --print-criterion")
    for p in problems:
        print("FAIL:", p)
    print(f"{len(offering)} commands offer --print-criterion ({', '.join(offering)}); {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
