"""make archive (tools/archive.py): one self-contained archive of a commit, with the committed results, the
records, the licence texts of the redistributed data, its source manifest, .zenodo.json and SHA-256 checksums
that hold for every file, and the archive's own checksum beside it; an existing archive is never overwritten."""
import hashlib
import json
import pathlib
import subprocess
import sys
import tarfile
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]

from experiments.harness import provenance  # noqa: E402


class Archive(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = pathlib.Path(cls.tmp.name) / "out"
        cls.r = subprocess.run([sys.executable, str(ROOT / "tools" / "archive.py"), "--out", str(cls.out)],
                               capture_output=True, text=True, timeout=600)
        cls.head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                                  check=True).stdout.strip()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def archive(self):
        [path] = self.out.glob("*.tar.gz")
        return path

    def test_the_archive_and_its_checksum(self):
        self.assertEqual(self.r.returncode, 0, self.r.stderr)
        path = self.archive()
        self.assertIn(self.head[:12], path.name)
        digest, name = (path.parent / f"{path.name}.sha256").read_text().split()
        self.assertEqual((digest, name), (hashlib.sha256(path.read_bytes()).hexdigest(), path.name))

    def test_its_contents_and_their_checksums(self):
        with tarfile.open(self.archive()) as tar:
            files = {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
        for rel in ("experiments/results/nvidia-h200/manifest.json", "experiments/results/nvidia-h100-80gb-hbm3/manifest.json",
                    "experiments/records/README.md", "DATA-TERMS.md", "LICENSES/GPL-3.0.txt",
                    "LICENSES/milkywayathome-copyright-notice.txt", "CITATION.cff", "src/harness/measure.hpp"):
            self.assertTrue(rel in files, f"{rel} is not in the archive")
        sums = dict(reversed(line.split("  ", 1)) for line in files["SHA256SUMS"].decode().splitlines())
        self.assertEqual(set(sums), set(files) - {"SHA256SUMS"})
        for rel, digest in sums.items():
            self.assertEqual(hashlib.sha256(files[rel]).hexdigest(), digest, rel)
        zenodo = json.loads(files[".zenodo.json"])
        self.assertEqual((zenodo["upload_type"], zenodo["license"]), ("software", "BSD-3-Clause"))
        self.assertIn(f'version: "{zenodo["version"]}"', files["CITATION.cff"].decode())
        manifest = json.loads(files[".source-manifest.json"])
        self.assertEqual(manifest["commit"], self.head)

    def test_an_extracted_copy_measures_its_sources_against_its_commit(self):
        with tempfile.TemporaryDirectory() as tmp:
            with tarfile.open(self.archive()) as tar:
                tar.extractall(tmp)
            [copy] = pathlib.Path(tmp).iterdir()
            state = provenance.source_state(copy)
            self.assertEqual((state["commit"], state["dirty"], state["source_expected_from"]),
                             (self.head, False, provenance.SOURCE_MANIFEST))

    def test_an_existing_archive_is_not_overwritten(self):
        before = self.archive().read_bytes()
        r = subprocess.run(["make", "-s", "archive", f"OUT={self.out}"], cwd=ROOT, capture_output=True, text=True,
                           timeout=600)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("nothing is overwritten", r.stderr)
        self.assertEqual(self.archive().read_bytes(), before)


if __name__ == "__main__":
    unittest.main()
