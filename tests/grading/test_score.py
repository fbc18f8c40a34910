#!/usr/bin/env python3
"""Unit tests of tools/grading/score.py: the weights file (comments, names
with '=', fractions, mistakes refused with the line), and one student's
results turned into points (weights, tests not graded, tests not run, the
--perf target). No build."""
import sys
sys.dont_write_bytecode = True

import checks
from checks import Scratch, check, raises
from grading import score
from grading.common import UsageError
from grading.testcases import TestResult


def weights_file(tmp):
    w = tmp / "lab.weights"
    w.write_text("# test case name = points\n\n  first: the baseline = 3  \nsecond = 0.5\nthird=0\n"
                 "a == b = 2\n# second = 100\n", encoding="utf-8")
    got = score.read_weights(w)
    check(got == {"first: the baseline": 3.0, "second": 0.5, "third": 0.0, "a == b": 2.0},
          "weights: names trimmed, fractions and 0 kept, comments skipped, the last '=' splits", str(got))
    for what, text in [("no '='", "first 3\n"), ("points that are not a number", "first = three\n"),
                       ("negative points", "first = -1\n"), ("no name", " = 2\n")]:
        w.write_text("# ok\n" + text)
        e = raises(UsageError, score.read_weights, w)
        check(e is not None and f"{w}:2:" in str(e) and "test case name = points" in str(e),
              f"weights file with {what}: a usage error naming the line", str(e))
    e = raises(UsageError, score.read_weights, tmp / "missing.weights")
    check(e is not None and "cannot read weights file" in str(e), "a weights file that cannot be read: usage error")
    check(score.default_weights_path(4).name == "lab4.weights" and score.default_weights_path(4).parent.name == "grading",
          "the default weights file is tools/grading/labN.weights")


def scoring():
    order = score.graded_order(["a", "b", "c", "free"], perf=True)
    check(order == ["a", "b", "c", "free", score.PERF_KEY], "graded order: the tests, then the performance target")
    check(score.graded_order(["a"], perf=False) == ["a"], "without --perf, no target")
    results = {"a": TestResult("a", "passed", "", 1.0), "b": TestResult("b", "failed", "C[0][0] was never written"),
               "free": TestResult("free", "not-run", "not graded"),
               score.PERF_KEY: TestResult("performance target (mmlab lab 4)", "passed", "met: 2x", 9.0)}
    card = score.score_student(order, results, {"a": 3.0, "b": 1.0, "c": 2.0, "free": 0.0}, {"free"}, 2.0)
    check(card.score == 5.0 and card.max_score == 8.0, "a passed test scores its weight, the rest 0: 3 (a) + 2 (the "
          "target) of 3 + 1 + 2 + 2, the test not graded left out", f"{card.score} / {card.max_score}")
    check(card.cells == {"a": 3.0, "b": 0.0, "c": 0.0, "free": "", score.PERF_KEY: 2.0},
          "cells: points per test, an empty cell for a test not graded", str(card.cells))
    check(card.not_graded == ["free"] and [t.name for t in card.tests] == ["a", "b", "c", "performance target (mmlab lab 4)"],
          "a test not graded is left out of the scored tests; the target is shown by its own name")
    check([t.number for t in card.tests] == [1, 2, 3, 4], "graded tests numbered 1.. in order")
    c = card.tests[2]
    check(c.points == 0 and not c.passed and c.output == "NOT RUN: not run", "a test without a result: not run, 0",
          c.output)
    check(card.tests[1].output == "FAILED: C[0][0] was never written" and card.tests[0].output == "PASSED",
          "each test's line: its status and why", card.tests[1].output)
    check(card.statuses == {"a": "passed", "b": "failed", "c": "not-run", "free": "not-run", score.PERF_KEY: "passed"},
          "statuses per test (summary.txt counts the passed ones)", str(card.statuses))
    for status in ("failed", "timeout", "crashed", "not-run"):
        card = score.score_student(["a"], {"a": TestResult("a", status, "why")}, {"a": 1.0}, set(), 1.0)
        check(card.score == 0 and card.max_score == 1, f"status {status}: 0 of its weight")
    check(score.verdict_text(TestResult("x", "not-run", "")) == "NOT RUN", "verdict without a message: the status alone")
    busy = TestResult("performance target (mmlab lab 1)", "inconclusive", "machine busy (load 3.1 on 2 cores) in two runs")
    card = score.score_student(["a", score.PERF_KEY], {"a": TestResult("a", "passed"), score.PERF_KEY: busy},
                               {"a": 3.0}, set(), 2.0)
    check(card.score == 3.0 and card.max_score == 5.0 and card.withheld == 2.0
          and card.cells[score.PERF_KEY] == "inconclusive" and card.tests[1].withheld and not card.tests[1].passed
          and card.statuses[score.PERF_KEY] == "inconclusive",
          "an inconclusive target: its points withheld (not earned, still in max, the cell says inconclusive)",
          str(vars(card)))
    check(card.tests[1].output == "INCONCLUSIVE: machine busy (load 3.1 on 2 cores) in two runs"
          and "2 points withheld" in score.withheld_text(card), "its line and the score's note say why",
          card.tests[1].output + score.withheld_text(card))
    check(score.withheld_text(score.score_student(["a"], {"a": TestResult("a", "failed")}, {"a": 1.0}, set(), 1.0)) == "",
          "nothing withheld: no note")
    check(score.verdict_text(TestResult("x", "passed", "", printed="Your code printed 3 bytes:\n| hi")) ==
          "PASSED\nYour code printed 3 bytes:\n| hi", "what the code printed follows the verdict, on lines of its own")
    empty = score.score_student([], {}, {}, set(), 1.0)
    check(empty.score == 0 and empty.max_score == 0 and empty.tests == [], "no tests: 0 of 0")


with Scratch() as tmp:
    weights_file(tmp)
scoring()
checks.finish("score")
