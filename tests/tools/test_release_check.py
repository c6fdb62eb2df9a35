"""tools/release_check.py's judgement of code changed since the recording commit, on a repository made up by the
test: an undeclared change blocks; a declared one passes only at its declared blob, for its recording commit and
while its premise holds."""
import importlib
import json
import pathlib
import subprocess
import tempfile
import unittest


def load_tool():
    """tools.release_check, loaded afresh, so that what a test sets on it (ROOT, DECLARED) starts from its own
    values (run from the checkout's root: python3 -m unittest tests/tools/...)."""
    return importlib.reload(importlib.import_module("tools.release_check"))


class ChangesSinceRecording(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.git("init", "-q")
        self.git("config", "user.email", "t@example.invalid")
        self.git("config", "user.name", "t")
        self.write("src/a.cpp", "int a() { return 1; }\n")
        self.write("src/b.cpp", "int b() { return 2; }\n")
        self.write("docs/x.md", "text\n")
        self.write("data/workunits/u/astronomy_parameters.txt", "number_streams: 2, 5\n")
        self.recording = self.commit("recording")
        self.tool = load_tool()
        self.tool.ROOT = self.root
        self.tool.DECLARED = self.root / "experiments" / "records" / "code-changes-since-recording.json"
        self.tool.WORK_UNITS = self.root / "data" / "workunits"

    def tearDown(self):
        self.tmp.cleanup()

    def git(self, *args):
        return subprocess.run(["git", "-C", str(self.root), *args], check=True, capture_output=True,
                              text=True).stdout.strip()

    def write(self, rel, text):
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)

    def commit(self, message):
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def declare(self, path, blob, recording=None, premise=None):
        entry = {"path": path, "blob": blob, "commit": "0" * 40, "what": "w", "why_no_recorded_number_changes": "y"}
        if premise:
            entry["premise"] = premise
        self.write("experiments/records/code-changes-since-recording.json",
                   json.dumps({"recording_commit": recording or self.recording, "changes": [entry]}))

    def declare_as_committed(self, path, **kw):
        """Declares @p path at the blob HEAD has, and commits the declaration."""
        self.declare(path, self.git("rev-parse", f"HEAD:{path}"), **kw)
        self.commit("declare")

    def test_documentation_alone_is_no_change(self):
        self.write("docs/x.md", "other text\n")
        self.commit("docs")
        self.assertEqual(self.tool.changes_since(self.recording), ([], []))

    def test_an_undeclared_change_blocks(self):
        self.write("src/a.cpp", "int a() { return 3; }\n")
        self.commit("change")
        declared, undeclared = self.tool.changes_since(self.recording)
        self.assertEqual(declared, [])
        self.assertEqual(undeclared, [("src/a.cpp", "not declared")])

    def test_a_declared_change_passes_at_its_blob_only(self):
        self.write("src/a.cpp", "int a() { return 3; }\n")
        self.commit("change")
        self.declare_as_committed("src/a.cpp", premise="every_work_unit_has_streams")
        declared, undeclared = self.tool.changes_since(self.recording)
        self.assertEqual([c["path"] for c in declared], ["src/a.cpp"])
        self.assertEqual(undeclared, [])
        # The same file changed once more: the declaration no longer covers it.
        self.write("src/a.cpp", "int a() { return 4; }\n")
        self.commit("again")
        declared, undeclared = self.tool.changes_since(self.recording)
        self.assertEqual(declared, [])
        self.assertEqual(undeclared, [("src/a.cpp", "changed again after its declaration")])

    def test_a_declaration_for_another_recording_does_not_count(self):
        self.write("src/b.cpp", "int b() { return 5; }\n")
        other = self.commit("other recording")
        self.write("src/a.cpp", "int a() { return 3; }\n")
        self.commit("change")
        self.declare_as_committed("src/a.cpp", recording=other)
        _, undeclared = self.tool.changes_since(self.recording)
        self.assertEqual(sorted(undeclared), [("src/a.cpp", "not declared"), ("src/b.cpp", "not declared")])

    def test_a_failing_premise_blocks(self):
        self.write("src/a.cpp", "int a() { return 3; }\n")
        self.write("data/workunits/v/astronomy_parameters.txt", "number_streams: 0, 5\n")
        self.commit("change and a unit without streams")
        self.declare_as_committed("src/a.cpp", premise="every_work_unit_has_streams")
        declared, undeclared = self.tool.changes_since(self.recording)
        self.assertEqual(declared, [])
        # The new unit is itself a change to data that makes numbers.
        self.assertEqual(sorted(undeclared), [("data/workunits/v/astronomy_parameters.txt", "not declared"),
                                              ("src/a.cpp", "its premise fails: work unit v has no stream")])
        self.assertIn("may not be what this tree makes", self.tool.describe_changes(self.recording))

    def test_an_unknown_commit_is_not_compared(self):
        self.assertIn("not compared", self.tool.describe_changes("f" * 40))


class ReleaseTags(unittest.TestCase):
    """A release is a tag on HEAD, v<CITATION.cff's version>, and the README names no tag the repository lacks."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.git("init", "-q")
        self.git("config", "user.email", "t@example.invalid")
        self.git("config", "user.name", "t")
        (self.root / "CITATION.cff").write_text('cff-version: 1.2.0\ntitle: "t"\nversion: "1.2"\n')
        (self.root / "README.md").write_text("# t\n\nReleases are tagged v<version>.\n")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "one")
        self.tool = load_tool()
        self.tool.ROOT = self.root
        self.tool.README = self.root / "README.md"
        self.tool.CITATION = self.root / "CITATION.cff"

    def tearDown(self):
        self.tmp.cleanup()

    def git(self, *args):
        return subprocess.run(["git", "-C", str(self.root), *args], check=True, capture_output=True, text=True).stdout

    def test_head_without_a_release_tag(self):
        self.assertEqual(self.tool.tag_findings(), ["HEAD has no release tag (v<version>): tag the commit once "
                                                    "everything else here holds (docs/release.md)"])
        self.git("tag", "not-a-release")
        self.assertEqual(len(self.tool.tag_findings()), 1)

    def test_a_tag_of_the_citation_version(self):
        self.git("tag", "-a", "v1.2", "-m", "release")
        self.assertEqual(self.tool.tag_findings(), [])
        (self.root / "CITATION.cff").write_text('cff-version: 1.2.0\nversion: "1.3"\n')
        self.assertEqual(self.tool.tag_findings(), ["HEAD's release tag v1.2 is not CITATION.cff's version 1.3 (v1.3)"])

    def test_a_readme_naming_a_tag_the_repository_lacks(self):
        self.git("tag", "v1.2")
        (self.root / "README.md").write_text("The evaluated version is the tag `v1.0-ae`.\n")
        self.assertEqual(self.tool.tag_findings(), ["the README names the tag v1.0-ae, which this repository does not "
                                                    "have"])
        self.git("tag", "v1.0-ae", "HEAD")
        self.assertEqual(self.tool.tag_findings(), [])


if __name__ == "__main__":
    unittest.main()
