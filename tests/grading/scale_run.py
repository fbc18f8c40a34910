#!/usr/bin/env python3
"""A class of N lab 1 submissions graded at scale, stopped half-way once and
resumed, measured (handouts/grading.md, "A class of 500"):

  python3 tests/grading/scale_run.py 500 -j 2 [--stop-at 0.5] [--signal KILL] [-- grader flags]

The class, made from the end-to-end tests' fixtures, repeats a pattern of 20:

  right    11  the reference as handed in (each with a line of its own, so
               every student's file is compiled, as in a real class)      6/6
  wrong     4  1-3 of the six orders write a wrong C                      6-k
  slow      2  right, sleeping 20 ms in every call                        6/6
  hang      1  an endless loop in one order (TIMEOUT at the test's limit)  5/6
  hostile   2  the next of hostile_processes.py's and hostile_verdict.py's
               attacks, in turn (their expected scores): daemons, fork
               storms, memory hogs, crashes, forged answers, compile bombs

It grades them with tools/grade.py (-j and the flags given, default
`--test-timeout 10 --build-timeout 60`, the hostile test's limits), sends the
grader SIGKILL (or --signal) once --stop-at of the class is kept in the state
beside OUT, runs the same command again, and prints: the wall time of both
runs together, submissions per minute and per minute per core, the machine's
peak memory in use (MemTotal - MemAvailable, sampled every second, and above
its level at the start) and the grader's own peak RSS (/usr/bin/time), how
many the rerun took from the stopped run, and every student whose verdict is
not what their fixture expects (none, or the exit status is 1), and any
process a student left. Minutes for a large class: not part of make test-all.
"""
import argparse
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True
import checks  # noqa: E402
import hostile_processes  # noqa: E402
import hostile_verdict  # noqa: E402
from checks import REPO, replace_body  # noqa: E402
from grading.resume import state_dir  # noqa: E402

ORDERS = ["ijk", "ikj", "jik", "jki", "kij", "kji"]
PATTERN = ["right"] * 11 + ["wrong"] * 4 + ["slow"] * 2 + ["hang"] + ["hostile"] * 2
SLOW = ('    std::this_thread::sleep_for(std::chrono::milliseconds(20));')
DEFAULT_FLAGS = ["--test-timeout", "10", "--build-timeout", "60"]


class Student:
    def __init__(self, name, kind, score, builds=("built",)):
        self.name, self.kind, self.score, self.builds = name, kind, score, builds


def _edit(ref, edit):
    return dict(ref, **{"loop_orders.cpp": edit(ref["loop_orders.cpp"])})


def _write(folder, files, tag):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text + (f"\n// {tag}\n" if name.endswith(".cpp") else ""))


def make_class(sub, n, tmp):
    """N student folders under sub, the pattern repeated; returns their Students."""
    ref = checks.lab1_as_handed_in()
    templates = tmp / "hostile-templates"
    hostile = hostile_processes.add_cases(templates, ref) + hostile_verdict.add_cases(templates, ref)
    students = []
    for i in range(n):
        kind = PATTERN[i % len(PATTERN)]
        name = f"s{i:04d}-{kind}"
        if kind == "right":
            _write(sub / name / "lab1", ref, name)
            students.append(Student(name, kind, 6))
        elif kind == "wrong":
            k = 1 + i % 3
            files = ref
            for o in ORDERS[:k]:
                files = _edit(files, lambda t, o=o: replace_body(t, f"matmul_{o}", "    C[0] = 42.0f; return;"))
            _write(sub / name / "lab1", files, name)
            students.append(Student(name, kind, 6 - k))
        elif kind == "slow":
            files = ref
            for o in ORDERS:
                files = _edit(files, lambda t, o=o: replace_body(t, f"matmul_{o}", SLOW))
            files = _edit(files, lambda t: t.replace("#include <algorithm>",
                                                     "#include <algorithm>\n#include <chrono>\n#include <thread>"))
            _write(sub / name / "lab1", files, name)
            students.append(Student(name, kind, 6))
        elif kind == "hang":
            _write(sub / name / "lab1", _edit(ref, lambda t: replace_body(
                t, "matmul_jki", "    for (volatile int spin = 0;; spin = spin + 1) {}")), name)
            students.append(Student(name, kind, 5))
        else:
            case = hostile[(i // len(PATTERN) * 2 + (i % len(PATTERN) == len(PATTERN) - 1)) % len(hostile)]
            name = f"s{i:04d}-hostile-{case.name}"
            shutil.copytree(templates / case.name, sub / name, symlinks=True)
            for f in (sub / name).rglob("loop_orders.cpp"):
                f.write_text(f.read_text() + f"\n// {name}\n")
            builds = case.build if isinstance(case.build, tuple) else (case.build,)
            students.append(Student(name, "hostile", case, builds))
    subprocess.run(["chmod", "-R", "a+rX", str(sub)], check=True)
    return students


class MemorySampler(threading.Thread):
    """The machine's memory in use (MemTotal - MemAvailable), every second: its level at the start and peak."""

    def __init__(self):
        super().__init__(daemon=True)
        self.start_kib = self.peak_kib = self.used()
        self.stop = threading.Event()

    @staticmethod
    def used():
        info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
        return int(info["MemTotal"].split()[0]) - int(info["MemAvailable"].split()[0])

    def run(self):
        while not self.stop.wait(1.0):
            self.peak_kib = max(self.peak_kib, self.used())


def grader(sub, out, work, jobs, flags, log):
    """tools/grade.py under /usr/bin/time -v (its peak RSS), output to `log`: the Popen."""
    cmd = ["/usr/bin/time", "-v"] + checks.grade_command() + [str(sub), "--lab", "1", "--out", str(out), "--work",
                                                               str(work), "-j", str(jobs)] + flags
    return subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)


def peak_rss_mib(text):
    m = re.findall(r"Maximum resident set size \(kbytes\): ([0-9]+)", text)
    return max(int(x) for x in m) / 1024 if m else None


def left_processes(work):
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes()
                cwd = os.readlink(d / "cwd") + "/"
            except OSError:
                continue
            if b"mmlab-hostile-daemon" in cmd or cwd.startswith(str(work) + "/") or str(work).encode() + b"/" in cmd:
                found.append(d.name)
    return found


def verdicts(out, students):
    """The students whose row is missing or not what their fixture expects."""
    rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    wrong = []
    for s in students:
        r = rows.get(s.name)
        if r is None:
            wrong.append(f"{s.name}: no row")
            continue
        want = s.score.level_scores.get(level(out), s.score.expected) if s.kind == "hostile" else s.score
        if float(r["score"]) != want or r["build"] not in s.builds:
            wrong.append(f"{s.name}: {r['score']} {r['build']}, expected {want:g} {'/'.join(s.builds)}")
    return wrong, len(rows)


def level(out):
    return re.search(r"^containment: (\w+)", (out / "summary.txt").read_text(), re.M).group(1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("n", type=int)
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--stop-at", type=float, default=0.5, help="share of the class done when the grader is stopped "
                   "(0: no stop)")
    p.add_argument("--signal", default="KILL", choices=["KILL", "TERM", "INT"])
    p.add_argument("--tmp", help="folder for the class and the outputs (default: a new one, removed at the end)")
    p.add_argument("flags", nargs="*", help="grader flags (after --); default: " + " ".join(DEFAULT_FLAGS))
    a = p.parse_args()
    tmp = Path(a.tmp or tempfile.mkdtemp(prefix="mmlab-scale-"))
    tmp.mkdir(parents=True, exist_ok=True)
    os.chmod(tmp, 0o711)  # the grading user (root: nobody) must reach the build trees below it
    sub, out, work = tmp / "submissions", tmp / "out", tmp / "work"
    for d in (sub, out, work):
        shutil.rmtree(d, ignore_errors=True)
    shutil.rmtree(state_dir(out), ignore_errors=True)
    work.mkdir()
    os.chmod(work, 0o711)
    flags = a.flags or DEFAULT_FLAGS
    try:
        students = make_class(sub, a.n, tmp)
        kinds = {k: sum(1 for s in students if s.kind == k) for k in dict.fromkeys(PATTERN)}
        print(f"class: {a.n} submissions: " + ", ".join(f"{v} {k}" for k, v in kinds.items()), flush=True)
        print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at the start; grader: -j {a.jobs} "
              f"{' '.join(flags)}", flush=True)
        mem = MemorySampler()
        mem.start()
        t0 = time.monotonic()
        logs = []
        stopped = None
        if a.stop_at > 0:
            log = tmp / "run1.log"
            logs.append(log)
            with open(log, "w") as f:
                g = grader(sub, out, work, a.jobs, flags, f)
                rows = state_dir(out) / "rows"
                while g.poll() is None and (len(list(rows.glob("*.json"))) if rows.is_dir() else 0) < a.stop_at * a.n:
                    time.sleep(0.2)
                stopped = len(list(rows.glob("*.json"))) if rows.is_dir() else 0
                # The grader is /usr/bin/time's child: the signal goes to it, as `kill` would send it.
                gpid = int(subprocess.run(["pgrep", "-P", str(g.pid)], stdout=subprocess.PIPE, text=True)
                           .stdout.split()[0])
                os.kill(gpid, getattr(signal, "SIG" + a.signal))
                g.wait()
            t_stop = time.monotonic() - t0
            print(f"stopped the grader with SIG{a.signal} after {t_stop:.0f} s: {stopped} of {a.n} kept", flush=True)
        log = tmp / "run2.log"
        logs.append(log)
        with open(log, "w") as f:
            rc = grader(sub, out, work, a.jobs, flags, f).wait()
        wall = time.monotonic() - t0
        mem.stop.set()
        text2 = log.read_text(errors="replace")
        print(text2[-3000:] if rc != 0 else "", flush=True)
        taken = re.search(r"^([0-9]+) of [0-9]+ student\(s\) already graded by an interrupted run", text2, re.M)
        regraded = re.findall(r"^\[[0-9]+/[0-9]+\] ", text2, re.M)
        bad, nrows = verdicts(out, students) if rc == 0 else (["the grader failed"], 0)
        time.sleep(1)
        left = left_processes(work)
        cores = os.cpu_count() or 1
        per_min = a.n / wall * 60
        own = re.search(r"add up to ([0-9:]+), ([0-9.]+) s each", (out / "summary.txt").read_text()) if rc == 0 else None
        print(f"result: exit {rc}; {nrows} rows for {a.n} students; wall {wall:.0f} s (both runs); "
              f"{per_min:.1f} submissions/min, {per_min / cores:.1f} per core ({cores} cores); "
              f"students' own time {own.group(1) if own else '?'} ({own.group(2) if own else '?'} s each)")
        print(f"memory: machine peak {mem.peak_kib / 1024:.0f} MiB in use ({(mem.peak_kib - mem.start_kib) / 1024:.0f} "
              f"MiB above the start); grader's peak RSS {peak_rss_mib(''.join(l.read_text(errors='replace') for l in logs)) or 0:.0f} MiB")
        if stopped is not None:
            print(f"resume: {stopped} kept when stopped; the rerun took {taken.group(1) if taken else 0} from it and "
                  f"graded {len(regraded)}; {'none' if taken and len(regraded) + int(taken.group(1)) == a.n else 'SOME'} "
                  "lost or graded twice")
        print(f"verdicts: {a.n - len(bad)} of {a.n} as their fixtures expect" + "".join(f"\n  {b}" for b in bad[:30]))
        print(f"processes left: {len(left)}")
        ok = rc == 0 and not bad and not left and (stopped is None or (taken and len(regraded) + int(taken.group(1)) == a.n))
        return 0 if ok else 1
    finally:
        if not a.tmp:
            subprocess.run(["chmod", "-R", "u+w", str(tmp)], stderr=subprocess.DEVNULL)
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
