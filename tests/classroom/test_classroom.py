#!/usr/bin/env python3
"""The GitHub Classroom path, by running the commands its workflow runs.

tools/classroom/workflow.py writes lab 1's workflow (plain GitHub Actions: GitHub
Classroom and its autograding actions were retired in 2026); the `run:` of every
test step (one `make check LAB=1 TEST=...` per test case) is run
  - here, on the untouched starter: each exits non-zero with a FAIL line
    that says why, and
  - in a copy of this checkout whose labs/lab1/ holds the reference as a
    student would hand it in: each exits 0, prints PASS, and writes nothing
    on stderr.
Also: the points of the steps add up to one per test case; every test step
may fail without stopping the others (continue-on-error) and has its time
limit (timeout-minutes); the workflow uses GitHub's own actions only (no
classroom-resources/ action); the last step, run with the steps' outcomes,
says "Points P/N" in the run's summary and fails unless all passed; bad input
(`make check` without LAB, an unknown lab) is one line and an error exit.
make check's own limits (tools/check.sh), in the same copy: a lab 1 whose
ikj loops forever fails that test case within CHECK_TIME_LIMIT (+ 10 s) with a
line naming it and the limit; one whose jik prints megabytes is cut at
CHECK_OUTPUT_CAP with a line saying so, and its log stays under the cap.
The build cache: the workflow restores and saves build/ (actions/cache) under
a key that a change in labs/lab1/ leaves alone and any other change moves;
the copy is given fresh modification times (as a checkout does), the
workflow's own step sets the files outside labs/lab1/ back, and make check
then compiles only what lab 1's files reach.
Prints one line per check; exits 1 if any fails.
"""
import os
import re
import time
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


def step_run(text, name_start):
    """The `run:` command of the workflow step whose name starts with name_start (one line, quoted)."""
    m = re.search(r"^    - name: " + re.escape(name_start) + r".*\n(?:      (?!run:).*\n|        .*\n)*      run: (.*)$", text, re.M)
    return yaml_unquote(m.group(1)) if m else None


def cache_key(command, tree):
    out = Path(tree) / ".." / "github_output"
    out.write_text("")
    env = dict(os.environ, GITHUB_OUTPUT=str(out), ImageOS="ubuntu24", ImageVersion="1")
    subprocess.run(["bash", "-c", command], cwd=tree, env=env, check=True)
    return out.read_text().strip()


def set_lab1(copy, change=None):
    """labs/lab1/ of the copy: the reference as a student would hand it in, changed by change(text)."""
    for f in (REPO / "solutions" / "lab1").iterdir():
        text = f.read_text().replace("reference::lab1", "student::lab1").replace("solutions/lab1", "labs/lab1")
        if change and f.suffix == ".cpp":
            text = change(text)
        (copy / "labs" / "lab1" / f.name).write_text(text)


def into(function, code):
    def change(text):
        at = text.index("void " + function + "(")
        body = text.index("{", at) + 1
        return "#include <cstdio>\n" + text[:body] + "\n" + code + "\n" + text[body:]
    return change


def main():
    env = {k: v for k, v in os.environ.items() if k not in ("MML_IMPL", "MAKEFLAGS", "MFLAGS")}
    binary = REPO / "build" / "bin" / "mmlab-tests"
    p = subprocess.run([sys.executable, str(REPO / "tools" / "classroom" / "workflow.py"), "1", str(binary)],
                       capture_output=True, text=True)
    check(p.returncode == 0, "the workflow of lab 1 is written", p.stderr)
    text = p.stdout
    commands = [yaml_unquote(m) for m in re.findall(r"^      run: (.*make --no-print-directory check LAB=.*)$", text, re.M)]
    scores = [float(m) for m in re.findall(r"^      # points: (.*)$", text, re.M)]
    listed = subprocess.run([str(binary), "--test-suite=lab1", "--list-test-cases"], capture_output=True,
                            text=True).stdout
    n_cases = len([l for l in listed.splitlines() if l.strip() and not l.startswith(("[", "="))])
    check(len(commands) == n_cases and sum(scores) == n_cases,
          f"one step per test case ({n_cases}), one point each", f"{len(commands)} commands, {sum(scores)} points")
    tests_steps = re.findall(r"^    - name: .*\n      id: test-\d+\n((?:      .*\n)+?)      run: ", text, re.M)
    check(len(tests_steps) == n_cases and all("continue-on-error: true" in t and "timeout-minutes: " in t for t in tests_steps),
          "every test step runs whatever the others did (continue-on-error) and has a time limit (timeout-minutes)")
    uses = re.findall(r"^\s+uses: (\S+)$", text, re.M)
    check(uses and all(u.startswith("actions/") for u in uses), "the workflow uses GitHub's own actions only",
          " ".join(uses))
    check(all(f"OUTCOME_{i}: ${{{{ steps.test-{i}.outcome }}}}" in text for i in range(1, n_cases + 1)),
          "the points step reads every test step's outcome")
    points_cmd = step_run(text, "Points")
    for outcomes, want_rc, want in ((["success"] * n_cases, 0, f"Points {n_cases}/{n_cases}"),
                                    (["failure"] + ["success"] * (n_cases - 1), 1, f"Points {n_cases - 1}/{n_cases}")):
        summary = Path(tempfile.mkdtemp(prefix="mmlab-summary-")) / "summary"
        penv = dict(os.environ, GITHUB_STEP_SUMMARY=str(summary), **{f"OUTCOME_{i}": o for i, o in enumerate(outcomes, 1)})
        q = subprocess.run(["bash", "-e", "-c", points_cmd or "false"], env=penv, capture_output=True, text=True)
        got = summary.read_text() if summary.is_file() else ""
        check(q.returncode == want_rc and got.startswith(want),
              f"the points step: {outcomes.count('success')} of {n_cases} passed -> '{want}' in the summary, exit {want_rc}",
              f"exit {q.returncode}; summary {got!r}; {q.stderr[-200:]}")
        shutil.rmtree(summary.parent, ignore_errors=True)
    key_cmd = step_run(text, "The cache key")
    mtime_cmd = step_run(text, "The files outside labs/lab1/")
    check(key_cmd is not None and mtime_cmd is not None
          and "uses: actions/cache/restore@v4" in text and "uses: actions/cache/save@v4" in text
          and text.count("key: ${{ steps.key.outputs.key }}") == 2
          and text.index("actions/cache/restore") < text.index("make -j") < text.index("actions/cache/save"),
          "the workflow restores build/ before the build and saves it after, under the key step's key")

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
        key_before = cache_key(key_cmd, copy)
        set_lab1(copy)
        check(cache_key(key_cmd, copy) == key_before, "the cache key: a change in labs/lab1/ leaves it alone")
        readme = (copy / "README.md").read_text()
        (copy / "README.md").write_text(readme + "\n")
        check(cache_key(key_cmd, copy) != key_before, "the cache key: a change outside labs/lab1/ moves it")
        (copy / "README.md").write_text(readme)
        # As a checkout leaves them: every file newer than the restored build/; then the workflow's step.
        now = time.time()
        for f in copy.rglob("*"):
            if f.is_file() and "build" not in f.relative_to(copy).parts[:1]:
                os.utime(f, (now, now))
        subprocess.run(["bash", "-c", mtime_cmd], cwd=copy, check=True)
        for i, c in enumerate(commands):
            q = subprocess.run(["bash", "-c", c], cwd=copy, env=env, capture_output=True, text=True, timeout=1200)
            check(q.returncode == 0 and "PASS  " in q.stdout and q.stderr == "",
                  f"a correct lab 1: '{c[-40:]}' passes with nothing on stderr",
                  f"exit {q.returncode}; stdout: {q.stdout[-300:]}; stderr: {q.stderr[-300:]}")
            if i == 0:  # the seeded build: only what the student's files reach is compiled (it once was everything)
                built = compiled(copy)
                check(built and all("lab1/" in f for f in built),
                      f"the restored build compiles only what lab 1's files reach ({len(built)}: {' '.join(built)[:200]})")

        # make check's own limits: an endless loop, a printing flood.
        limit, cap = 5, 65536
        cenv = dict(env, CHECK_TIME_LIMIT=str(limit), CHECK_OUTPUT_CAP=str(cap))
        for what, change, case in (("an endless loop", into("matmul_ikj", "    volatile int spin = 1; while (spin) {}"), "lab1.ikj"),
                                   ("a printing flood", into("matmul_jik", '    for (int i = 0; i < 300000; ++i) std::printf("flood %d\\n", i);'), "lab1.jik")):
            set_lab1(copy, change)
            b = subprocess.run(["make", "--no-print-directory", "-s", "-j2", "all"], cwd=copy, env=env,
                               capture_output=True, text=True)
            check(b.returncode == 0, f"{what}: lab 1 builds", b.stdout[-300:] + b.stderr[-300:])
            t0 = time.monotonic()
            q = subprocess.run(["make", "--no-print-directory", "check", "LAB=1", f"TEST={case}"], cwd=copy, env=cenv,
                               capture_output=True, text=True, timeout=300)
            secs = time.monotonic() - t0
            log = q.stdout + q.stderr
            if what == "an endless loop":
                check(q.returncode != 0 and secs < limit + 10 and len(re.findall(r"^FAIL  ", q.stdout, re.M)) == 1 and
                      re.search(rf"^FAIL  {re.escape(case)}: did not finish within check's time limit of {limit} s", q.stdout, re.M),
                      f"{what}: make check TEST={case} fails in {secs:.0f} s (limit {limit} s) naming the test and the limit",
                      log[-400:])
            else:
                check(len(log) < cap + 4096 and "was cut after 65536 bytes" in q.stdout
                      and re.search(rf"^PASS  {re.escape(case)}$", q.stdout, re.M),
                      f"{what}: the log is cut at the cap ({len(log)} bytes), says so, and still has the verdict",
                      log[:200] + " ... " + log[-400:])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print(f"classroom tests: {len(failures)} failed")
        return 1
    print("classroom tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
