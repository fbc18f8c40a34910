"""The lab's test cases, each run as a process of its own in the sandbox, so
that an endless loop or a crash costs only that test: listing them from a
build, running one on a student's (or the reference's) code and turning what
happened into a TestResult; and the lab's performance target (--perf), run
through `mmlab lab N` and scored as one more test."""

import json
import os
import re

from .catalog import is_gpu_suite
from .common import SetupError
from .doctest_xml import doctest_filter_escape, failure_text, parse_doctest_xml
from .sandbox import clean_env, read_head, run_limited, tail_lines

# The statuses of a TestResult; only "passed" scores.
STATUSES = ("passed", "failed", "timeout", "crashed", "not-run")


class TestResult:
    def __init__(self, name, status, message="", seconds=0.0):
        assert status in STATUSES, status
        self.name, self.status, self.message, self.seconds = name, status, message, seconds


def exit_text(rc):
    """How a process ended, in words a student understands (signals by name and what usually sends them)."""
    if rc is None:
        return "no exit status"
    sig = -rc if rc < 0 else rc - 128 if rc > 128 else 0
    names = {4: "SIGILL (illegal instruction)", 6: "SIGABRT (abort)", 7: "SIGBUS", 8: "SIGFPE (arithmetic error)",
             9: "SIGKILL (a limit: CPU time or memory)", 11: "SIGSEGV (segmentation fault)",
             24: "SIGXCPU (CPU time limit)", 25: "SIGXFSZ (file size limit: too much output)"}
    if sig:
        return names.get(sig, f"signal {sig}")
    return f"exit status {rc}"


def _ended_during_test(name, rc, log_path, secs):
    log = read_head(log_path, 4096).strip()
    return TestResult(name, "crashed", f"the program ended with {exit_text(rc)} during this test"
                      + (f"; its output:\n{tail_lines(log, 10)}" if log else ""), secs)


def run_test_case(tree, suites, suite, name, out_dir, index, limits, timeout, gpu_note, impl="student"):
    """Runs test case `name` of `suite` in the built tree on the `impl` code (student or reference).
    Its report and output go to out_dir/test<index>.xml and .log. gpu_note: why GPU tests do not run here."""
    xml_path = out_dir / f"test{index}.xml"
    log_path = out_dir / f"test{index}.log"
    cmd = ["build/bin/mmlab-tests", f"--test-suite={','.join(suites)}",
           f"--test-case={doctest_filter_escape(name)}", "--reporters=xml", f"--out={xml_path}"]
    env = clean_env({"MML_IMPL": impl, "MMLAB": "build/bin/mmlab", "TMPDIR": str(tree / ".tmp")})
    rc, timed_out, secs = run_limited(cmd, tree, tree, log_path, timeout, limits, timeout * 4 + 10, env)
    cases, ran, complete = parse_doctest_xml(xml_path)
    mine = [tc for s, n, tc in ran if s == suite and n == name]
    if timed_out:
        return TestResult(name, "timeout", f"did not finish in {timeout:g} s (an endless loop, or far too slow)"
                          + (": " + failure_text(mine[0]) if mine and mine[0].find(".//Expression") is not None else ""),
                          secs)
    if mine:
        tc = mine[0]
        overall = tc.find("OverallResultsAsserts")
        if overall is not None and overall.get("test_case_success") == "true":
            if rc == 0:
                return TestResult(name, "passed", "", secs)
            return TestResult(name, "crashed", f"the checks passed but the program then ended with {exit_text(rc)}", secs)
        if overall is None:
            return _ended_during_test(name, rc, log_path, secs)
        crashed = any(e.get("crash") == "true" for e in tc.iter("Exception"))
        return TestResult(name, "crashed" if crashed else "failed", failure_text(tc), secs)
    if (suite, name) in cases and is_gpu_suite(suite):
        return TestResult(name, "not-run", f"GPU test not run on the grading machine ({gpu_note}); scored 0 "
                          "until it is graded on a machine with a GPU", secs)
    return _ended_during_test(name, rc, log_path, secs)


def list_tests(tree, lab, work, limits):
    """Every test case of the lab (its suites in the catalog) from the starter build, in file order,
    as (suite, name), plus why GPU tests do not run here (None when a GPU is present)."""
    xml_path, log_path = tree / ".grade-list.xml", work / "list.log"
    # A filter no test case matches: doctest reports every case of the suites as skipped, so listed.
    cmd = ["build/bin/mmlab-tests", f"--test-suite={','.join(lab.suites)}", "--test-case=mml-grade-lists-all-cases-*",
           "--reporters=xml", f"--out={xml_path}"]
    run_limited(cmd, tree, tree, log_path, 120, limits, 120, clean_env({"TMPDIR": str(tree / ".tmp")}))
    cases, _, complete = parse_doctest_xml(xml_path)
    xml_path.unlink(missing_ok=True)  # not to be copied into every student's tree
    if not complete:
        raise SetupError(f"cannot list the tests of lab {lab.number} (see {log_path})")
    tests = [(s, n) for (s, n) in cases if s in lab.suites]
    m = re.search(r"\[tests\] GPU tests skipped: (.*)", read_head(log_path, 65536))
    return tests, (m.group(1).strip() if m else None)


def run_performance_target(tree, logs, lab_number, results, weights, threads, size, limits):
    """`mmlab lab N` on the student's code: its target met or not, as a TestResult. Run only when
    every graded test (weight > 0) passed: a wrong kernel must not earn the speed points."""
    name = "performance target (mmlab lab %d)" % lab_number
    if any(r.status != "passed" for k, r in results.items() if weights.get(k, 0) > 0):
        return TestResult(name, "not-run", "every graded test must pass first")
    json_path = logs / "perf.json"
    threads = threads or os.cpu_count() or 1
    cmd = ["build/bin/mmlab", "lab", str(lab_number), "--threads", str(threads), "--json", str(json_path), "--quiet"]
    if size:
        cmd += ["--size", size]
    rc, timed_out, secs = run_limited(cmd, tree, tree, logs / "perf.log", 600, limits, 4000,
                                      clean_env({"TMPDIR": str(tree / ".tmp")}))
    if timed_out:
        return TestResult(name, "timeout", "mmlab lab did not finish in 600 s", secs)
    try:
        report = json.loads(json_path.read_text())
        target = report["target"]
    except (OSError, ValueError, KeyError, TypeError):
        return TestResult(name, "failed", f"mmlab lab {lab_number} gave no verdict ({exit_text(rc)})", secs)
    text = f"{target.get('goal', '')}: {target.get('explanation', '')}"
    result = TestResult(name, "passed" if target.get("met") is True else "failed", text, secs)
    result.perf_summary = report.get("summary")  # the GFLOP/s per stage: results.json's leaderboard (outputs.py)
    return result
