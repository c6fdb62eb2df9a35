"""The Python environment of the documentation, figures and report: every direct requirement (requirements.txt)
is pinned, the full lock (requirements.lock) pins every package, the direct ones at the same versions; and the
minimum Python the README states is the one tools/check_deps.sh refuses below."""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def pins(path):
    """{normalised name: version} of the 'name==version' lines of @p path, each with an optional environment
    marker after ';' (a wheel that exists for some platforms only); other non-comment lines fail."""
    out = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].split(";", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!-]+)", line)
        if not m:
            raise AssertionError(f"{path.name}:{n}: '{line}' is not pinned as name==version")
        out[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = m.group(2)
    return out


class PythonEnvironment(unittest.TestCase):
    def test_the_lock_pins_every_direct_requirement_alike(self):
        direct = pins(ROOT / "requirements.txt")
        lock = pins(ROOT / "requirements.lock")
        self.assertTrue(direct)
        for name, version in direct.items():
            self.assertIn(name, lock, f"requirements.lock lacks {name}")
            self.assertEqual(lock[name], version, f"{name}: requirements.txt pins {version}, the lock {lock[name]}")
        self.assertGreater(len(lock), len(direct), "the lock holds the direct requirements alone")

    def test_the_readme_states_the_minimum_the_tools_check(self):
        check = (ROOT / "tools" / "check_deps.sh").read_text()
        m = re.search(r"sys\.version_info < \((\d+), (\d+)\)", check)
        self.assertIsNotNone(m, "tools/check_deps.sh checks no Python version")
        minimum = f"{m.group(1)}.{m.group(2)}"
        stated = set(re.findall(r"Python (?:>=|≥) ?(\d+\.\d+)", (ROOT / "README.md").read_text()))
        self.assertEqual(stated, {minimum}, f"the README states Python {sorted(stated)}; the tools need {minimum}")

    def test_no_module_path_edit_outside_the_shims(self):
        """The Python side is one package: a script run by its path imports the folder's shim (_checkout.py),
        the one place that edits the module path; nothing else in experiments/, paper/, figures/ or tools/ does."""
        shims = {ROOT / "tools" / "_checkout.py", ROOT / "experiments" / "_checkout.py",
                 ROOT / "experiments" / "peer" / "_checkout.py"}
        found = []
        for folder in ("experiments", "paper", "figures", "tools"):
            for path in (ROOT / folder).rglob("*"):
                if path.suffix not in (".py", ".sh") or path in shims or "results" in path.relative_to(ROOT).parts:
                    continue
                for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                    if "sys.path" in line:
                        found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
        self.assertEqual(found, [], "module-path edits outside the shims")
        for shim in shims:
            self.assertIn("sys.path[0] =", shim.read_text(), f"{shim} is no shim")


if __name__ == "__main__":
    unittest.main()
