"""The walkthroughs' emphasis by text (tools/sphinx_emphasis.py): each string names exactly one line of the quoted
part, else the build stops naming the string; worked out on made-up listings, and every use in the docs resolves
against today's sources."""
import json
import pathlib
import re
import unittest

from tools.sphinx_emphasis import EmphasisError, emphasized_lines, parse_texts

ROOT = pathlib.Path(__file__).resolve().parents[2]
LISTING = ["int a = 1;", "int b = a + 1;  // next", "return a + b;"]


class ByText(unittest.TestCase):
    def test_each_string_names_its_one_line(self):
        self.assertEqual(emphasized_lines(LISTING, ["return", "int b"], "x.cpp"), [2, 3])
        self.assertEqual(emphasized_lines(LISTING, ["// next"], "x.cpp"), [2])

    def test_a_string_in_no_line_or_in_two_stops_the_build(self):
        with self.assertRaisesRegex(EmphasisError, r"x.cpp: emphasize-text 'while' occurs in no line"):
            emphasized_lines(LISTING, ["while"], "x.cpp")
        with self.assertRaisesRegex(EmphasisError, r"'int ' occurs in lines 1, 2 of the quoted part"):
            emphasized_lines(LISTING, ["int "], "x.cpp")

    def test_the_option_is_a_json_list_of_non_empty_strings(self):
        self.assertEqual(parse_texts('["a", "b c"]'), ["a", "b c"])
        for bad in ('"a"', "[]", '[""]', "[1]", "a, b"):
            with self.subTest(bad=bad), self.assertRaises(EmphasisError):
                parse_texts(bad)

    def test_every_use_in_the_docs_names_one_line_of_its_quoted_part(self):
        """The quoted part cut as Sphinx cuts it (the lines after the start-after line, before the end-before
        line); each walkthrough's strings found in exactly one of its lines, and no line emphasized by number."""
        uses = 0
        for md in sorted((ROOT / "docs").rglob("*.md")):
            if "_build" in md.parts:
                continue
            text = md.read_text()
            self.assertNotIn(":emphasize-lines:", text, f"{md}: emphasis by line number drifts; use emphasize-text")
            for m in re.finditer(r"```\{literalinclude\} (\S+)\n((?::[^\n]*\n)+)```", text):
                options = dict(re.findall(r"^:([\w-]+): ?(.*)$", m.group(2), re.M))
                if "emphasize-text" not in options:
                    continue
                lines = (md.parent / m.group(1)).read_text().splitlines()
                start = next(i for i, line in enumerate(lines) if json.loads(options["start-after"]) in line)
                end = next(i for i, line in enumerate(lines) if i > start and json.loads(options["end-before"]) in line)
                emphasized_lines(lines[start + 1:end], parse_texts(options["emphasize-text"]), f"{md}: {m.group(1)}")
                uses += 1
        self.assertGreaterEqual(uses, 11)


if __name__ == "__main__":
    unittest.main()
