"""The shim of the scripts of this folder when they are run by their path (`python3 experiments/peer/NAME.py`): Python then
puts this folder first on the module path, so `import _checkout` finds this file, which puts the checkout's root
there instead; the scripts then import the project as the package it is, as `python3 -m experiments.peer.NAME` does without
a shim. The only edit of the module path outside the tests' helpers."""
import pathlib
import sys

sys.path[0] = str(pathlib.Path(__file__).resolve().parents[2])
