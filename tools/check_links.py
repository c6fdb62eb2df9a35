#!/usr/bin/env python3
"""Every local link of built HTML trees resolves: its file exists and its #anchor names an element there; and
nothing the pages load (scripts, style sheets, images, fonts) comes from the network.

    python3 tools/check_links.py docs/_build/html paper/_build/html     # make linkcheck

A tree's pages may link into another tree given on the command line (the documentation links to the report's
chapters: both are built inside the checkout, docs/_build/html and paper/_build/html, so a relative link from
one to the other resolves on disk and through `make view`); such a link is checked in that tree like a link
of its own. A link into a tree that was not built is dead, and said so with the command that builds it.
Links to other sites (http:, https:, mailto:) are not followed, but a page that *loads* something from another
site (a <script src>, a style sheet, an image) is refused: the pages must read offline.

Prints one line per dead link (page, line, the link, why) and a summary; exit 0 when every link resolves,
1 when one does not, 2 for a tree that does not exist.
"""
import argparse
import html.parser
import pathlib
import sys
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Attributes that name another resource, by tag; those that are loaded with the page (not followed by a click).
LINK_ATTRS = {"a": ("href",), "area": ("href",), "link": ("href",), "img": ("src",), "script": ("src",),
              "iframe": ("src",), "source": ("src",), "embed": ("src",), "object": ("data",)}
LOADED = {"link", "img", "script", "iframe", "source", "embed", "object"}
# What builds each tree (named in the message when a link points into a tree that is not there).
BUILT_BY = {"docs/_build/html": "make docs", "paper/_build/html": "make paper PDF=0"}


class Page(html.parser.HTMLParser):
    """The ids (anchors) of one page and its links with their line numbers."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []  # (line, tag, attribute, value)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        for attr in LINK_ATTRS.get(tag, ()):
            value = a.get(attr)
            if value is None:
                continue
            if tag == "link" and not ({"stylesheet", "icon", "preload", "prefetch"}
                                      & set((a.get("rel") or "").lower().split())):
                # <link rel="index" href=...> and the like are navigation: checked like <a>.
                self.links.append((self.getpos()[0], "a", attr, value))
            else:
                self.links.append((self.getpos()[0], tag, attr, value))

    handle_startendtag = handle_starttag


class Checker:
    def __init__(self, trees):
        self.trees = [t.resolve() for t in trees]
        self.pages = {}

    def page(self, path):
        """The parsed page at @p path (cached); None when it is not HTML."""
        if path.suffix.lower() not in (".html", ".htm"):
            return None
        if path not in self.pages:
            p = Page()
            p.feed(path.read_text(encoding="utf-8", errors="replace"))
            p.close()
            self.pages[path] = p
        return self.pages[path]

    def tree_of(self, path):
        return next((t for t in self.trees if path == t or t in path.parents), None)

    def check_link(self, page_path, tag, value):
        """Why the link @p value of @p page_path is dead, or None when it resolves (or is not local)."""
        url = urllib.parse.urlsplit(value.strip())
        if url.scheme or url.netloc:
            if tag in LOADED and url.scheme in ("http", "https", "") and url.netloc:
                return f"loads {url.scheme or 'https'}://{url.netloc}/... from the network (the pages must read offline)"
            return None  # a link to another site, followed by a reader's click: not checked here
        if not url.path and not url.fragment:
            return None
        target = page_path if not url.path else (page_path.parent / urllib.parse.unquote(url.path)).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            for rel, command in BUILT_BY.items():
                tree = (ROOT / rel).resolve()
                if (tree == target or tree in target.parents) and not tree.exists():
                    return f"{rel} is not built ({command})"
            return "no such file"
        if url.fragment:
            page = self.page(target)
            if page is not None and urllib.parse.unquote(url.fragment) not in page.ids:
                return f"no anchor #{url.fragment} in {self.show(target)}"
        return None

    def show(self, path):
        try:
            return str(path.relative_to(ROOT))
        except ValueError:
            return str(path)

    def run(self):
        dead, count, pages = [], 0, 0
        for tree in self.trees:
            for path in sorted(tree.rglob("*.html")):
                pages += 1
                for line, tag, _attr, value in self.page(path.resolve()).links:
                    count += 1
                    why = self.check_link(path.resolve(), tag, value)
                    if why:
                        dead.append(f"{self.show(path)}:{line}: {value}: {why}")
        return dead, count, pages


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trees", nargs="+", type=pathlib.Path, help="folders of built HTML pages")
    a = p.parse_args(argv)
    for tree in a.trees:
        if not tree.is_dir():
            rel = next((c for r, c in BUILT_BY.items() if (ROOT / r).resolve() == tree.resolve()), None)
            print(f"check_links: {tree}: no such folder" + (f" (built by {rel})" if rel else ""), file=sys.stderr)
            return 2
    dead, count, pages = Checker(a.trees).run()
    for line in dead:
        print(line)
    names = ", ".join(str(t) for t in a.trees)
    print(f"check_links: {pages} pages, {count} links and loaded files in {names}: "
          + (f"{len(dead)} dead" if dead else "every local link resolves and nothing is loaded from the network"))
    return 1 if dead else 0


if __name__ == "__main__":
    sys.exit(main())
