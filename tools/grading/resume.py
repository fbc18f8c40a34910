"""Resuming a local run (no --slurm) that stopped before it wrote OUT: Ctrl-C,
SIGTERM, SIGHUP, or a SIGKILL that no program can catch (`kill -9`, the
kernel's OOM killer, a batch system's hard limit).

As soon as a student is done, their results.json and feedback.txt, then
their grades.csv row, go into a state folder beside OUT, .OUT.resume/ (the
files and fingerprints a Slurm run keeps too: run_state.py), each file whole
or not at all. OUT itself is still written only at the end, whole
(outputs.publish). Running the same command again grades only the students
without a row, or whose folder changed since (by content), and takes the
others' results from the state; the progress and summary.txt say how many.
Stale state - other options, weights, checkout or grading user, or a
calibration that graded other test cases - is removed and the class graded
again. A grader error is tried again. Once OUT is written the state goes, so
a later run grades everyone, as a run always has.

A lock (flock on .OUT.resume/lock, which the kernel releases however the
grader ends) keeps two graders off one OUT. The grader that takes the lock
after one that was killed removes what that one left: its build trees
(run.json names its work folder), any process still running in them, and
its staging folders beside OUT.
"""

import errno
import fcntl
import glob
import json
import os
import shutil
import signal
from pathlib import Path

from . import escape, outputs
from .common import GRADER_ERROR, UsageError, say, warn
from .run_state import read_json, read_row, row_path, save_row, settings_fingerprint, submission_fingerprint, \
    write_json


def state_dir(out):
    return out.parent / f".{out.name}.resume"


def calibration_key(starter, cal):
    """What of step 2-3's result the earlier rows depend on: the test cases, their points, the free ones, those run
    in the student's process (the automatic time limits are left out: they are measured, so they vary a little
    between runs, and for labs 1-5 they are the 30 s floor)."""
    return json.dumps({"tests": [list(t) for t in starter.tests], "weights": cal.weights, "free": sorted(cal.free),
                       "in_process": sorted(cal.in_process)}, sort_keys=True)


class ResumeState:
    """The state folder of one local run: open() before the build, calibrated() after it, save() per student,
    finish() once OUT is written, leave() when the run ends otherwise."""

    def __init__(self, out):
        self.out, self.dir = out, state_dir(out)
        self.results = self.dir / "results"
        self.lock = None
        self.run = {}            # run.json as this run wrote it
        self.fingerprints = {}   # student folder name -> submission fingerprint, taken before their grading

    def open(self, inputs, work):
        """Takes the lock (a UsageError while another grader holds it), cleans up after a killed run, drops
        state made with other settings, and records this run."""
        self.dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            pid = (read_json(self.dir / "run.json") or {}).get("pid", "?")
            raise UsageError(f"another grader (pid {pid}) is grading into {self.out} now: wait for it to end, or "
                             "pick another OUT")
        self.lock = fd
        run = read_json(self.dir / "run.json") or {}
        self._clean_after(run, work)
        fingerprint = settings_fingerprint(inputs)
        if run.get("fingerprint") not in (None, fingerprint):
            self._drop("the options, weights, checkout or grading user changed")
            run = {}
        self.run = {"fingerprint": fingerprint, "pid": os.getpid(), "work": str(work),
                    "calibration": run.get("calibration")}
        write_json(self.dir / "run.json", self.run)

    def calibrated(self, key):
        """After the calibration: earlier rows graded against other test cases or points are stale."""
        if self.run.get("calibration") not in (None, key):
            self._drop("this run's calibration grades other test cases or points")
        self.run["calibration"] = key
        write_json(self.dir / "run.json", self.run)

    def kept_rows(self, students):
        """{folder name: row} of the students an earlier run graded (their submission unchanged since); takes the
        fingerprints of the others, and clears their stale files (a row written only after the new results)."""
        kept = {}
        for s in students:
            row = read_row(self.dir, s)
            if row is not None and row.build != GRADER_ERROR:
                kept[s.name] = row
                continue
            self.fingerprints[s.name] = submission_fingerprint(s)
            row_path(self.dir, s).unlink(missing_ok=True)
            shutil.rmtree(self.results / outputs.safe_name(s.name), ignore_errors=True)
        return kept

    def save(self, folder, row):
        """A student is done: their row after their files. A row that cannot be written costs only the resume."""
        try:
            save_row(self.dir, folder, row, self.fingerprints[folder.name])
        except OSError as e:
            warn(f"could not keep {escape.line(folder.name)}'s result in {self.dir} ({e.strerror}): an interrupted "
                 "run would grade them again")

    def copy_results(self, students, staging):
        for s in students:
            src = self.results / outputs.safe_name(s.name)
            if src.is_dir():
                shutil.copytree(src, staging / outputs.safe_name(s.name))

    def finish(self):
        """OUT is written: the state is not needed any more."""
        shutil.rmtree(self.dir, ignore_errors=True)
        self._unlock()

    def leave(self, total):
        """The run ends without OUT: the students done so far stay for the next run (an empty state goes)."""
        if self.lock is None:
            return
        done = len(list((self.dir / "rows").glob("*.json")))
        if done:
            # This grader removed its build trees itself (or kept them: --keep): the next one must not.
            if self.run.pop("work", None):
                write_json(self.dir / "run.json", self.run)
            warn(f"{done} of {total} student(s) graded so far are kept in {self.dir}: run the same command again "
                 "to grade only the rest")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)
        self._unlock()

    def _unlock(self):
        if self.lock is not None:
            os.close(self.lock)
            self.lock = None

    def _drop(self, why):
        n = len(list((self.dir / "rows").glob("*.json")))
        if n:
            say(f"the results an interrupted run kept in {self.dir} ({n} student(s)) are stale ({why}): grading "
                "those students again")
        shutil.rmtree(self.dir / "rows", ignore_errors=True)
        shutil.rmtree(self.results, ignore_errors=True)

    def _clean_after(self, run, work):
        """What a killed grader (it held the lock; we have it now, so it is gone) left: its build trees and the
        processes still running in them (a build or test it started), its staging folders beside OUT."""
        old = run.get("work")
        if old and old != str(work) and Path(old).name.startswith("mmlab-grade-") and Path(old).is_dir():
            stopped = kill_processes_in(old)
            shutil.rmtree(old, ignore_errors=True)
            say(f"removed the build trees a killed run left in {old}"
                + (f", and stopped {stopped} of its process(es) still running there" if stopped else ""))
        for pattern in (".tmp-*", ".old-*"):
            for p in glob.glob(str(self.out.parent / (glob.escape("." + self.out.name) + pattern))):
                shutil.rmtree(p, ignore_errors=True)


def kill_processes_in(folder):
    """SIGKILL to every process whose working folder is in `folder` or whose command line names it (a build, a
    checker, a sandbox of a killed grader: none of them knows its grader is gone), a few rounds (one may have
    started another meanwhile). Returns how many were killed."""
    needle = os.fsencode(str(folder).rstrip("/") + "/")
    killed = set()
    for _ in range(3):
        found = False
        for d in Path("/proc").iterdir():
            if not d.name.isdigit() or int(d.name) == os.getpid():
                continue
            try:  # an argument naming the folder or a path in it; NULs as "/" so that "folder" ends like "folder/"
                cmdline = (d / "cmdline").read_bytes().replace(b"\0", b"/")
            except OSError:
                continue
            try:
                cwd = os.fsencode(os.readlink(d / "cwd")) + b"/"
            except OSError:
                cwd = b""  # another user's process, as a user who is not root: its command line decides
            if cwd.startswith(needle) or needle in cmdline:
                try:
                    os.kill(int(d.name), signal.SIGKILL)
                    killed.add(d.name)
                    found = True
                except OSError:
                    pass
        if not found:
            break
    return len(killed)
