"""A Sphinx extension: a quoted listing emphasizes lines by their text, not by their number.

`literalinclude` takes one more option, `emphasize-text`: a JSON list of strings, each of which must occur in
exactly one line of the quoted part (after `start-after`, `end-before` and the other selections). Those lines are
emphasized, as `emphasize-lines` would emphasize them by number. When the source changes so that a string occurs
in no line or in two, the build stops with the file, the string and the lines it occurs in, instead of
emphasizing a line the text no longer means (line numbers drift silently when a line is added above them).

    ```{literalinclude} ../../../kernels/mwsep/likelihood_kernel.cu
    :language: cpp
    :start-after: "// [star-points-begin]"
    :end-before: "// [star-points-end]"
    :emphasize-text: ["a.stars[f * a.stride + n]"]
    ```

Used by docs/conf.py (extensions = [..., "tools.sphinx_emphasis"]).
"""
import json


class EmphasisError(ValueError):
    """An `emphasize-text` option that does not name exactly one line for each of its strings."""


def parse_texts(argument):
    """The option's value: a JSON list of non-empty strings (EmphasisError otherwise)."""
    try:
        texts = json.loads(argument)
    except ValueError as e:
        raise EmphasisError(f"emphasize-text: not a JSON list of strings ({e}): {argument!r}") from None
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) and t for t in texts):
        raise EmphasisError(f"emphasize-text: expected a JSON list of non-empty strings, got {argument!r}")
    return texts


def emphasized_lines(lines, texts, where):
    """The 1-based numbers, in order, of the lines of @p lines that hold each string of @p texts: each string must
    occur in exactly one line (EmphasisError naming @p where, the string and the lines otherwise)."""
    numbers = []
    for text in texts:
        found = [i + 1 for i, line in enumerate(lines) if text in line]
        if len(found) != 1:
            places = f"lines {', '.join(map(str, found))}" if found else "no line"
            raise EmphasisError(f"{where}: emphasize-text {text!r} occurs in {places} of the quoted part; "
                                "it must name exactly one")
        numbers.append(found[0])
    return sorted(set(numbers))


def literalinclude_by_text():
    """`literalinclude` with the `emphasize-text` option (see the module's description). Made on demand, so that the
    checks above import without Sphinx."""
    from docutils.parsers.rst import directives
    from sphinx.directives.code import LiteralInclude, LiteralIncludeReader

    class LiteralIncludeByText(LiteralInclude):
        option_spec = dict(LiteralInclude.option_spec, **{"emphasize-text": directives.unchanged_required})

        def run(self):
            if "emphasize-text" in self.options:
                if "emphasize-lines" in self.options:
                    raise self.error("emphasize-text and emphasize-lines together: give one of them")
                _, filename = self.env.relfn2path(self.arguments[0])
                options = {k: v for k, v in self.options.items() if k != "emphasize-text"}
                try:
                    texts = parse_texts(self.options["emphasize-text"])
                    text, _ = LiteralIncludeReader(filename, options, self.config).read(location=self.get_location())
                    numbers = emphasized_lines(text.splitlines(), texts, self.arguments[0])
                except (EmphasisError, OSError) as e:
                    raise self.error(str(e)) from None
                del self.options["emphasize-text"]
                self.options["emphasize-lines"] = ",".join(map(str, numbers))
            return super().run()

    return LiteralIncludeByText


def setup(app):
    app.add_directive("literalinclude", literalinclude_by_text(), override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
