"""What every module of the grader shares: where the repository is, the two
errors that end a run (each with its own exit status, cli.py turns them into
one line on stderr), and how progress and warnings are printed."""

import sys
from pathlib import Path

from . import escape

# tools/grading/common.py -> the repository root.
REPO = Path(__file__).resolve().parent.parent.parent
# The name the grader gives itself in its messages ("grade: error: ...").
PROG = "grade"


class UsageError(Exception):
    """Bad command line or input: one line on stderr, exit 2, nothing written."""


class SetupError(Exception):
    """This machine or checkout cannot grade (the starter does not build...): exit 1."""


def say(msg=""):
    """A line of progress on stdout, at once (a class takes minutes; the instructor watches); student text in
    it cannot reach the terminal as control characters (escape.block)."""
    print(escape.block(msg), flush=True)


def warn(msg):
    print(f"{PROG}: warning: {escape.block(msg)}", file=sys.stderr, flush=True)


def fmt(number):
    """A score as people write it: 6, 0.5, 7.5 (not 6.0)."""
    return f"{number:g}"
