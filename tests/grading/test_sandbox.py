#!/usr/bin/env python3
"""Unit tests of tools/grading/sandbox.py: commands run under
tools/grading/sandbox.sh with a wall-clock limit (the whole process group
killed at it), a file-size limit, their output in a log read back capped;
no command started once the grader is stopping; the environment cleaned of
the caller's make and compiler settings; the containment probe. Short shell
commands only (a few seconds)."""
import sys
sys.dont_write_bytecode = True
import os
import time

import checks
from checks import Scratch, check
from grading import sandbox

LIMITS = sandbox.Limits("none", 0, 1024, 1000)  # no memory limit, 1 MiB files


def run(tmp, script, timeout=20, cpu=60, fsize_kb=None):
    log = tmp / "log.txt"
    rc, timed_out, secs = sandbox.run_limited(["bash", "-c", script], tmp, tmp, log, timeout, LIMITS, cpu,
                                              sandbox.clean_env(), fsize_kb=fsize_kb)
    return rc, timed_out, secs, log.read_text(errors="replace")


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie is dead, only not yet reaped
    except OSError:
        return False


def running_commands(tmp):
    rc, timed_out, secs, log = run(tmp, "echo out; echo err >&2; exit 7")
    check(rc == 7 and not timed_out and log == "out\nerr\n", "exit status kept; stdout and stderr go to the log",
          f"{rc} {timed_out} {log!r}")
    rc, timed_out, secs, log = run(tmp, "sleep 100 & echo $! > child.pid; sleep 100", timeout=0.5)
    child = int((tmp / "child.pid").read_text())
    time.sleep(0.2)
    check(timed_out and secs < 5 and not alive(child),
          "at the time limit the command and everything it started are killed", f"{timed_out} {secs:.1f} s")
    rc, timed_out, secs, log = run(tmp, "head -c 3000000 /dev/zero > big.bin")
    check(rc == 128 + 25 and (tmp / "big.bin").stat().st_size <= 1024 * 1024,
          "a file past the size limit: stopped by SIGXFSZ at the limit", f"exit {rc}")
    rc, *_ = run(tmp, "head -c 3000000 /dev/zero > big.bin", fsize_kb=4096)
    check(rc == 0, "a build's own, larger file-size limit (fsize_kb) replaces the default", f"exit {rc}")
    rc, timed_out, secs, log = run(tmp, "while :; do :; done", timeout=30, cpu=1)
    check(not timed_out and rc in (128 + 24, 128 + 9) and secs < 10, "CPU seconds are limited per process",
          f"exit {rc} after {secs:.1f} s")
    check(not sandbox.RUNNING, "no process group is left registered after the commands")


def stopping(tmp):
    sandbox.STOPPING.set()
    try:
        try:
            run(tmp, "echo should not run > ran.txt")
            started = True
        except sandbox.Stopped:
            started = False
        check(not started and not (tmp / "ran.txt").exists(), "once the grader is stopping, no command starts (Stopped)")
        check(not isinstance(sandbox.Stopped(), Exception),
              "Stopped is no Exception: the grader's per-student 'except Exception' cannot make it a grade")
    finally:
        sandbox.STOPPING.clear()


def environment():
    saved = dict(os.environ)
    os.environ.update({"MAKEFLAGS": "-j99", "OPT": "-O0", "MML_IMPL": "reference", "OMP_NUM_THREADS": "64",
                       "HOME_IS_KEPT": "yes"})
    try:
        env = sandbox.clean_env({"TMPDIR": "/x"})
    finally:
        os.environ.clear()
        os.environ.update(saved)
    check(not {"MAKEFLAGS", "OPT", "MML_IMPL", "OMP_NUM_THREADS"} & set(env),
          "the caller's make flags, OPT, MML_IMPL and thread count do not reach builds and tests")
    check(env["HOME_IS_KEPT"] == "yes" and env["LC_ALL"] == "C" and env["TMPDIR"] == "/x",
          "the rest is kept; LC_ALL=C (compiler messages in English); extras added")


def logs(tmp):
    f = tmp / "long.log"
    f.write_bytes(b"x" * 5000 + "é".encode() + b"\xff")
    text = sandbox.read_head(f, 1024)
    check(text.startswith("x" * 1024) and text.endswith("[... output cut: it was longer than 1 KiB ...]"),
          "a log longer than the cap: its head, and a line saying it was cut", text[-60:])
    whole = sandbox.read_head(f)
    check("é" in whole and "\ufffd" in whole and "cut" not in whole, "a short log whole; bytes that are not UTF-8 replaced")
    check(sandbox.read_head(tmp / "missing.log") == "", "a missing log reads as empty")
    check(sandbox.tail_lines("a\nb\nc\nd", 2) == "c\nd" and sandbox.tail_lines("", 3) == "", "tail_lines")


def probe(tmp):
    work = tmp / "probe-none"
    work.mkdir()
    check(sandbox.probe_sandbox("none", work) == "none", "--sandbox none works everywhere")
    work = tmp / "probe-auto"
    work.mkdir()
    mode = sandbox.probe_sandbox("auto", work)
    check(mode in ("full", "net", "none") and not (work / "outside-probe").exists(),
          f"--sandbox auto picks what works here ({mode}) and leaves no probe file outside")


with Scratch() as tmp:
    running_commands(tmp)
    stopping(tmp)
    environment()
    logs(tmp)
    probe(tmp)
checks.finish("sandbox")
