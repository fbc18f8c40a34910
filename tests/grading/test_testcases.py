#!/usr/bin/env python3
"""Unit tests of tools/grading/testcases.py with a stand-in for the test
program (fake_tree.py): its build/bin/mmlab-tests writes doctest's XML as a
real test would pass, fail, crash, hang, exit after passing, or be a GPU test
skipped here, and its build/bin/mmlab gives a performance verdict. Each runs
under tools/grading/sandbox.sh ('none': limits only), as the grader runs
them; no build, a few seconds."""
import sys
sys.dont_write_bytecode = True

import checks
from checks import Scratch, check
from fake_tree import LAB, STARTER_KERNEL, make_tree
from grading import testcases
from grading.sandbox import Limits


def exit_texts():
    check(testcases.exit_text(-11) == "SIGSEGV (segmentation fault)" and testcases.exit_text(139) == "SIGSEGV (segmentation fault)",
          "a signal, from Python (-11) or from a shell (128 + 11), by name")
    check(testcases.exit_text(153) == "SIGXFSZ (file size limit: too much output)", "the file size limit says so")
    check(testcases.exit_text(128 + 40) == "signal 40" and testcases.exit_text(1) == "exit status 1"
          and testcases.exit_text(None) == "no exit status", "other signals by number; exit statuses")


def running(tree):
    limits = Limits("none", 0, 64 * 1024, 1000)

    runs = []

    def run(suite, name, timeout=20, impl="student"):
        runs.append(name)  # each run its own report file, as in the grader
        return testcases.run_test_case(tree, LAB.suites, suite, name, tree / "logs", len(runs), limits, timeout,
                                       "no CUDA device here", impl=impl)

    r = run("labX", "passes")
    check(r.status == "passed" and r.message == "" and r.seconds > 0, "a test that passes: passed", vars(r))
    r = run("labX", "two, with a comma")
    check(r.status == "passed", "a name with a comma reaches doctest escaped, and its result is found", vars(r))
    r = run("labX", "fails")
    check(r.status == "failed" and r.message == "C[0][0] was never written", "a failed check: failed, with its message",
          vars(r))
    r = run("labX", "passes on the reference only")
    check(r.status == "failed", "MML_IMPL=student by default", vars(r))
    r = run("labX", "passes on the reference only", impl="reference")
    check(r.status == "passed", "impl='reference' runs the reference (calibration)", vars(r))
    r = run("labX", "passes, then exits 3")
    check(r.status == "crashed" and "the checks passed but the program then ended with exit status 3" in r.message,
          "checks passed, then a bad exit: crashed", vars(r))
    r = run("labX", "segfaults")
    check(r.status == "crashed" and "SIGSEGV (segmentation fault) during this test" in r.message
          and "about to crash" in r.message, "killed by a signal before its report: crashed, the signal and its output",
          vars(r))
    r = run("labX", "crash doctest caught")
    check(r.status == "crashed" and "SIGFPE" in r.message, "a crash doctest reported: crashed, doctest's words", vars(r))
    r = run("labX", "hangs in the test", timeout=1)
    check(r.status == "timeout" and r.message == "did not finish within the test's 1 s limit (an endless loop, or far too slow)"
          and r.seconds < 10 * checks.slack(), "an endless test: stopped at its time limit", vars(r))
    r = run("labX", "fails, then hangs at exit", timeout=1)
    check(r.status == "timeout" and r.message.endswith("far too slow): C[0][0] was never written"),
          "a test that failed, then never ended: timeout, with the check that failed", vars(r))
    r = run("gpu-labX", "on the GPU")
    check(r.status == "not-run" and "GPU test not run on the grading machine (no CUDA device here)" in r.message,
          "a GPU test skipped here: not run (never passed), saying why", vars(r))
    r = run("labX", "vanishes")
    check(r.status == "crashed" and "ended with exit status 0 during this test" in r.message,
          "no report at all: crashed (nothing unreported counts as passed)", vars(r))

    tests, gpu_note = testcases.list_tests(tree, LAB, tree / "logs", limits)
    check(tests == [("labX", "one"), ("labX", "two, with a comma"), ("gpu-labX", "on the GPU")],
          "listing: every case of the lab's suites (from the catalog), in order; other suites left out", str(tests))
    check(gpu_note == "no CUDA device here", "listing: why GPU tests do not run here, from the test program", gpu_note)
    check(not (tree / ".grade-list.xml").exists(), "listing leaves no report in the tree (it is copied per student)")

    weights = {"passes": 1.0, "fails": 0.0}
    results = {"passes": testcases.TestResult("passes", "passed"), "fails": testcases.TestResult("fails", "failed")}
    r = testcases.run_performance_target(tree, tree / "logs", LAB.number, results, weights, 1, None, limits)
    check(r.status == "passed" and r.message == "ijk within 1.5x: 1.1x" and r.name == "performance target (mmlab lab 99)",
          "--perf: mmlab's verdict and explanation (a failed test of weight 0 does not stop it)", vars(r))
    (tree / "logs2").mkdir()  # a fresh folder per run, as each student's is: no verdict left from before
    r = testcases.run_performance_target(tree, tree / "logs2", LAB.number, results, weights, 1, "64", limits)
    check(r.status == "inconclusive" and "gave no verdict (exit status 0; its last lines:" in r.message
          and "withheld (neither given nor lost)" in r.message and "gave no verdict" in r.reason
          and (tree / "logs2" / "perf2.log").exists(),
          "--perf without a verdict from mmlab, twice: inconclusive with the reason (never a 0: every graded test "
          "passed, so it is most likely the machine's)", vars(r))
    (tree / "logs3").mkdir()
    kernel = tree / LAB.folder / "kernel.cpp"
    kernel.write_text("// BUSY ONCE\n")
    r = testcases.run_performance_target(tree, tree / "logs3", LAB.number, results, weights, 1, None, limits)
    check(r.status == "passed" and "on a second run: the first could not be judged" in r.message
          and (tree / "logs3" / "perf.json").exists() and (tree / "logs3" / "perf2.json").exists(),
          "--perf inconclusive once: run once more, and that run's verdict counts (saying so)", vars(r))
    (tree / "logs4").mkdir()
    kernel.write_text("// BUSY\n")
    r = testcases.run_performance_target(tree, tree / "logs4", LAB.number, results, weights, 1, None, limits)
    check(r.status == "inconclusive" and r.message.startswith("machine busy (load ")
          and "withheld until your instructor reruns it on a quiet machine; the timing said: ijk within 1.5x: 1.4x"
          in r.message and len(r.machine_load) == 2,
          "--perf inconclusive twice: status inconclusive, the load the grader read and the checker's reason", vars(r))
    kernel.write_text(STARTER_KERNEL)
    weights["fails"] = 1.0
    r = testcases.run_performance_target(tree, tree / "logs", LAB.number, results, weights, 1, None, limits)
    check(r.status == "not-run" and "every graded test must pass first" in r.message,
          "--perf is not run while a graded test fails", vars(r))


def runner_outputs(tmp):
    """checker.runner_output: the file the checker writes (MML_RUNNER_OUTPUT) as the feedback shows it."""
    from grading import checker
    f = tmp / "out.txt"
    check(checker.runner_output(tmp / "none.txt") == "", "no output file (the runner printed nothing): nothing shown")
    f.write_bytes(b"mmlab-runner-output total=11 kept=11\ndebug: x=1\n")
    text = checker.runner_output(f)
    check(text.startswith("Your code printed 11 bytes (printing is allowed and costs nothing):")
          and text.endswith("\n| debug: x=1"), "short output: all of it, each line marked", text)
    body = b"".join(b"line %d\x01\n" % i for i in range(50))
    f.write_bytes(b"mmlab-runner-output total=999999 kept=%d\n" % len(body) + body)
    text = checker.runner_output(f)
    lines = text.split("\n")
    check("999999 bytes" in lines[0] and "the first 20 lines shown" in lines[0] and len(lines) == 21
          and lines[1] == "| line 0\ufffd", "long output: the count, 20 lines, control characters replaced", text[:200])
    f.write_bytes(b"forged header\nmmlab-runner-output total=1 kept=1\nx")
    check(checker.runner_output(f) == "", "a file whose first line is not the checker's header: nothing shown")


exit_texts()
with Scratch() as tmp:
    runner_outputs(tmp)
with Scratch() as tmp:
    tree = make_tree(tmp / "tree")
    (tree / "logs").mkdir()
    running(tree)
checks.finish("testcases")
