"""One grading run over a class, once cli.py has checked the input:

  1. a temporary work folder, and the strongest containment it allows (open_work);
  2. the starter tree: this checkout's sources, built once (build.py), and the
     lab's test cases listed from it (testcases.py);
  3. calibration: each test on the untouched starter and on the reference
     (calibration.py): free tests, automatic time limits;
  4. every student, -j at a time (student.py), each kept as soon as done in
     the state folder beside OUT (resume.py), a progress line with the time
     left as each is done; a rerun after an interruption grades only the rest;
  5. grades.csv and summary.txt into a staging folder with every student's
     results, renamed to OUT (outputs.py).

slurm.py runs the same steps as Slurm jobs (2-3 in one job, 4 in a job
array, 5 where the grader was started) with the functions here, so that both
ways write the same outputs. An interruption or an error anywhere leaves OUT
as it was and nothing running (the students done so far kept for the rerun).
"""

import concurrent.futures
import datetime
import atexit
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import build, calibration, checker, escape, gpu_lease, outputs, resume, sandbox, score, similarity, testcases
from . import limits as cgroup_limits
from .catalog import is_gpu_suite
from .common import REPO, UsageError, fmt, say, warn
from .sandbox import Limits, STOPPING, kill_running, probe_sandbox
from .student import ClassSetup, grade_student, grader_error_row


@dataclass
class Starter:
    """The built starter tree every student's tree is copied from."""
    base: Path
    commit: object         # the commit graded (None: not a git checkout)
    notes: list            # what the snapshot warned about (summary.txt repeats them)
    lab_files: list        # the names of the lab's files in the starter
    tests: list            # [(suite, name)]
    gpu_note: object       # why GPU tests do not run here, or None
    programs: object = None  # checker.Programs: the grader's checker and runners, built in base


def lab_uses_gpu(lab):
    return lab.needs_cuda or any(is_gpu_suite(s) for s in lab.suites)


def open_work(inputs, parent=None):
    """Step 1: the run's temporary folder (under --work, or `parent`) and the Limits of the strongest
    containment that works in it (or the one --sandbox asks for)."""
    options, lab = inputs.options, inputs.lab
    work = Path(tempfile.mkdtemp(prefix="mmlab-grade-", dir=parent or options.work)).resolve()
    # The grading user (not this one, when the grader is root) must reach the build trees in it and read
    # sandbox.sh, whose copy here it can read wherever this checkout is (under /root, say).
    os.chmod(work, 0o711)
    sandbox.check_reachable(work, inputs.user)
    script = work / "sandbox.sh"
    shutil.copyfile(sandbox.SANDBOX, script)
    os.chmod(script, 0o755)
    # The toolchain where a cluster's modules put it (bwrap shows only the system's folders otherwise), never
    # the submissions, OUT or this checkout.
    extra = sandbox.toolchain_dirs(REPO / "build" / "config.mk", [inputs.submissions.resolve(), inputs.out, REPO, work])
    # Memory and processes counted for each sandbox as a whole where a cgroup can be made (limits.py; also
    # in GPU labs: CUDA's address-space reservations are not memory); its folder goes when the grader exits.
    cgroups = cgroup_limits.probe()
    atexit.register(cgroup_limits.release, cgroups)
    # What student code must not read, whichever level runs it (sandbox.Limits.hidden): the class, the grades
    # (OUT's folder: the staging folder beside OUT holds the feedback written so far), the answers in this
    # checkout, and this run's folder (the starter and the other students' trees). OUT's folder only outside the
    # system's folders (OUT=/usr/local/grades must not hide /usr/local's toolchain).
    out_dir = inputs.out.resolve().parent
    system = [Path(d) for d in sandbox.SYSTEM_DIRS]
    hidden = (inputs.submissions.resolve(), inputs.out.resolve(), REPO, work) + \
        (() if any(d == out_dir or d in out_dir.parents for d in system) else (out_dir,))
    wanted = Limits("none", 0 if lab.needs_cuda else options.memory_mb * 1024, options.max_output_mb * 1024,
                    options.max_procs, user=inputs.user, gpu=lab_uses_gpu(lab), script=script, extra_dirs=extra,
                    cgroups=cgroups, memory_mb=options.memory_mb, hidden=tuple(str(h) for h in hidden))
    try:
        return work, probe_sandbox(options.sandbox, work, wanted)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def containment_notes(limits, requested):
    """Warnings about the containment this run has (also in summary.txt)."""
    notes = []
    if limits.mode != "bwrap":  # only ever asked for by name: auto is bwrap or a refusal (sandbox.probe_sandbox)
        readable = "the system's files are readable by student code" if limits.mode == "unshare" else \
            "other students' submissions and this checkout are readable by student code"
        notes.append(f"containment: '{limits.mode}' only ({sandbox.LEVEL_TEXT[limits.mode]}), as asked with "
                     f"--sandbox {requested}: {readable}; grade untrusted code with bubblewrap, or inside a container "
                     "or VM (handouts/grading.md)")
    if limits.cgroups and limits.cgroups.how == "none":
        notes.append(cgroup_limits.describe(limits.cgroups, limits.memory_mb, limits.nproc))
    if limits.user and limits.user.switch:
        notes.append(f"the grader runs as root: student code runs as the unprivileged user '{limits.user.name}' "
                     "(MMLAB_GRADER_USER)")
    return notes


def prepare_starter(inputs, work, limits, cores, skip=()):
    """Snapshot, seed, build and list the starter tree (step 2); checks the weights file's names.
    skip: more folders to leave out of the snapshot (Slurm's state folder, when OUT is in this checkout)."""
    lab, options = inputs.lab, inputs.options
    base = work / "base"
    base.mkdir()
    commit, notes = build.snapshot_sources(base, lab.folder, [inputs.submissions.resolve(), inputs.out, work]
                                            + [Path(p).resolve() for p in skip])
    for n in notes:
        warn(n)
    lab_files = sorted(p.name for p in (base / lab.folder).iterdir() if p.is_file())
    reused = build.seed_build(base / "build", options.fresh_build, lab.needs_cuda)
    say(f"building the starter tree ({'from this checkout' + chr(39) + 's build/' if reused else 'from scratch'};"
        f" containment: {limits.mode}) ...")
    programs = checker.Programs(base, lab.number)
    build.build_starter(base, work / "base-build.log", limits, cores, without_cuda=not reused and not lab.needs_cuda,
                        programs=programs)
    tests, gpu_note = testcases.list_tests(base, lab, work, limits, programs)
    if not tests:
        raise UsageError(f"lab {lab.number} has no test cases (test suites {' and '.join(lab.suites) or '(none)'} "
                         "are empty): nothing to grade")
    names = [n for s, n in tests]
    unknown = [n for n in inputs.given_weights if n not in names]
    if unknown:
        raise UsageError(f"{inputs.weights_path} names a test case lab {lab.number} does not have: '{unknown[0]}' "
                         f"(see: build/bin/mmlab-tests --test-suite={','.join(lab.suites)} --list-test-cases)")
    return Starter(base, commit, notes, lab_files, tests, gpu_note, programs)


def prepare(inputs, work, limits, cores, skip=()):
    """Steps 2 and 3: the built starter and its calibration."""
    starter = prepare_starter(inputs, work, limits, cores, skip)
    gpu_tests = [n for s, n in starter.tests if is_gpu_suite(s)]
    if gpu_tests and starter.gpu_note:
        warn(f"no usable GPU here ({starter.gpu_note}): the {len(gpu_tests)} GPU test(s) of lab {inputs.lab.number} "
             "score 0 for everyone; grade on a GPU machine for the real scores")
    cal = calibration.calibrate(starter.base, inputs.lab.suites, starter.tests, starter.gpu_note, limits,
                                inputs.given_weights, inputs.weights_path, starter.programs)
    # The starter is the grader's again: under the weaker levels a student's code (running as the grading
    # user) could otherwise change what every later student's tree is copied from.
    sandbox.take_back(starter.base, limits.user)
    return starter, cal


def class_setup(inputs, work, limits, starter, cal, cores):
    """What every student is graded against (student.ClassSetup): the starter, its calibration, the limits
    with the masks of a student's tree (written under work/masks)."""
    options, lab = inputs.options, inputs.lab
    masks = sandbox.masks_for_lab(starter.base, lab.folder, work / "masks")
    names = [n for s, n in starter.tests]
    return ClassSetup(options, lab, work, starter.base, starter.lab_files, starter.tests, cal.weights, cal.free,
                      starter.gpu_note, limits.with_masks(masks), options.build_jobs or max(1, cores // options.jobs),
                      calibration.test_time_limits(names, options.test_timeout, cal.auto_timeouts),
                      starter.programs, cal.in_process, gpu_pool(lab, starter, limits), lab_uses_gpu(lab))


def gpu_notes(pool):
    """summary.txt's notes on the GPUs' sharing: how the students took turns, how long GPU work waited, and any
    process that outlived its test on a GPU (killed before the next student's test)."""
    if not pool:
        return []
    return [f"GPU work of the students took turns: one student's GPU test or performance run at a time on each of "
            f"{len(pool.devices)} GPU(s) ({', '.join(pool.devices)}); waits for a GPU, in all: {pool.waited:.0f} s "
            "(not part of any student's time limits)"] + pool.notes


def gpu_pool(lab, starter, limits):
    """The GPUs the students' GPU work takes turns on (gpu_lease.py), or None: a lab without GPU work, or no
    usable GPU here (the GPU tests then say why they do not run)."""
    if not lab_uses_gpu(lab) or starter.gpu_note:
        return None
    pool = gpu_lease.GpuPool(gpu_lease.visible_gpus(), limits.user.uid if limits.user else os.getuid())
    return pool or None


def total_points(options, names, weights):
    return sum(weights[n] for n in names) + (options.perf_points if options.perf else 0)


class Progress:
    """The `[k/N] student: built, score / max points, ... — ETA mm:ss` lines, one per student as each is done: the time left is the
    time per student so far (of the run's wall clock, so -j and a cluster's parallel tasks count) times the
    students left."""

    def __init__(self, total, done_before=0):
        self.total, self.done, self.start = total, done_before, time.monotonic()
        self.done_here = 0
        self.lock = threading.Lock()

    def student_done(self, row):
        with self.lock:
            self.done += 1
            self.done_here += 1
            left = self.total - self.done
            eta = (time.monotonic() - self.start) / self.done_here * left
            say(outputs.progress_line(row, self.done, self.total, eta))


def grade_students(setup, students, staging, jobs, progress=None, on_done=None):
    """Every student, `jobs` at a time, each printed as done; returns their rows in the students' order.
    on_done(folder, row): called as each student is done (their files written), never for one interrupted."""
    rows = [None] * len(students)
    lock = threading.Lock()
    progress = progress or Progress(len(students))

    def one(i):
        t0 = time.monotonic()
        try:
            row = grade_student(setup, i, students[i], staging)
        except Exception as e:  # a student the grader failed on is that student's grader error, never the run's end
            row = grader_error_row(students[i].name, f"{type(e).__name__}: {e}", time.monotonic() - t0)
        if STOPPING.is_set():
            return  # interrupted: this student's row is not a grade
        with lock:
            rows[i] = row
        if on_done:
            on_done(students[i], row)
        progress.student_done(row)

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


def memory_text(options, lab, limits):
    if limits.cgroups and limits.cgroups.how != "none":
        return f"{options.memory_mb} MiB per sandbox ({limits.cgroups.how}, shared memory included)"
    return "unlimited" if lab.needs_cuda else f"{options.memory_mb} MiB of address space per process"


def summary_head(inputs, started, starter, limits, cal, notes):
    """summary.txt's lines before the results: what was graded, how, and every note of the run."""
    o, lab = inputs.options, inputs.lab
    lines = [f"matmul-lab grading, lab {lab.number}, {started.strftime('%Y-%m-%d %H:%M UTC')}",
             f"code: {REPO} at {starter.commit or '(not a git checkout)'}",
             f"containment: {sandbox.describe(limits)}"
             + (f"; also shown, read-only: {', '.join(map(str, limits.extra_dirs))}"
                if limits.mode == "bwrap" and limits.extra_dirs else ""),
             f"limits: build {o.build_timeout:g} s, test case {calibration.timeout_text(o.test_timeout, cal.auto_timeouts)}"
             f", tests per student {o.student_budget:g} s, memory {memory_text(o, lab, limits)}, "
             f"output {o.max_output_mb} MiB", f"weights: {inputs.weights_path if inputs.given_weights else 'all 1'}"]
    lines += ["note: " + n for n in notes + starter.notes + cal.lines]
    if inputs.stray:
        lines.append("ignored (not folders): " + ", ".join(escape.line(n) for n in inputs.stray))
    gpu_tests = [n for s, n in starter.tests if is_gpu_suite(s)]
    if gpu_tests and starter.gpu_note:
        lines.append(f"GPU tests NOT RUN here ({starter.gpu_note}): {len(gpu_tests)} test(s) scored 0 for everyone")
    return lines


def write_outputs(inputs, started, starter, limits, cal, notes, rows, staging, wall_seconds, how):
    """Step 5: grades.csv and summary.txt into staging, then staging renamed to OUT. Returns the results
    lines (printed at the end). how: the wall-time line's note on how the class was run."""
    options = inputs.options
    names = [n for s, n in starter.tests]
    outputs.atomic_write(staging / "grades.csv", outputs.grades_csv(rows, names, options.perf))
    results = outputs.class_results(score.graded_order(names, options.perf), cal.free, rows)
    results += class_similarity(inputs, starter, staging)
    results += ["", outputs.wall_time_line(rows, wall_seconds, how)]
    summary = summary_head(inputs, started, starter, limits, cal, notes) + [""] + results
    outputs.atomic_write(staging / "summary.txt", "\n".join(summary) + "\n")
    outputs.publish(staging, inputs.out)
    return results


def class_similarity(inputs, starter, staging):
    """With --similarity: similarity.html into staging, and summary.txt's lines about it (a failure is a line,
    never the loss of the grades)."""
    if not getattr(inputs.options, "similarity", False):
        return []
    try:
        return [""] + similarity.class_similarity(inputs.students, inputs.lab, starter.lab_files,
                                                  REPO / inputs.lab.folder, staging,
                                                  getattr(inputs.options, "similarity_min", None))
    except Exception as e:
        warn(f"the similarity report failed ({type(e).__name__}: {e}); the grades are written without it")
        return ["", f"similarity: the report failed ({type(e).__name__}: {e})"]


def say_done(inputs, rows, results):
    out = inputs.out
    total = sum(r.score for r in rows)
    say("")
    say("\n".join(results))
    say("")
    say(f"wrote {out}/grades.csv, {out}/summary.txt and results.json + feedback.txt for {len(rows)} student(s)"
        f" (class average {fmt(round(total / max(1, len(rows)), 2))} / {fmt(rows[0].max if rows else 0)})")


def grade_class(inputs):
    """Steps 1-5 above; returns the exit status (0)."""
    options, lab, out, students = inputs.options, inputs.lab, inputs.out, inputs.students
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    work, staging, state = None, None, None
    try:
        work, limits = open_work(inputs)
        # Before the build: the lock on OUT, and what a killed earlier run left (its processes take cores).
        state = resume.ResumeState(out)
        state.open(inputs, work)
        cores = os.cpu_count() or 1
        say(f"== grading lab {lab.number}: {len(students)} submission(s) in {inputs.submissions} -> {out}")
        say(f"containment: {sandbox.describe(limits)}")
        notes = containment_notes(limits, options.sandbox)
        for n in notes:
            warn(n)

        starter, cal = prepare(inputs, work, limits, cores, skip=[state.dir])
        state.calibrated(resume.calibration_key(starter, cal))
        setup = class_setup(inputs, work, limits, starter, cal, cores)
        kept = state.kept_rows(students)
        todo = [s for s in students if s.name not in kept]
        if kept:
            say(f"{len(kept)} of {len(students)} student(s) already graded by an interrupted run (kept in "
                f"{state.dir}): {len(todo)} left to grade")
        names = [n for s, n in starter.tests]
        say(f"grading {len(todo)} submission(s), {options.jobs} at a time; {len(starter.tests)} test case(s), "
            f"{fmt(total_points(options, names, cal.weights))} points; time limit per test case "
            f"{calibration.timeout_text(options.test_timeout, cal.auto_timeouts)} ...")
        graded = grade_students(setup, todo, state.results, options.jobs, Progress(len(students), len(kept)),
                                on_done=state.save)
        by_name = dict(kept, **{s.name: r for s, r in zip(todo, graded)})
        rows = [by_name[s.name] for s in students]
        # OUT whole: a staging folder beside it with every student's files, renamed into place at the end.
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        state.copy_results(students, staging)
        how = f"on this machine, {options.jobs} at a time" + \
            (f"; {len(kept)} student(s) taken from an interrupted run, not graded again" if kept else "")
        notes = notes + gpu_notes(setup.gpus)
        results = write_outputs(inputs, started, starter, limits, cal, notes, rows, staging, time.monotonic() - t0,
                                how)
        staging = None
        state.finish()
        say_done(inputs, rows, results)
        return 0
    finally:
        kill_running()
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if state is not None:
            state.leave(len(students))
        if work is not None:
            if options.keep:
                say(f"(kept the build trees in {work})")
            else:
                shutil.rmtree(work, ignore_errors=True)
