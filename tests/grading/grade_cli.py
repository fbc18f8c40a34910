"""test_grade.py's checks of tools/grade.py's command line and signals: bad
input (exit 2, one line, nothing written) and SIGTERM in the middle of a run
(the grader stops at once, leaving OUT as it was); and run(), how every
check of test_grade.py calls the grader.
"""
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from checks import REPO, check, level_flags, slack

GRADE = [sys.executable, str(REPO / "tools" / "grade.py")]


def run(args, timeout=900):
    r = subprocess.run(GRADE + level_flags() + args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, encoding="utf-8", errors="replace", timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def bad_input_checks(tmp, sub):
    out = tmp / "bad-out"
    afile = tmp / "a-file"
    afile.write_text("x")
    (tmp / "no-students").mkdir()
    cases = [
        ("a submissions folder that does not exist", [str(tmp / "nope"), "--lab", "1", "--out", str(out)], out),
        ("a submissions folder with no student folders", [str(tmp / "no-students"), "--lab", "1", "--out", str(out)], out),
        ("an unknown lab", [str(sub), "--lab", "42", "--out", str(out)], out),
        ("a lab that is not a number", [str(sub), "--lab", "one", "--out", str(out)], out),
        ("OUT that is a file", [str(sub), "--lab", "1", "--out", str(afile)], None),
        ("OUT that cannot be written", [str(sub), "--lab", "1", "--out", "/proc/mmlab-grade-out"], Path("/proc/mmlab-grade-out")),
        ("OUT inside the submissions folder", [str(sub), "--lab", "1", "--out", str(sub / "out")], sub / "out"),
        ("no --lab", [str(sub), "--out", str(out)], out),
    ]
    # A lab the catalog lists that has no starter yet (none, once every lab has one).
    listed = [line.split("|")[0].strip() for line in (REPO / "labs" / "catalog.txt").read_text().splitlines()
              if re.match(r"\s*[0-9]", line)]
    missing = [n for n in listed if not (REPO / "labs" / f"lab{n}").is_dir()]
    if missing:
        cases.append((f"a lab without a starter (lab {missing[0]})", [str(sub), "--lab", missing[0], "--out", str(out)],
                      out))
    for what, args, must_not_exist in cases:
        rc, so, se = run(args, timeout=60)
        lines = [l for l in se.splitlines() if l.strip()]
        check(rc == 2 and len(lines) == 1 and lines[0].startswith("grade: error:") and
              (must_not_exist is None or not must_not_exist.exists()),
              f"bad input, {what}: exit 2, one line, nothing written",
              f"exit {rc}, stderr: {se.strip()!r}")
    check(afile.read_text() == "x", "bad input, OUT that is a file: the file is untouched")


def interrupt_check(tmp, sub):
    """SIGTERM (as from `timeout` or a closed terminal) while a test runs for ever: the grader stops at once,
    takes that test with it, cancels the students still queued, and leaves OUT as it was."""
    only = tmp / "interrupt-subs"
    for s in ("hang", "reference"):
        shutil.copytree(sub / s, only / s)
    out, work = tmp / "interrupt-out", tmp / "interrupt-work"
    out.mkdir()
    work.mkdir()
    (out / "grades.csv").write_text("an earlier run\n")
    log = (tmp / "interrupt.log").open("w")
    p = subprocess.Popen(GRADE + level_flags() + [str(only), "--lab", "1", "--out", str(out), "--work", str(work),
                                  "--test-timeout", "100"], cwd=REPO, stdout=log, stderr=subprocess.STDOUT)

    def endless_test_running():
        for d in Path("/proc").iterdir():
            try:
                cmd = (d / "cmdline").read_bytes().decode("utf-8", "replace")
            except OSError:
                continue
            if str(work) in cmd and "/student0" in cmd and "lab1.jki" in cmd and "sandbox.sh" not in cmd:
                return True
        return False

    deadline = time.monotonic() + 300
    while not endless_test_running() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    check(p.poll() is None, "interrupting: the grader reached the endless test", (tmp / "interrupt.log").read_text())
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = None
    took = time.monotonic() - t0
    log.close()
    text = (tmp / "interrupt.log").read_text()
    time.sleep(1)
    # "Within seconds": 20 on an idle machine, more in proportion to the load (a hang is minutes).
    check(rc == 130 and took < 20 * slack() and "interrupted: nothing written" in text,
          "SIGTERM while a test loops for ever: the grader exits (130) within seconds, saying nothing was written",
          f"exit {rc} after {took:.1f} s; output: {text[-500:]}")
    check(not endless_test_running(), "interrupting: the endless test does not outlive the grader")
    check((out / "grades.csv").read_text() == "an earlier run\n" and not list(tmp.glob(".interrupt-out.tmp-*"))
          and not any(work.iterdir()), "interrupting: OUT is as it was; no staging folder or build tree is left")
    check(not re.search(r"^\[[0-9]+/[0-9]+\] reference ", text, re.M),
          "interrupting: the students still queued are not graded",
          text[-500:])
