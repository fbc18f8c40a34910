#!/usr/bin/env python3
"""Unit tests of tools/grading/calibration.py's time limits: the automatic
limit from the reference's time (20x, within 30-120 s), --test-timeout over
it, and how the run states it. (The calibration runs themselves need a
build: tests/grading/test_grade.py checks them end to end.) No build."""
import sys
sys.dont_write_bytecode = True

import checks
from checks import check
from grading import calibration as cal


def automatic_limits():
    check(cal.auto_timeout(0.01) == cal.AUTO_TIMEOUT_MIN == 30, "a fast test gets the floor, 30 s")
    check(cal.auto_timeout(2.0) == 40, "20x the reference's time in between (2 s -> 40 s)")
    check(cal.auto_timeout(600) == cal.AUTO_TIMEOUT_MAX == 120, "a slow test gets the ceiling, 120 s")
    limits = cal.test_time_limits(["a", "b", "gpu"], None, {"a": 30.0, "b": 44.0})
    check(limits == {"a": 30.0, "b": 44.0, "gpu": 120.0},
          "per test case: its automatic limit; one not calibrated (a GPU test here) the ceiling", str(limits))
    check(cal.test_time_limits(["a", "b"], 5.0, {"a": 30.0}) == {"a": 5.0, "b": 5.0}, "--test-timeout applies to every test")


def stated():
    check(cal.timeout_text(7.5, {"a": 30.0}) == "7.5 s", "--test-timeout: stated as given")
    check(cal.timeout_text(None, {"a": 30.0, "b": 30.2}) == "30 s (auto: 20x the reference's time here, 30-120 s)",
          "automatic, all alike: one number and how it was found")
    check(cal.timeout_text(None, {"a": 30.0, "b": 61.0}).startswith("30-61 s (auto:"), "automatic, different: the range")
    check(cal.timeout_text(None, {}).startswith("120 s (auto:"), "nothing calibrated: the ceiling")


automatic_limits()
stated()
checks.finish("calibration")
