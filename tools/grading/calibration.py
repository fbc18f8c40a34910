"""Calibration, before any student is graded: every test case of the lab run
once on the untouched starter and once on the reference solution, here, on
this machine, through the trusted checker as students are graded (the starter's
runner in the sandbox; the reference from a runner built with the references). A test the starter already passes (a peer row, a test of the
harness) would give everyone a free point: it is not graded unless the
weights file names it. A test the reference fails is broken here: the run
warns. The reference's time for each test sets that test's automatic time
limit (--test-timeout overrides it). A test that calls student code directly,
not through a stage, cannot run in the checker (it has no student code), nor
can one that watches the process of the code it tests (counts its heap
allocations): the first is found here on the starter (the checker's stubs say
so), the second because the reference passes it only in its own process; both
are graded in the student's own process for everyone, which the run and
summary.txt say (their verdicts could be forged)."""

import shutil
from dataclasses import dataclass, field

from . import checker
from .catalog import is_gpu_suite
from .common import REPO, say
from .testcases import run_checked_test_case, run_test_case

# The default time limit of a test case: this many times the reference's time
# for it here (calibration), within these bounds. The lab tests take well under
# a second to a few seconds, so a student's endless loop costs 30 s, not 120 s,
# while code 20 times slower than the reference still passes.
AUTO_TIMEOUT_FACTOR, AUTO_TIMEOUT_MIN, AUTO_TIMEOUT_MAX = 20.0, 30.0, 120.0
# The time limit of a calibration run (the starter's endless loop, if any, costs this).
CALIBRATION_TIMEOUT = 300


@dataclass
class Calibration:
    weights: dict         # test case -> points (0 for a free test)
    free: set             # the test cases the untouched starter passes: not graded
    lines: list           # what the run printed about them (also in summary.txt)
    auto_timeouts: dict   # test case -> seconds, from the reference's time here
    in_process: set = field(default_factory=set)  # the tests the checker cannot run (they call student code directly)


def auto_timeout(reference_seconds):
    return min(AUTO_TIMEOUT_MAX, max(AUTO_TIMEOUT_MIN, AUTO_TIMEOUT_FACTOR * reference_seconds))


def calibrate(base, suites, tests, gpu_note, limits, given_weights, weights_path, programs=None):
    """Runs the calibration in the built starter tree `base`. tests: [(suite, name)]; gpu_note: why GPU
    tests do not run here (None: they do); given_weights: the weights file's {name: points}; programs:
    the checker's (checker.Programs; None: every test in the tested code's own process, the old way)."""
    say("checking the tests on the untouched starter and on the reference solution ...")
    cal = base / ".grade-calibration"
    cal.mkdir()
    weights, free, lines, auto_timeouts, in_process = {}, set(), [], {}, set()
    shown_path = weights_path.relative_to(REPO) if REPO in weights_path.parents else weights_path
    gpu_tests = {n for s, n in tests if is_gpu_suite(s)}
    for i, (s, n) in enumerate(tests):
        weights[n] = given_weights.get(n, 1.0)
        if n in gpu_tests and gpu_note:
            continue  # cannot run here: graded 0 for everyone (the run warns)
        in_own_process = programs is None
        if programs:
            starter, direct = run_checked_test_case(programs, base, suites, s, n, cal, f"s{i}", limits,
                                                    CALIBRATION_TIMEOUT, gpu_note)
            if direct:
                in_own_process = True
                lines.append(f"'{n}' calls student code directly, not through a stage, so the checker cannot run "
                             "it: graded in the student's own process, where a submission could forge its result")
            else:
                ref, _ = run_checked_test_case(programs, base, suites, s, n, cal, f"r{i}", limits,
                                               CALIBRATION_TIMEOUT, gpu_note, impl="reference")
                # A test the reference passes only in its own process watches that process (counts its
                # heap allocations...): there is no other way to run it.
                if ref.status != "passed" and run_test_case(base, suites, s, n, cal, f"p{i}", limits,
                                                            CALIBRATION_TIMEOUT, gpu_note,
                                                            impl="reference").status == "passed":
                    in_own_process = True
                    lines.append(f"'{n}' passes on the reference in its own process only, not through the checker "
                                 f"(it watches the process of the code it tests; through the checker: "
                                 f"{ref.status}): graded in the student's own process, where a submission could "
                                 "forge its result")
            if in_own_process:
                in_process.add(n)
        if in_own_process:  # the starter with its own code linked in; the reference with the references
            extra = {}
            program = "build/bin/mmlab-tests"
            if programs:
                program = programs.student_tests(base)
                extra = {"MMLAB": str(programs.checker_mmlab),
                         "MML_RUNNER": checker.runner_line(programs, base, limits, CALIBRATION_TIMEOUT)}
            starter = run_test_case(base, suites, s, n, cal, f"s{i}", limits, CALIBRATION_TIMEOUT, gpu_note,
                                    program=program, extra_env=extra)
            ref = run_test_case(base, suites, s, n, cal, f"r{i}", limits, CALIBRATION_TIMEOUT, gpu_note,
                                impl="reference")
        auto_timeouts[n] = auto_timeout(ref.seconds)
        if starter.status == "passed" and n not in given_weights:
            weights[n] = 0.0
            free.add(n)
            lines.append(f"'{n}' passes on the untouched starter: not graded (weight 0; give it points in "
                         f"{shown_path} to grade it anyway)")
        if ref.status != "passed":
            lines.append(f"WARNING: the reference solution fails '{n}' on this machine ({ref.status}: "
                         f"{ref.message.splitlines()[0] if ref.message else ''}): its points are unreliable here")
    for line in lines:
        say("  " + line)
    shutil.rmtree(cal)
    return Calibration(weights, free, lines, auto_timeouts, in_process)


def test_time_limits(test_names, test_timeout, auto_timeouts):
    """Per test case: --test-timeout when given, else its automatic limit (the longest when it has none)."""
    return {n: test_timeout or auto_timeouts.get(n, AUTO_TIMEOUT_MAX) for n in test_names}


def timeout_text(test_timeout, auto_timeouts):
    """The time limit per test case as the run and summary.txt state it."""
    if test_timeout:
        return f"{test_timeout:g} s"
    lo, hi = (min(auto_timeouts.values()), max(auto_timeouts.values())) if auto_timeouts else (AUTO_TIMEOUT_MAX,
                                                                                                 AUTO_TIMEOUT_MAX)
    span = f"{lo:.0f} s" if round(lo) == round(hi) else f"{lo:.0f}-{hi:.0f} s"
    return f"{span} (auto: {AUTO_TIMEOUT_FACTOR:g}x the reference's time here, {AUTO_TIMEOUT_MIN:g}-{AUTO_TIMEOUT_MAX:g} s)"
