"""Scores: the weights file (tools/grading/labN.weights or --weights), and one
student's test results turned into points. A test case scores its weight when
it passed and 0 otherwise, whatever the reason (nothing skipped is ever
counted as passed), but for a performance target the checker could not judge
(status "inconclusive": the machine busy, twice), whose points are withheld:
neither given nor lost, the cell says "inconclusive" until a rerun; a test the untouched starter passes is not graded at all
(calibration.py decides which); with --perf the lab's performance target is
one more test, worth --perf-points."""

from dataclasses import dataclass, field

from .common import REPO, UsageError, fmt
from .testcases import TestResult

# The performance target's key among a student's results (no test case can be
# named so: doctest names come from the tests' source).
PERF_KEY = "__perf__"
# grades.csv's cell for a test whose points are withheld (status "inconclusive"): text, never a 0 to sum.
WITHHELD_CELL = "inconclusive"


def default_weights_path(lab_number):
    return REPO / "tools" / "grading" / f"lab{lab_number}.weights"


def read_weights(path):
    """'test case name = points' lines; '#' starts a comment. Returns {name: points}."""
    weights = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read weights file {path}: {e}")
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        # The last '=' splits: a test case name may itself contain one.
        name, eq, value = line.rpartition("=")
        try:
            points = float(value)
        except ValueError:
            points = -1
        if not eq or not name.strip() or points < 0:
            raise UsageError(f"{path}:{n}: expected 'test case name = points' (points >= 0), got '{line}'")
        weights[name.strip()] = points
    return weights


def graded_order(test_names, perf):
    """The columns of a student's score, in order: the test cases, then the performance target with --perf."""
    return list(test_names) + ([PERF_KEY] if perf else [])


def verdict_text(result):
    """'PASSED', 'FAILED: <why>', 'NOT RUN: <why>'...: the line a student reads for one test, then (on the
    lines after it) what their code printed in it, if anything (TestResult.printed)."""
    printed = getattr(result, "printed", "")
    return (result.status.upper().replace("-", " ") + (": " + result.message if result.message else "")
            + ("\n" + printed if printed else ""))


@dataclass
class ScoredTest:
    name: str            # as shown to the student (the performance target: what mmlab lab N it is)
    number: int          # 1, 2, ... among the graded tests
    points: float        # what it earned
    max_points: float
    passed: bool
    output: str          # verdict_text of its result
    withheld: bool = False  # inconclusive: its points are neither earned nor lost until a rerun


@dataclass
class Scorecard:
    tests: list = field(default_factory=list)        # ScoredTest per graded test, in order
    cells: dict = field(default_factory=dict)        # key -> points, or "" for a test not graded
    statuses: dict = field(default_factory=dict)     # key -> status ("not-run" when it has no result)
    not_graded: list = field(default_factory=list)   # keys of the tests not graded
    score: float = 0.0
    max_score: float = 0.0
    withheld: float = 0.0  # the points of inconclusive tests (part of max_score, not of score)


def score_student(order, results, weights, free, perf_points):
    """The points of one student. order: graded_order(...); results: key -> TestResult (missing: not run);
    weights: test case -> points; free: the test cases not graded; perf_points: the target's weight."""
    card = Scorecard()
    card.not_graded = [n for n in order if n in free]
    for n in card.not_graded:
        card.cells[n] = ""  # an empty cell in grades.csv: not graded
    for number, n in enumerate([n for n in order if n not in free], 1):
        r = results.get(n) or TestResult(n, "not-run", "not run")
        pts = perf_points if n == PERF_KEY else weights[n]
        got = pts if r.status == "passed" else 0.0
        withheld = r.status == "inconclusive"
        card.score += got
        card.max_score += pts
        card.withheld += pts if withheld else 0.0
        card.cells[n] = WITHHELD_CELL if withheld else got
        card.tests.append(ScoredTest(r.name if n == PERF_KEY else n, number, got, pts, r.status == "passed",
                                     verdict_text(r), withheld))
    card.statuses = {n: (results.get(n).status if results.get(n) else "not-run") for n in order}
    return card


def withheld_text(card):
    """'' or the note after a score: how many points are withheld and why (an inconclusive performance run)."""
    if not card.withheld:
        return ""
    return (f" ({fmt(card.withheld)} point{'s' if card.withheld != 1 else ''} withheld: the performance target "
            "was inconclusive, the grading machine busy; it is rerun on a quiet machine)")
