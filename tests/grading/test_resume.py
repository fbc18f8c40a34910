#!/usr/bin/env python3
"""A local run stopped half-way resumes and loses nothing (tools/grading/resume.py).

A class of six lab 1 submissions (three right, one wrong, one that does not
compile, the untouched starter) is graded once without a stop (the baseline),
then graded again into another OUT and killed - with SIGKILL, which no
program can catch, once 3 students are done (the test polls the state folder
beside OUT), and with SIGTERM once 2 are - and each time the same command is
run again. Each rerun must grade only the students the stopped run had not
finished (its progress lines name no other), say how many it took from the
stopped run, and write an OUT identical to the baseline's (grades.csv byte
for byte; each results.json but its execution time, and each feedback.txt,
but for the numbers of a wrong answer: the checker's inputs are random). A
stopped run leaves no OUT and, after the rerun, no process and no build
tree. Without resume.py the polls find no state and every rerun grades all
six: the test fails. About a minute on 2 cores (five runs of a small class).

Run from the repository root (make test-all runs it through tests/test_grading.cpp).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True
import checks  # noqa: E402
from checks import REPO, check, replace_body, write_reference  # noqa: E402
from grading.resume import state_dir  # noqa: E402

RIGHT = ["right-a", "right-b", "right-c"]


def make_class(sub):
    """Six submissions, each built (no two alike, so none reuses another's objects); their expected scores."""
    for i, name in enumerate(RIGHT):
        write_reference(sub / name / "lab1", lambda t, i=i: t + f"// {name}: handed in {i}\n")
    write_reference(sub / "wrong" / "lab1", lambda t: replace_body(t, "matmul_kji", "    C[0] = 42.0f; return;"))
    write_reference(sub / "broken" / "lab1", lambda t: t.replace("float sum = 0.0f;", "float sum = 0.0f", 1))
    shutil.copytree(REPO / "labs" / "lab1", sub / "starter" / "lab1")
    subprocess.run(["chmod", "-R", "a+rX", str(sub)], check=True)
    return {**{n: 6.0 for n in RIGHT}, "wrong": 5.0, "broken": 0.0, "starter": 0.0}


def command(sub, out, work):
    return checks.grade_command() + [str(sub), "--lab", "1", "--out", str(out), "--work", str(work), "-j", "1"]


def graded_lines(text):
    """The students a run graded itself: its progress lines `[k/N] name: built, ...`."""
    return re.findall(r"^\[[0-9]+/[0-9]+\] (\S+): ", text, re.M)


# The checker draws fresh inputs in every run, so a wrong answer's message names other numbers each time.
NUMBERS = re.compile(rb"-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?")


def snapshot(out):
    """What must not differ between runs: grades.csv; each results.json but its time, and each feedback.txt,
    but for the numbers in them (the checker's random inputs: a wrong C's values)."""
    files = {"grades.csv": (out / "grades.csv").read_bytes()}
    for d in sorted(p for p in out.iterdir() if p.is_dir()):
        r = json.loads((d / "results.json").read_text(encoding="utf-8"))
        r.pop("execution_time", None)
        files[d.name + "/results.json"] = NUMBERS.sub(b"#", json.dumps(r, sort_keys=True).encode())
        files[d.name + "/feedback.txt"] = NUMBERS.sub(b"#", (d / "feedback.txt").read_bytes())
    return files


def left_in(work):
    """Processes working in, or naming, the run's build trees (a killed grader's test, build or sandbox)."""
    needle = str(work) + "/"
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().decode("utf-8", "replace").replace("\0", "/")
                cwd = os.readlink(d / "cwd") + "/"
            except OSError:
                continue
            if needle in cmd or cwd.startswith(needle):
                found.append(f"{d.name}: {cmd[:120]}")
    return found


def stopped_and_resumed(tmp, sub, baseline, sig, after):
    """Grades the class into a new OUT, sends `sig` once `after` students are done, runs the same command
    again; checks what the stop left and what the rerun did."""
    what = signal.Signals(sig).name
    out, work = tmp / f"out-{what}", tmp / f"work-{what}"
    work.mkdir()
    os.chmod(work, 0o711)
    rows = state_dir(out) / "rows"
    log = tmp / f"{what}.log"
    with open(log, "w") as f:
        p = subprocess.Popen(command(sub, out, work), cwd=REPO, stdout=f, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 300 * checks.slack()
        while p.poll() is None and time.monotonic() < deadline and \
                len(list(rows.glob("*.json")) if rows.is_dir() else []) < after:
            time.sleep(0.05)
        reached = p.poll() is None
        p.send_signal(sig)
        rc = p.wait(timeout=120)
    text = log.read_text(errors="replace")
    done = sorted(f.stem for f in rows.glob("*.json")) if rows.is_dir() else []
    check(reached and len(done) >= after, f"{what}: the grader kept {after} students as done in {state_dir(out).name} "
          "while it ran", f"kept {done}; output:\n{text[-1500:]}")
    check(not out.exists(), f"{what}: no OUT after the stop (never a partial one)")
    if sig == signal.SIGTERM:
        check(rc == 130 and "interrupted: nothing written to OUT" in text and "kept in" in text,
              "SIGTERM: exit 130, saying OUT was not written and how many students are kept", f"exit {rc}: {text[-800:]}")
        time.sleep(0.5)
        check(not left_in(work) and not any(work.iterdir()),
              "SIGTERM: nothing of the grader keeps running and no build tree is left", str(left_in(work)))
    print(f"---- run stopped by {what} after {done}; it printed:\n{text}----", flush=True)

    t0 = time.monotonic()
    r = subprocess.run(command(sub, out, work), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace", timeout=900)
    print(f"---- the rerun took {time.monotonic() - t0:.0f} s; it printed:\n{r.stdout}----", flush=True)
    check(r.returncode == 0, f"{what}: the rerun grades the class (exit 0)", f"exit {r.returncode}")
    if r.returncode != 0:
        return
    again = graded_lines(r.stdout)
    check(sorted(again) == sorted(set(baseline["students"]) - set(done)),
          f"{what}: the rerun grades only the students the stopped run had not finished", f"graded {again}, kept {done}")
    check(f"{len(done)} of 6 student(s) already graded by an interrupted run" in r.stdout and
          f"{len(done)} student(s) taken from an interrupted run, not graded again" in
          (out / "summary.txt").read_text(encoding="utf-8"),
          f"{what}: the rerun and summary.txt say how many were taken from the stopped run")
    now = snapshot(out)
    differ = sorted(k for k in set(now) | set(baseline["files"]) if now.get(k) != baseline["files"].get(k))
    check(not differ, f"{what}: OUT is identical to the uninterrupted run's",
          "; ".join(f"{k}: {now.get(k)!r:.600} vs {baseline['files'].get(k)!r:.600}" for k in differ[:2]))
    check(not state_dir(out).exists() and not list(tmp.glob(f".{out.name}.*")),
          f"{what}: once OUT is written no state or staging folder is left beside it")
    if sig == signal.SIGKILL:
        check("removed the build trees a killed run left" in r.stdout,
              "SIGKILL: the rerun removes the build trees the killed grader left")
    check(not left_in(work) and not any(work.iterdir()), f"{what}: after the rerun no process or build tree is left",
          str(left_in(work)))


def main():
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-resume-test-"))
    os.chmod(tmp, 0o711)  # the grading user (root: nobody) must reach the build trees below it
    try:
        sub = tmp / "submissions"
        expected = make_class(sub)
        work = tmp / "work-full"
        work.mkdir()
        os.chmod(work, 0o711)
        t0 = time.monotonic()
        r = subprocess.run(command(sub, tmp / "out-full", work), cwd=REPO, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace", timeout=900)
        print(f"---- the uninterrupted run took {time.monotonic() - t0:.0f} s; it printed:\n{r.stdout}----", flush=True)
        check(r.returncode == 0, "the uninterrupted run grades the class (exit 0)", f"exit {r.returncode}")
        if r.returncode != 0:
            return
        got = {row.split(",")[0]: float(row.split(",")[2])
               for row in (tmp / "out-full" / "grades.csv").read_text().splitlines()[1:]}
        check(got == expected, "the class's scores are as expected (right 6, wrong 5, broken and starter 0)", str(got))
        baseline = {"students": sorted(expected), "files": snapshot(tmp / "out-full")}
        stopped_and_resumed(tmp, sub, baseline, signal.SIGKILL, 3)
        stopped_and_resumed(tmp, sub, baseline, signal.SIGTERM, 2)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(tmp)], stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    checks.finish("resume grading")
