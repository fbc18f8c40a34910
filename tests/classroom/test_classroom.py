#!/usr/bin/env python3
"""The GitHub Classroom path, by running the commands its workflow runs.

tools/classroom/workflow.py writes lab 1's workflow; every `command:` of it
(one `make check LAB=1 TEST=...` per test case) is run
  - here, on the untouched starter: each exits non-zero with a FAIL line
    that says why, and
  - in a copy of this checkout whose labs/lab1/ holds the reference as a
    student would hand it in: each exits 0, prints PASS, and writes nothing
    on stderr (Classroom's command grader fails a step on any stderr).
Also: the points of the steps add up to one per test case, and bad input
(`make check` without LAB, an unknown lab) is one line and an error exit.
Prints one line per check; exits 1 if any fails.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
failures = []


def check(cond, what, detail=""):
    print(("ok   - " if cond else "FAIL - ") + what + ("" if cond or not detail else f"\n       {detail}"), flush=True)
    if not cond:
        failures.append(what)


def yaml_unquote(value):
    value = value.strip()
    if value.startswith("'") and value.endswith("'"):
        return value[1:-1].replace("''", "'")
    return value


def compiled(tree):
    """The sources make check's build compiled (its log, build/check-build.log: one CXX/NVCC line each)."""
    log = tree / "build" / "check-build.log"
    return re.findall(r"^\s+(?:CXX|NVCC)\s+(\S+)", log.read_text() if log.is_file() else "", re.M)


def main():
    env = {k: v for k, v in os.environ.items() if k not in ("MML_IMPL", "MAKEFLAGS", "MFLAGS")}
    binary = REPO / "build" / "bin" / "mmlab-tests"
    p = subprocess.run([sys.executable, str(REPO / "tools" / "classroom" / "workflow.py"), "1", str(binary)],
                       capture_output=True, text=True)
    check(p.returncode == 0, "the workflow of lab 1 is written", p.stderr)
    text = p.stdout
    commands = [yaml_unquote(m) for m in re.findall(r"^\s+command: (.*)$", text, re.M)]
    scores = [float(m) for m in re.findall(r"^\s+max-score: (.*)$", text, re.M)]
    listed = subprocess.run([str(binary), "--test-suite=lab1", "--list-test-cases"], capture_output=True,
                            text=True).stdout
    n_cases = len([l for l in listed.splitlines() if l.strip() and not l.startswith(("[", "="))])
    check(len(commands) == n_cases and sum(scores) == n_cases,
          f"one step per test case ({n_cases}), one point each", f"{len(commands)} commands, {sum(scores)} points")
    check(f"runners: {','.join(f'test-{i}' for i in range(1, n_cases + 1))}" in text, "the reporter lists every step")

    for args, what in (([], "without LAB"), (["LAB=99"], "with an unknown lab")):
        q = subprocess.run(["make", "--no-print-directory", "check"] + args, cwd=REPO, env=env, capture_output=True,
                           text=True)
        check(q.returncode != 0 and "make check needs LAB=" in q.stderr, f"make check {what}: one line, an error exit",
              q.stderr[-300:])

    for i, c in enumerate(commands):
        q = subprocess.run(["bash", "-c", c], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
        fail_lines = [l for l in q.stdout.splitlines() if l.startswith("FAIL  ")]
        check(q.returncode != 0 and len(fail_lines) == 1 and "never written" in fail_lines[0],
              f"starter: '{c[-40:]}' fails, saying why", q.stdout[-300:] + q.stderr[-300:])
        if i == 0:  # make test-all built this checkout just before; the goals run before (make student-release...) keep it so
            built = compiled(REPO)
            check(built == [], "make check in this built checkout compiles nothing", " ".join(built[:10]))

    scratch = Path(tempfile.mkdtemp(prefix="mmlab-classroom-"))
    try:
        copy = scratch / "repo"
        files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, text=True).stdout.split()
        for f in files:
            if (REPO / f).is_file():
                (copy / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / f, copy / f)
        # build/cc too: an object without its compile_commands entry there is
        # compiled again (Makefile), and leaving it out rebuilt everything (3 min+).
        shutil.copytree(REPO / "build", copy / "build", symlinks=True,
                        ignore=shutil.ignore_patterns("asan", "tsan", "check-build.log"))
        for f in (REPO / "solutions" / "lab1").iterdir():
            text = f.read_text().replace("reference::lab1", "student::lab1").replace("solutions/lab1", "labs/lab1")
            (copy / "labs" / "lab1" / f.name).write_text(text)
        for i, c in enumerate(commands):
            q = subprocess.run(["bash", "-c", c], cwd=copy, env=env, capture_output=True, text=True, timeout=1200)
            check(q.returncode == 0 and "PASS  " in q.stdout and q.stderr == "",
                  f"a correct lab 1: '{c[-40:]}' passes with nothing on stderr",
                  f"exit {q.returncode}; stdout: {q.stdout[-300:]}; stderr: {q.stderr[-300:]}")
            if i == 0:  # the seeded build: only what the student's files reach is compiled (it once was everything)
                built = compiled(copy)
                check(built and all("lab1/" in f for f in built),
                      f"the seeded copy compiles only what lab 1's files reach ({len(built)}: {' '.join(built)[:200]})")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print(f"classroom tests: {len(failures)} failed")
        return 1
    print("classroom tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
