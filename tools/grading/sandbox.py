"""Running one command on a student's code (a build, a test case, mmlab) under
tools/grading/sandbox.sh, with a wall-clock limit and per-process limits;
finding the strongest containment this machine allows; stopping every
running command when the grader is interrupted; and reading what a command
wrote, capped (a student's program may print for ever).

sandbox.sh does the containment itself (namespaces, ulimits; its header says
how); this module starts it, times it and kills what is left of it.
"""

import os
import subprocess
import threading
import time

from .common import REPO, UsageError

SANDBOX = REPO / "tools" / "grading" / "sandbox.sh"

# How much of a log is ever read (the feedback quotes less of it).
LOG_READ_BYTES = 256 * 1024


class Limits:
    """The per-process limits of every command run on a student's code.
    mode: full, net or none (sandbox.sh's modes); mem_kb 0: no address-space limit."""

    def __init__(self, mode, mem_kb, fsize_kb, nproc):
        self.mode, self.mem_kb, self.fsize_kb, self.nproc = mode, mem_kb, fsize_kb, nproc


# Process groups of the commands running now, so that an interrupted grader
# (Ctrl-C, SIGTERM, SIGHUP) takes them with it instead of leaving them to run.
# Once STOPPING is set no new command starts: the students still queued or
# being graded by other threads end at once instead of being graded to the end.
RUNNING = set()
RUNNING_LOCK = threading.Lock()
STOPPING = threading.Event()


class Stopped(BaseException):
    """The grader is being interrupted: a BaseException, so that no 'except Exception' turns it into a grade."""


def kill_running(stop=True):
    with RUNNING_LOCK:
        if stop:
            STOPPING.set()
        for pgid in list(RUNNING):
            try:
                os.killpg(pgid, 9)
            except (ProcessLookupError, PermissionError):
                pass


def user_process_count():
    uid, n = os.getuid(), 0
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.stat(f"/proc/{d}").st_uid == uid:
                    n += 1
            except OSError:
                pass
    return n


def run_limited(cmd, work, cwd, log_path, timeout, limits, cpu_seconds, env, fsize_kb=None):
    """Runs cmd in the sandbox; stdout+stderr go to log_path. Returns (exit code, timed out, seconds)."""
    nproc = user_process_count() + limits.nproc  # RLIMIT_NPROC counts all of this user's processes
    full = ["bash", str(SANDBOX), limits.mode, str(work), str(int(cpu_seconds)), str(limits.mem_kb),
            str(fsize_kb or limits.fsize_kb), str(nproc), "--"] + cmd
    start = time.monotonic()
    with open(log_path, "wb") as log:
        with RUNNING_LOCK:  # started and registered together: kill_running() sees it or it never starts
            if STOPPING.is_set():
                raise Stopped()
            proc = subprocess.Popen(full, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            RUNNING.add(proc.pid)
        timed_out = False
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            rc = None
        # Whatever is left of the process group goes (a PID namespace already
        # took its processes with it in full mode).
        try:
            os.killpg(proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        if rc is None:
            rc = proc.wait()
        with RUNNING_LOCK:
            RUNNING.discard(proc.pid)
    return rc, timed_out, time.monotonic() - start


def probe_sandbox(requested, work):
    """The strongest containment that works here (or the one asked for, if it works)."""
    order = ["full", "net", "none"] if requested == "auto" else [requested]
    probe = work / "probe"
    inside = probe / "inside"
    inside.mkdir(parents=True)
    outside = work / "outside-probe"
    test = "echo x > inside/ok && ! (echo x > ../outside-probe) 2>/dev/null"
    for mode in order:
        cmd = ["bash", str(SANDBOX), mode, str(probe), "10", "0", "1024", "100000", "--", "bash", "-c",
               test if mode == "full" else "echo x > inside/ok"]
        try:
            r = subprocess.run(cmd, cwd=probe, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=30)
            ok = r.returncode == 0 and (inside / "ok").exists() and not outside.exists()
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        for f in (inside / "ok", outside):
            if f.exists():
                f.unlink()
        if ok:
            return mode
    if requested != "auto":
        raise UsageError(f"--sandbox {requested} does not work on this machine (unshare or user namespaces missing): "
                         f"use --sandbox auto")
    return "none"


# Make variables and flags of the caller's environment that would change how
# a student's code is built or which implementation the tests run.
_CALLER_SETTINGS = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS", "OPT", "ARCH", "CXXFLAGS",
                    "LDFLAGS", "SIZE", "SOLUTION", "BUILD", "MML_IMPL", "MMLAB", "OMP_NUM_THREADS")


def clean_env(extra=None):
    """The environment for builds and tests: no make variables or compiler flags from the caller."""
    env = {k: v for k, v in os.environ.items() if k not in _CALLER_SETTINGS}
    env["LC_ALL"] = "C"
    if extra:
        env.update(extra)
    return env


def read_head(path, limit=LOG_READ_BYTES):
    """The first `limit` bytes of a log as text ('' when there is none), saying so when it was cut."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit)
            more = f.read(1) != b""
    except OSError:
        return ""
    text = data.decode("utf-8", "replace")
    return text + ("\n[... output cut: it was longer than %d KiB ...]" % (limit // 1024) if more else "")


def tail_lines(text, n):
    return "\n".join(text.splitlines()[-n:])
