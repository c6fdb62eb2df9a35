#!/usr/bin/env python3
"""`make view`: the built report (and the documentation) in a browser.

    python3 tools/view.py            # serve the checkout on a free local port, print the report's address
    python3 tools/view.py --open     # the same, and open it in the desktop's browser (xdg-open) if there is one
    python3 tools/view.py --check    # serve, fetch the report's first page once, stop (a test of this tool)

The checkout is served, read only, on 127.0.0.1 (this machine alone), so that the documentation's links into
the report resolve as they do on disk; Ctrl-C stops it. Without a built report it says which command builds it.
"""
import argparse
import functools
import http.server
import os
import pathlib
import shutil
import subprocess
import sys
import threading
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
REPORT = "paper/_build/html/index.html"
DOCS = "docs/_build/html/index.html"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # one line per request would bury the address
        pass


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--open", action="store_true", help="also open the report with xdg-open, if there is a desktop")
    g.add_argument("--check", action="store_true", help="serve, fetch the report's first page once, and stop")
    p.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    a = p.parse_args(argv)
    if not (ROOT / REPORT).is_file():
        print(f"view: no report built yet ({REPORT} does not exist): run 'make paper PDF=0' first", file=sys.stderr)
        return 2
    handler = functools.partial(QuietHandler, directory=str(ROOT))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", a.port), handler)
    except OSError as e:
        print(f"view: cannot serve on 127.0.0.1:{a.port}: {e.strerror}", file=sys.stderr)
        return 2
    base = f"http://127.0.0.1:{server.server_address[1]}"
    print(f"view: the report: {base}/{REPORT}")
    if (ROOT / DOCS).is_file():
        print(f"view: the documentation: {base}/{DOCS}")
    if a.check:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            with urllib.request.urlopen(f"{base}/{REPORT}", timeout=10) as r:
                ok = r.status == 200 and b"<html" in r.read(4096).lower()
        finally:
            server.shutdown()
            server.server_close()
        print("view: served the report's first page" if ok else "view: the report's first page did not come back")
        return 0 if ok else 1
    if a.open and shutil.which("xdg-open") and (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        subprocess.Popen(["xdg-open", f"{base}/{REPORT}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print("view: serving the checkout on this machine only; Ctrl-C stops", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
