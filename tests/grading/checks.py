"""What the grader's unit tests (tests/grading/test_<module>.py) share: the
import path of the package tools/grading/, one printed line per check
('ok   - ' or 'FAIL - ' with the detail indented below, as test_grade.py
prints them, and as tests/script_test.h reads them), a scratch folder, and
the last line with the exit status.

A test file starts with
    import sys
    sys.dont_write_bytecode = True   # before any import of ours: no __pycache__ in the checkout
    import checks
(the grader copies the checkout's untracked files into every build tree).
"""

import shutil
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO / "tools"))  # `import grading` is tools/grading/

failures = []


def check(cond, what, detail=""):
    print(("ok   - " if cond else "FAIL - ") + what + ("" if cond or not detail else f"\n       {detail}"), flush=True)
    if not cond:
        failures.append(what)


def raises(exception, fn, *args, **kwargs):
    """The exception fn raised (of that type), or None when it raised none."""
    try:
        fn(*args, **kwargs)
    except exception as e:
        return e
    return None


class Scratch:
    """A temporary folder, removed at the end: `with Scratch() as tmp:` (tmp is a Path)."""

    def __enter__(self):
        self.path = Path(tempfile.mkdtemp(prefix="mmlab-grading-unit-"))
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def finish(name):
    """The last line (tests/test_grading.cpp looks for '<name> tests: all passed') and the exit status."""
    print(f"{name} tests: {'all passed' if not failures else str(len(failures)) + ' FAILED: ' + '; '.join(failures)}")
    sys.exit(1 if failures else 0)
