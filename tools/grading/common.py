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


# The build column's values (grades.csv, the progress line, summary.txt, feedback.txt's "Build:"): what became
# of the build, in words that cannot be read as a verdict (an "ok" there was read as "the submission is fine").
BUILT, BUILD_FAILED, BUILD_TIMEOUT, NO_FILES, GRADER_ERROR = (
    "built", "build failed", "build timed out", "no files", "grader error")
BUILD_STATES = (BUILT, BUILD_FAILED, BUILD_TIMEOUT, NO_FILES, GRADER_ERROR)


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
