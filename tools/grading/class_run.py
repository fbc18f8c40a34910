"""One grading run over a class, once cli.py has checked the input:

  1. a temporary work folder, and the strongest containment it allows;
  2. the starter tree: this checkout's sources, built once (build.py), and the
     lab's test cases listed from it (testcases.py);
  3. calibration: each test on the untouched starter and on the reference
     (calibration.py): free tests, automatic time limits;
  4. every student, -j at a time (student.py), into a staging folder;
  5. grades.csv and summary.txt, and the staging folder renamed to OUT (outputs.py).

An interruption or an error anywhere leaves OUT as it was and nothing running.
"""

import concurrent.futures
import datetime
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from . import build, calibration, outputs, score, testcases
from .catalog import is_gpu_suite
from .common import REPO, UsageError, fmt, say, warn
from .sandbox import Limits, STOPPING, kill_running, probe_sandbox
from .student import ClassSetup, grade_student


@dataclass
class Starter:
    """The built starter tree every student's tree is copied from."""
    base: Path
    commit: object         # the commit graded (None: not a git checkout)
    notes: list            # what the snapshot warned about (summary.txt repeats them)
    lab_files: list        # the names of the lab's files in the starter
    tests: list            # [(suite, name)]
    gpu_note: object       # why GPU tests do not run here, or None


def containment_notes(mode, requested):
    """Warnings about the containment this run has (also in summary.txt)."""
    notes = []
    if mode != "full":
        why = "as asked with --sandbox" if requested != "auto" else "user namespaces are unavailable here"
        notes.append(f"containment: '{mode}' only ({'no network, ' if mode == 'net' else ''}no read-only "
                     f"file system, no PID namespace): {why}; grade untrusted code inside a container or VM "
                     "(handouts/grading.md)")
    if os.geteuid() == 0:
        notes.append("running as root: the process-count limit is not enforced for root, and a submission "
                     "could do more harm; run the grader as an ordinary user")
    return notes


def prepare_starter(inputs, work, limits, mode, cores):
    """Snapshot, seed, build and list the starter tree (step 2); checks the weights file's names."""
    lab, options = inputs.lab, inputs.options
    base = work / "base"
    base.mkdir()
    commit, notes = build.snapshot_sources(base, lab.folder, [inputs.submissions.resolve(), inputs.out, work])
    for n in notes:
        warn(n)
    lab_files = sorted(p.name for p in (base / lab.folder).iterdir() if p.is_file())
    reused = build.seed_build(base / "build", options.fresh_build, lab.needs_cuda)
    say(f"building the starter tree ({'from this checkout' + chr(39) + 's build/' if reused else 'from scratch'};"
        f" containment: {mode}) ...")
    build.build_starter(base, work / "base-build.log", limits, cores, without_cuda=not reused and not lab.needs_cuda)
    tests, gpu_note = testcases.list_tests(base, lab, work, limits)
    if not tests:
        raise UsageError(f"lab {lab.number} has no test cases (test suites {' and '.join(lab.suites) or '(none)'} "
                         "are empty): nothing to grade")
    names = [n for s, n in tests]
    unknown = [n for n in inputs.given_weights if n not in names]
    if unknown:
        raise UsageError(f"{inputs.weights_path} names a test case lab {lab.number} does not have: '{unknown[0]}' "
                         f"(see: build/bin/mmlab-tests --test-suite={','.join(lab.suites)} --list-test-cases)")
    return Starter(base, commit, notes, lab_files, tests, gpu_note)


def grade_students(setup, students, staging, jobs):
    """Every student, `jobs` at a time, each printed as done; returns their rows in the students' order."""
    rows = [None] * len(students)
    lock = threading.Lock()

    def one(i):
        row = grade_student(setup, i, students[i], staging)
        if STOPPING.is_set():
            return  # interrupted: this student's row is not a grade
        with lock:
            rows[i] = row
            say(outputs.progress_line(row))

    ex = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        for f in [ex.submit(one, i) for i in range(len(students))]:
            f.result()
    except BaseException:
        # Interrupted: stop the running tests and cancel the queued students
        # now (a plain `with` would first grade every one of them).
        kill_running()
        ex.shutdown(wait=True, cancel_futures=True)
        raise
    ex.shutdown(wait=True)
    return rows


def summary_head(inputs, started, starter, mode, cal, notes):
    """summary.txt's lines before the results: what was graded, how, and every note of the run."""
    o, lab = inputs.options, inputs.lab
    lines = [f"matmul-lab grading, lab {lab.number}, {started.strftime('%Y-%m-%d %H:%M UTC')}",
             f"code: {REPO} at {starter.commit or '(not a git checkout)'}; containment: {mode}; "
             f"limits: build {o.build_timeout:g} s, test case {calibration.timeout_text(o.test_timeout, cal.auto_timeouts)}"
             f", tests per student {o.student_budget:g} s, memory {o.memory_mb if not lab.needs_cuda else 'unlimited'} "
             f"MiB, output {o.max_output_mb} MiB", f"weights: {inputs.weights_path if inputs.given_weights else 'all 1'}"]
    lines += ["note: " + n for n in notes + starter.notes + cal.lines]
    if inputs.stray:
        lines.append("ignored (not folders): " + ", ".join(inputs.stray))
    gpu_tests = [n for s, n in starter.tests if is_gpu_suite(s)]
    if gpu_tests and starter.gpu_note:
        lines.append(f"GPU tests NOT RUN here ({starter.gpu_note}): {len(gpu_tests)} test(s) scored 0 for everyone")
    return lines


def grade_class(inputs):
    """Steps 1-5 above; returns the exit status (0)."""
    options, lab, out, students = inputs.options, inputs.lab, inputs.out, inputs.students
    started = datetime.datetime.now(datetime.timezone.utc)
    work = Path(tempfile.mkdtemp(prefix="mmlab-grade-", dir=options.work)).resolve()
    staging = None
    try:
        mode = probe_sandbox(options.sandbox, work)
        limits = Limits(mode, 0 if lab.needs_cuda else options.memory_mb * 1024, options.max_output_mb * 1024,
                        options.max_procs)
        cores = os.cpu_count() or 1
        say(f"== grading lab {lab.number}: {len(students)} submission(s) in {inputs.submissions} -> {out}")
        notes = containment_notes(mode, options.sandbox)
        for n in notes:
            warn(n)

        starter = prepare_starter(inputs, work, limits, mode, cores)
        names = [n for s, n in starter.tests]
        gpu_tests = [n for s, n in starter.tests if is_gpu_suite(s)]
        if gpu_tests and starter.gpu_note:
            warn(f"no usable GPU here ({starter.gpu_note}): the {len(gpu_tests)} GPU test(s) of lab {lab.number} "
                 "score 0 for everyone; grade on a GPU machine for the real scores")
        cal = calibration.calibrate(starter.base, lab.suites, starter.tests, starter.gpu_note, limits,
                                    inputs.given_weights, inputs.weights_path)

        # Output goes to a staging folder beside OUT, renamed into place at the end.
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        setup = ClassSetup(options, lab, work, starter.base, starter.lab_files, starter.tests, cal.weights, cal.free,
                           starter.gpu_note, limits, options.build_jobs or max(1, cores // options.jobs),
                           calibration.test_time_limits(names, options.test_timeout, cal.auto_timeouts))
        total_points = sum(cal.weights[n] for n in names) + (options.perf_points if options.perf else 0)
        say(f"grading {len(students)} submission(s), {options.jobs} at a time; {len(starter.tests)} test case(s), "
            f"{fmt(total_points)} points; time limit per test case "
            f"{calibration.timeout_text(options.test_timeout, cal.auto_timeouts)} ...")
        rows = grade_students(setup, students, staging, options.jobs)

        outputs.atomic_write(staging / "grades.csv", outputs.grades_csv(rows, names, options.perf))
        results = outputs.class_results(score.graded_order(names, options.perf), cal.free, rows)
        summary = summary_head(inputs, started, starter, mode, cal, notes) + [""] + results
        outputs.atomic_write(staging / "summary.txt", "\n".join(summary) + "\n")
        outputs.publish(staging, out)
        staging = None

        total = sum(r.score for r in rows)
        say("")
        say("\n".join(results))
        say("")
        say(f"wrote {out}/grades.csv, {out}/summary.txt and results.json + feedback.txt for {len(rows)} student(s)"
            f" (class average {fmt(round(total / max(1, len(rows)), 2))} / {fmt(rows[0].max if rows else 0)})")
        return 0
    finally:
        kill_running()
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if options.keep:
            say(f"(kept the build trees in {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)
