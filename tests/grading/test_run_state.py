#!/usr/bin/env python3
"""Unit tests of tools/grading/run_state.py and resume.py, without a build:
a submission's fingerprint by content (a touched file keeps its grade, an
edit that keeps size and time does not), and a local run's state folder:
its lock against a second grader, the rows kept for a rerun (not a changed
submission's, not a grader error's), stale state dropped when the settings
or the calibration change, what a killed grader left (its processes, its
build trees, its staging folders) removed by the next one, and the state
gone once OUT is written. tests/grading/test_resume.py kills a real run."""
import sys
sys.dont_write_bytecode = True
import argparse
import os
import subprocess
import time
from pathlib import Path

import checks
from checks import Scratch, check, raises
from grading import outputs, resume, run_state, sandbox
from grading.common import UsageError


def fingerprints(tmp):
    st = tmp / "alice"
    (st / "lab1").mkdir(parents=True)
    f = st / "lab1" / "a.cpp"
    f.write_text("one")
    first = run_state.submission_fingerprint(st)
    os.utime(f, (time.time() + 10, time.time() + 10))
    check(run_state.submission_fingerprint(st) == first, "a file touched but not changed keeps the fingerprint")
    stamp = os.stat(f).st_mtime_ns
    f.write_text("two")
    os.utime(f, ns=(stamp, stamp))
    check(run_state.submission_fingerprint(st) != first,
          "an edit of the same size and time changes it (the content is hashed)")
    big = st / "data.bin"
    with open(big, "wb") as b:
        b.truncate(run_state.MAX_SUBMITTED_FILE_BYTES + 1)
    second = run_state.submission_fingerprint(st)
    check(run_state.submission_fingerprint(st) == second, "a file over intake's limit: by size and time, stable")
    (st / "lab1" / "b.cpp").write_bytes(b"caf\xe9")
    os.rename(st / "lab1" / "b.cpp", st / "lab1" / os.fsdecode(b"b\xe9.cpp"))
    check(run_state.submission_fingerprint(st) != second, "a file whose name is not UTF-8 counts too")


def inputs_for(tmp, sub, out, **options):
    o = argparse.Namespace(lab=1, jobs=1, work=None, keep=False, test_timeout=None, **options)
    return argparse.Namespace(options=o, submissions=sub, out=out, weights_path=tmp / "no-weights",
                              user=sandbox.User(65534, 65534, "nobody", True))


def row(name, build="built"):
    return outputs.StudentRow(name, build, 1.0, 1.0, {"t1": 1.0}, [], {"t1": "passed"}, 2.5)


def graded(state, folder, build="built"):
    """As class_run does for a student: their files into state/results, then their row."""
    outputs.write_student_files(state.results, 1, folder.name, [], _Card(), build, {}, 1.0)
    state.save(folder, row(folder.name, build))


class _Card:
    score, max_score, withheld, tests, not_graded = 1.0, 1.0, 0, [], []


def state_folder(tmp):
    sub, out, work = tmp / "subs", tmp / "out", tmp / "mmlab-grade-now"
    work.mkdir()
    students = []
    for name in ("ann", "bob", "cy"):
        (sub / name).mkdir(parents=True)
        (sub / name / "loop_orders.cpp").write_text(name)
        students.append(sub / name)
    inputs = inputs_for(tmp, sub, out)
    check(resume.state_dir(out) == tmp / ".out.resume", "the state folder is beside OUT, hidden: .OUT.resume")

    s = resume.ResumeState(out)
    s.open(inputs, work)
    e = raises(UsageError, resume.ResumeState(out).open, inputs, work)
    check(e is not None and "another grader" in str(e) and "pick another OUT" in str(e),
          "a second grader into the same OUT is refused while the first holds the lock", str(e))
    s.calibrated("cal-1")
    check(s.kept_rows(students) == {}, "a new state keeps nobody")
    graded(s, students[0])
    graded(s, students[1], build="grader error")
    s.leave(3)
    check(s.lock is None and (s.dir / "rows").is_dir(), "leaving with students done keeps them (and unlocks)")
    check("work" not in run_state.read_json(s.dir / "run.json") and work.is_dir(),
          "a grader that ends by itself (it removed its trees, or kept them with --keep) leaves the next one none "
          "to remove")

    s = resume.ResumeState(out)
    s.open(inputs, work)
    s.calibrated("cal-1")
    kept = s.kept_rows(students)
    check(list(kept) == ["ann"] and kept["ann"] == row("ann"),
          "a rerun keeps the student done, as written; a grader error is tried again", str(kept))
    check(not (s.dir / "rows" / "bob.json").exists(), "the grader error's row is cleared before it is graded again")
    (sub / "ann" / "loop_orders.cpp").write_text("ann, resubmitted")
    check(s.kept_rows(students) == {} and not (s.results / "ann").exists(),
          "a submission changed since is graded again (its old files cleared)")
    graded(s, students[0])
    s.calibrated("cal-2")
    check(s.kept_rows(students) == {}, "a calibration that grades other tests makes the rows stale")
    graded(s, students[0])
    s.leave(3)

    # The similarity report is written after grading, from the submissions: asking for it (or another
    # threshold) when resuming changes no grade, so the rows stay.
    check(run_state.settings_fingerprint(inputs_for(tmp, sub, out, similarity=True, similarity_min=40.0)) ==
          run_state.settings_fingerprint(inputs),
          "--similarity and --similarity-min leave the settings' fingerprint as it is")
    check(run_state.settings_fingerprint(inputs_for(tmp, sub, out, memory_mb=1)) !=
          run_state.settings_fingerprint(inputs), "an option that changes grades changes the fingerprint")

    s = resume.ResumeState(out)
    s.open(inputs_for(tmp, sub, out, memory_mb=1), work)
    check(not (s.dir / "rows").exists() or not any((s.dir / "rows").iterdir()),
          "other options make the rows stale: they are removed")
    s.leave(3)
    check(not s.dir.exists(), "leaving with nobody done removes the state")

    s = resume.ResumeState(out)
    s.open(inputs, work)
    s.kept_rows(students)
    graded(s, students[2])
    s.finish()
    check(not s.dir.exists() and s.lock is None, "once OUT is written the state goes")


def killed_grader(tmp):
    """What a SIGKILLed grader leaves: the next grader stops its processes and removes its trees and staging."""
    sub, out = tmp / "k-subs", tmp / "k-out"
    (sub / "ann").mkdir(parents=True)
    old_work, new_work = tmp / "mmlab-grade-old", tmp / "mmlab-grade-new"
    (old_work / "student0000").mkdir(parents=True)
    new_work.mkdir()
    left = subprocess.Popen(["sleep", "600"], cwd=old_work / "student0000", start_new_session=True)
    named = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", str(old_work / "x")],
                             start_new_session=True)
    staging = tmp / ".k-out.tmp-abc"
    staging.mkdir()
    state = resume.state_dir(out)
    run_state.write_json(state / "run.json", {"pid": 1, "work": str(old_work)})
    s = resume.ResumeState(out)
    try:
        s.open(inputs_for(tmp, sub, out), new_work)
        time.sleep(0.2)
        check(left.poll() is not None and named.poll() is not None,
              "a killed grader's processes (working in its trees, or naming them) are stopped by the next one")
        check(not old_work.exists() and new_work.exists() and not staging.exists(),
              "its build trees and staging folder are removed; this run's are not")
    finally:
        s.leave(1)
        for p in (left, named):
            if p.poll() is None:
                p.kill()
            p.wait()


with Scratch() as tmp:
    fingerprints(tmp)
    state_folder(tmp)
    killed_grader(tmp)
checks.finish("run-state")
