"""The lab's test cases, each run as a process of its own, so that an endless
loop or a crash costs only that test: listing them from a build, running one
on a student's (or the reference's) code and turning what happened into a
TestResult; and the lab's performance target (--perf), run through `mmlab lab
N` and scored as one more test.

A test case runs through the trusted checker (run_checked_test_case,
checker.py): the verdict comes from a program without student code, the
student's code runs in a runner process in the sandbox. Only a test that calls
student code directly, not through a stage, which the checker cannot run, is
run the old way, in the student's own process in the sandbox (run_test_case),
and the run says which tests those are (calibration.py)."""

import contextlib
import json
import os
import re
import threading

from . import checker, gpu_lease
from .catalog import is_gpu_suite
from .common import SetupError
from .doctest_xml import doctest_filter_escape, failure_text, parse_doctest_xml
from .environment import trusted_env
from .limits import Group
from .sandbox import clean_env, read_head, run_limited, tail_lines

# The statuses of a TestResult; only "passed" scores. "inconclusive": the performance target could not be
# judged (the checker found the machine busy, twice): its points are withheld, neither given nor lost.
STATUSES = ("passed", "failed", "timeout", "crashed", "not-run", "inconclusive")


class TestResult:
    """printed: what the student's code printed during the test, as the feedback shows it
    (checker.runner_output); '' when nothing."""
    def __init__(self, name, status, message="", seconds=0.0, printed=""):
        assert status in STATUSES, status
        self.name, self.status, self.message, self.seconds = name, status, message, seconds
        self.printed = printed


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


def run_test_case(tree, suites, suite, name, out_dir, index, limits, timeout, gpu_note, impl="student",
                  program="build/bin/mmlab-tests", mmlab="build/bin/mmlab", extra_env=None):
    """Runs test case `name` of `suite` IN THE STUDENT'S PROCESS, in the sandbox: `program` (the tests
    linked with the code) in the built tree on the `impl` code (student or reference). Its report and
    output go to out_dir/test<index>.xml and .log (out_dir inside the tree: the sandbox writes only
    there). gpu_note: why GPU tests do not run here. Such a verdict can be forged by the code it tests:
    the grader uses it only for tests the checker cannot run (run_checked_test_case)."""
    xml_path = out_dir / f"test{index}.xml"
    log_path = out_dir / f"test{index}.log"
    cmd = [str(program), f"--test-suite={','.join(suites)}",
           f"--test-case={doctest_filter_escape(name)}", "--reporters=xml", f"--out={xml_path}"]
    env = clean_env({"MML_IMPL": impl, "MMLAB": str(mmlab), "TMPDIR": str(tree / ".tmp"), **(extra_env or {})})
    rc, timed_out, secs = run_limited(cmd, tree, tree, log_path, timeout, limits, timeout * 4 + 10, env)
    r = _result_from_report(suite, name, xml_path, log_path, rc, timed_out, secs, timeout, gpu_note)
    r.message = checker.student_words(r.message)  # a stage it calls through a runner names it so
    return r


def run_checked_test_case(programs, tree, suites, suite, name, out_dir, index, limits, timeout, gpu_note,
                          impl="student", gpu_env=None):
    """Runs test case `name` of `suite` through the trusted checker (checker.py): the checker of the starter
    tree here, outside the sandbox; the runner built in `tree` inside it (impl 'student'), or the starter
    tree's reference runner (impl 'reference': calibration). Report and log go to out_dir/test<index>.xml
    and .log, a folder no student process can write. Returns (TestResult, direct): direct is True when the
    test calls student code directly, which the checker cannot run (run_test_case can, in the student's
    process). gpu_env: the GPU leased to it (gpu_lease.py), for a GPU test."""
    xml_path = out_dir / f"test{index}.xml"
    log_path = out_dir / f"test{index}.log"
    output_path = out_dir / f"test{index}.output"
    for f in (xml_path, output_path):  # a report is this run's or none
        f.unlink(missing_ok=True)
    cmd = [programs.checker_tests, f"--test-suite={','.join(suites)}",
           f"--test-case={doctest_filter_escape(name)}", "--reporters=xml", f"--out={xml_path}"]
    runner = checker.runner_line(programs, tree, limits, timeout) if impl == "student" else None
    reference = programs.reference_runner if impl == "reference" else None
    with Group(limits.cgroups, limits.memory_mb, limits.nproc) as group:
        env = checker.checker_env(tree, impl, runner, reference, timeout, programs, limits, output_path, group.procs,
                                  gpu_env)
        rc, timed_out, secs = checker.run_trusted(cmd, log_path, timeout + checker.CHECKER_GRACE_SECONDS, env)
    result, direct = _checked_result(rc, timed_out, secs, log_path, xml_path, suite, name, timeout, gpu_note)
    result.printed = checker.runner_output(output_path)
    return result, direct


def _checked_result(rc, timed_out, secs, log_path, xml_path, suite, name, timeout, gpu_note):
    """run_checked_test_case's verdict from the checker's exit status, log and report."""
    log = read_head(log_path, 65536)
    if rc == checker.DIRECT_CALL_EXIT and checker.DIRECT_CALL_MARKER in log:
        return TestResult(name, "crashed", "the test calls student code directly"), True
    r = _result_from_report(suite, name, xml_path, log_path, rc, timed_out, secs, timeout, gpu_note)
    kind = checker.runner_failure(r.message) if r.status in ("failed", "crashed") else None
    if kind:
        why = checker.student_words(r.message.replace("the test threw an exception: ", ""))
        if kind == "timeout":
            # The limit as the grader set it (the checker's is rounded to whole seconds), said once.
            where = re.search(r" while running \S+ at \d+x\d+x\d+", why)
            return TestResult(name, "timeout", timeout_text(timeout) + (where.group(0) if where else ""), secs), False
        return TestResult(name, "crashed", why, secs), False
    r.message = checker.student_words(r.message)
    return r, False


def timeout_text(timeout):
    """A test that ran out of time, as the student reads it (after "TIMEOUT: "): whole seconds from 1 s on, as
    the run states the limits (calibration.timeout_text)."""
    shown = f"{timeout:.0f}" if timeout >= 1 else f"{timeout:g}"
    return f"did not finish within the test's {shown} s limit (an endless loop, or far too slow)"


def _result_from_report(suite, name, xml_path, log_path, rc, timed_out, secs, timeout, gpu_note):
    """What a test program's report, exit status and output say about test case `name` of `suite`."""
    cases, ran, complete = parse_doctest_xml(xml_path)
    mine = [tc for s, n, tc in ran if s == suite and n == name]
    if timed_out:
        return TestResult(name, "timeout", timeout_text(timeout)
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


def list_tests(tree, lab, work, limits, programs=None):
    """Every test case of the lab (its suites in the catalog) from the starter build, in file order,
    as (suite, name), plus why GPU tests do not run here (None when a GPU is present). With programs
    (checker.Programs), from the checker (our code, outside the sandbox); else from build/bin/mmlab-tests."""
    xml_path, log_path = tree / ".grade-list.xml", work / "list.log"
    # A filter no test case matches: doctest reports every case of the suites as skipped, so listed.
    args = [f"--test-suite={','.join(lab.suites)}", "--test-case=mml-grade-lists-all-cases-*", "--reporters=xml",
            f"--out={xml_path}"]
    if programs:
        checker.run_trusted([programs.checker_tests] + args, log_path, 120, trusted_env())
    else:
        run_limited(["build/bin/mmlab-tests"] + args, tree, tree, log_path, 120, limits, 120,
                    clean_env({"TMPDIR": str(tree / ".tmp")}))
    cases, _, complete = parse_doctest_xml(xml_path)
    xml_path.unlink(missing_ok=True)  # not to be copied into every student's tree
    if not complete:
        raise SetupError(f"cannot list the tests of lab {lab.number} (see {log_path})")
    tests = [(s, n) for (s, n) in cases if s in lab.suites]
    m = re.search(r"\[tests\] GPU tests skipped: (.*)", read_head(log_path, 65536))
    return tests, (m.group(1).strip() if m else None)


# The wall-clock limit of `mmlab lab N` under --perf.
PERF_TIMEOUT = 600
# One performance run at a time in a grading run: with -j 2, one student's timing must not be the other's load.
PERF_LOCK = threading.Lock()


def machine_load():
    """(1-minute load average, cores) as the grader reads them (never from student code); load None when unknown."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return load, os.cpu_count() or 1


def load_text(load, cores):
    return f"load {'unknown' if load is None else f'{load:.1f}'} on {cores} core{'s' if cores != 1 else ''}"


def run_performance_target(tree, logs, lab_number, results, weights, threads, size, limits, programs=None,
                           gpus=None):
    """`mmlab lab N` on the student's code: its target met or not, as a TestResult. Run only when
    every graded test (weight > 0) passed: a wrong kernel must not earn the speed points.
    With programs (checker.Programs): the checker's mmlab, here, which times the student's runner (in the
    sandbox) and the reference runner (ours) on its own clock (harness/runner/remote.h); else
    build/bin/mmlab of the tree, in the sandbox. gpus: the run's GpuPool in a GPU lab (each run holds a GPU
    of its own: no other student's GPU work beside its timings), else None.
    A run that cannot be judged is made once more; a second one is the status "inconclusive": the points
    withheld until a rerun, never a 0, with the reason: the checker's INCONCLUSIVE (the machine busy:
    harness/targets.h, with the load the grader read, and the load before the run, so that a submission
    that keeps the cores busy itself, which makes every run inconclusive, shows as such), other programs on
    the leased GPU, or no verdict from mmlab at all (its last lines)."""
    name = "performance target (mmlab lab %d)" % lab_number
    if any(r.status != "passed" for k, r in results.items() if weights.get(k, 0) > 0):
        return TestResult(name, "not-run", "every graded test must pass first")
    seconds, first_before = 0.0, machine_load()  # before any run of ours: what else the machine was doing
    for attempt in (1, 2):
        stem = f"perf{'' if attempt == 1 else attempt}"
        with (gpus.lease(name) if gpus else contextlib.nullcontext({})) as gpu_env:
            others = gpu_lease.others_on_gpu(gpu_env)
            result, why = _performance_run(tree, logs, lab_number, threads, size, limits, programs, name, stem,
                                           gpu_env)
            others += gpu_lease.others_on_gpu(gpu_env)
        if others and result.status in ("passed", "failed"):
            why = ("other programs used the GPU during the timed runs (" + ", ".join(
                f"process {pid}: {mib} MiB" for pid, mib in others[:4]) + ")")
        after = machine_load()
        seconds += result.seconds
        result.seconds = seconds
        if not why:
            if attempt == 2:
                result.message += " (on a second run: the first could not be judged)"
            return result
    result.status = "inconclusive"
    result.machine_load = after
    if why == BUSY:
        quiet = first_before[0] is not None and first_before[0] < first_before[1]
        result.message = (f"machine busy ({load_text(*after)}) in two runs, so the points are withheld until your "
                          f"instructor reruns it on a quiet machine; the timing said: {result.message}"
                          + (f" [the machine was quiet before the runs ({load_text(*first_before)}): the load may "
                             "be the submission's own]" if quiet else ""))
    else:
        result.message = (f"{why}, in two runs, so the points are withheld (neither given nor lost) until your "
                          "instructor reruns it")
    result.reason = why
    return result


# _performance_run's reason for a run the checker judged INCONCLUSIVE because the machine was busy.
BUSY = "machine busy"


def _performance_run(tree, logs, lab_number, threads, size, limits, programs, name, stem, gpu_env=None):
    """One `mmlab lab N --json`: (TestResult passed/failed/timeout/not-run, why it cannot be judged: BUSY,
    a sentence, or None). Its files in logs are named stem.*."""
    json_path = logs / f"{stem}.json"
    log_path = logs / f"{stem}.log"
    threads = threads or os.cpu_count() or 1
    args = ["lab", str(lab_number), "--threads", str(threads), "--json", str(json_path), "--quiet"]
    if size:
        args += ["--size", size]
    printed = ""
    with PERF_LOCK:
        if programs:
            runner = checker.runner_line(programs, tree, limits, PERF_TIMEOUT)
            output_path = logs / f"{stem}.output"
            with Group(limits.cgroups, limits.memory_mb, limits.nproc) as group:
                env = checker.checker_env(tree, "student", runner, programs.reference_runner, PERF_TIMEOUT,
                                          programs, limits, output_path, group.procs, gpu_env)
                rc, timed_out, secs = checker.run_trusted([programs.checker_mmlab] + args, log_path,
                                                          PERF_TIMEOUT + checker.CHECKER_GRACE_SECONDS, env)
            printed = checker.runner_output(output_path)
        else:
            # No stored peak (cpu/peak.h): a file in the student's tree could be one the submission brought;
            # the peak is measured in this run alone.
            rc, timed_out, secs = run_limited(["build/bin/mmlab"] + args, tree, tree, log_path, PERF_TIMEOUT,
                                              limits, 4000, clean_env({"TMPDIR": str(tree / ".tmp"),
                                                                       "MMLAB_PEAK_STORE": "",
                                                                       **(gpu_env or {})}))
    if timed_out:
        return TestResult(name, "timeout", "mmlab lab did not finish in 600 s", secs, printed), None
    try:
        report = json.loads(json_path.read_text())
        target = report["target"]
    except (OSError, ValueError, KeyError, TypeError):
        log = read_head(log_path, 65536)
        refused = re.search(r"^mmlab: error: (.*)", log, re.M)
        if rc == 2 and refused:  # the lab has no --json verdict (lab 12: its tables come from its MPI programs)
            return TestResult(name, "not-run", f"mmlab lab {lab_number} has no verdict to grade: {refused.group(1)}",
                              secs, printed), None
        # Every graded test passed, so this is most likely the machine's (another program's GPU memory, say),
        # not the code's: never a 0 from it. The instructor's summary names the student to regrade.
        last = tail_lines(log.strip(), 3).replace("\n", " | ") if log.strip() else "no output"
        return (TestResult(name, "failed", f"mmlab lab {lab_number} gave no verdict", secs, printed),
                f"mmlab lab {lab_number} gave no verdict ({exit_text(rc)}; its last lines: {last})")
    met = target.get("met") is True
    text = f"{target.get('goal', '')}: {target.get('explanation', '')}"
    result = TestResult(name, "passed" if met else "failed", text, secs, printed)
    result.perf_summary = report.get("summary")  # the GFLOP/s per stage: results.json's leaderboard (outputs.py)
    return result, BUSY if not met and target.get("inconclusive") is True else None
