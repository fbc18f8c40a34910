#!/usr/bin/env python3
"""Grades a folder of lab submissions: `make grade SUBMISSIONS=dir LAB=N [OUT=dir]`.

For each student (one sub-folder each) it builds this repository with the
student's lab files in place of the starter, in a temporary folder of its own,
runs every test case of the lab on the student's code (MML_IMPL=student), one
process per test case with time and resource limits, and writes

  OUT/grades.csv                one row per student, one column per test case
  OUT/<student>/results.json    Gradescope's results.json format
  OUT/<student>/feedback.txt    what the student reads: build errors, failed checks
  OUT/summary.txt               what was graded, how, and the class's results

handouts/grading.md is the instructors' manual (layout of a submission,
scoring, weights, containment and its limits). Python 3 standard library only:
the XML, JSON and CSV handling, the time limits and the parallel runs would
be fragile in a shell script.
"""

import argparse
import concurrent.futures
import csv
import datetime
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SANDBOX = REPO / "tools" / "grading" / "sandbox.sh"
PROG = "grade"

# How much of a log the feedback quotes, and how much of it is ever read.
BUILD_ERROR_LINES = 40
TEST_MESSAGE_CHARS = 2000
LOG_READ_BYTES = 256 * 1024
MAX_SUBMITTED_FILE_BYTES = 1024 * 1024
# The default time limit of a test case: this many times the reference's time
# for it here (calibration), within these bounds. The lab tests take well under
# a second to a few seconds, so a student's endless loop costs 30 s, not 120 s,
# while code 20 times slower than the reference still passes.
AUTO_TIMEOUT_FACTOR, AUTO_TIMEOUT_MIN, AUTO_TIMEOUT_MAX = 20.0, 30.0, 120.0
# How deep below a student's folder the lab's files are looked for when they
# are not in one of the three layouts, and what counts as an archive.
NESTED_DEPTH = 4
ARCHIVES = r"\.(zip|tar|tgz|tar\.gz|tar\.bz2|tar\.xz|7z|rar|gz)$"
# Largest file a build may write (the linked test program is tens of MiB);
# --max-output-mb limits the files written when the student's code runs.
BUILD_FILE_KB = 1024 * 1024

# Patterns worth a human look; they never change a score (legitimate code can
# match them), they are listed in grades.csv and summary.txt only. What the
# starter's own file already contains (labs 3 and 4 are given helpers from
# solutions/) is not flagged.
SUSPICIOUS = [
    (r"\breference\s*::\s*\w+(?:\s*::\s*\w+)*|solutions/[\w./]+", "uses the reference solution"),
    (r"\b(system|popen|fork|vfork|execl|execlp|execle|execv|execvp|execve|posix_spawn)\s*\(", "starts processes"),
    (r"\b(_exit|_Exit|quick_exit|exit|abort)\s*\(", "ends the program itself"),
    (r"/proc/|/dev/|\bgetenv\s*\(|MML_IMPL|doctest", "looks at the test environment"),
    (r"\b(fopen|open|creat|unlink|remove|rename)\s*\(|\b[io]?fstream(?=\s*[\w({])", "opens or removes files"),
    (r"(?m)^(?![ \t]*#[ \t]*include)[^\n]*?(?P<show>\"/[\w.-]+/[^\"\n]*\")", "names an absolute path"),
    (r"\b(socket|connect|getaddrinfo)\s*\(", "uses the network"),
    (r"#\s*include\s*[\"<]\s*(/|\.\.)", "includes a file by absolute or parent path"),
    (r"\b(asm|__asm__)\b", "inline assembly"),
]


class UsageError(Exception):
    """Bad command line or input: one line on stderr, exit 2, nothing written."""


class SetupError(Exception):
    """This machine or checkout cannot grade (the starter does not build...): exit 1."""


def say(msg=""):
    print(msg, flush=True)


def warn(msg):
    print(f"{PROG}: warning: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Command line and input checks (before anything is written)
# --------------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see: python3 tools/grade.py --help)")


def parse_args(argv):
    p = Parser(prog="tools/grade.py", description="Grade a folder of lab submissions (one sub-folder per student).",
               epilog="The instructors' manual is handouts/grading.md.")
    p.add_argument("submissions", help="folder with one sub-folder per student")
    p.add_argument("--lab", required=True, help="lab number (1-10)")
    p.add_argument("--out", help="output folder (default: grades-labN); replaced as a whole at the end")
    p.add_argument("-j", "--jobs", type=int, default=1, help="students graded at the same time (default 1)")
    p.add_argument("--build-jobs", type=int, default=0, help="make -j for each build (default: cores / jobs)")
    p.add_argument("--weights", help="weights file (default: tools/grading/labN.weights if it exists)")
    p.add_argument("--build-timeout", type=float, default=600, help="seconds for one student's build (default 600)")
    p.add_argument("--test-timeout", type=float, default=None,
                   help=f"seconds for one test case (default: {AUTO_TIMEOUT_FACTOR:g}x the reference's time for it on "
                        f"this machine, at least {AUTO_TIMEOUT_MIN:g} and at most {AUTO_TIMEOUT_MAX:g})")
    p.add_argument("--student-budget", type=float, default=900,
                   help="seconds of tests per student; tests after it is spent score 0 (default 900)")
    p.add_argument("--memory-mb", type=int, default=4096,
                   help="address space per process in MiB, CPU labs (default 4096; GPU labs: no limit)")
    p.add_argument("--max-output-mb", type=int, default=64, help="largest file a student's process may write (default 64)")
    p.add_argument("--max-procs", type=int, default=256, help="extra processes a student's code may start (default 256)")
    p.add_argument("--sandbox", choices=["auto", "full", "net", "none"], default="auto",
                   help="containment level (default auto: the strongest this machine allows)")
    p.add_argument("--perf", action="store_true",
                   help="also run `mmlab lab N` and score the lab's performance target (off by default: noisy)")
    p.add_argument("--perf-points", type=float, default=1.0, help="points for the target with --perf (default 1)")
    p.add_argument("--perf-threads", type=int, default=0, help="threads for --perf (default: all cores)")
    p.add_argument("--perf-size", help="sizes for --perf, as mmlab --size takes them (default: the lab's own)")
    p.add_argument("--fresh-build", action="store_true",
                   help="do not start from this checkout's build/ (slower; use if build/ may be stale)")
    p.add_argument("--work", help="folder for the temporary build trees (default: the system's temp folder)")
    p.add_argument("--keep", action="store_true", help="keep the temporary build trees (for debugging)")
    a = p.parse_args(argv)
    if not re.fullmatch(r"[0-9]{1,2}", a.lab):
        raise UsageError(f"--lab must be a lab number such as 1, not '{a.lab}'")
    a.lab = int(a.lab)
    for name in ("jobs", "build_jobs", "memory_mb", "max_output_mb", "max_procs", "perf_threads"):
        if getattr(a, name) < (1 if name in ("jobs", "max_output_mb", "max_procs") else 0):
            raise UsageError(f"--{name.replace('_', '-')} must be a positive number")
    if a.perf_size is not None and not re.fullmatch(r"[0-9A-Za-z,]+", a.perf_size):
        raise UsageError(f"--perf-size takes mmlab's --size list (e.g. 256 or 300x200x100,512), not '{a.perf_size}'")
    for name in ("build_timeout", "test_timeout", "student_budget"):
        if name == "test_timeout" and a.test_timeout is None:
            continue  # auto
        if not getattr(a, name) > 0:
            raise UsageError(f"--{name.replace('_', '-')} must be more than 0 seconds")
    return a


def student_folders(sub):
    """The student folders, in name order; raises UsageError when there is none."""
    if not sub.exists():
        raise UsageError(f"submissions folder {sub} does not exist: give SUBMISSIONS=<folder with one sub-folder per student>")
    if not sub.is_dir():
        raise UsageError(f"{sub} is not a folder: SUBMISSIONS must be a folder with one sub-folder per student")
    try:
        entries = sorted(sub.iterdir(), key=lambda e: e.name)
    except OSError as e:
        raise UsageError(f"cannot read {sub}: {e.strerror}")
    students = [e for e in entries if e.is_dir() and not e.is_symlink() and not e.name.startswith(".")]
    if not students:
        raise UsageError(f"{sub} has no student folders: put each student's files in a sub-folder named after the student")
    return students, [e.name for e in entries if e not in students and not e.name.startswith(".")]


def check_out(out, sub):
    """OUT must be a folder we may create or replace: a new one, an empty one, or an earlier grading output."""
    out = out.resolve()
    if out == sub.resolve() or sub.resolve() in out.parents:
        raise UsageError(f"OUT={out} is inside the submissions folder: it would be graded as a student; pick another OUT")
    if out.exists():
        if not out.is_dir():
            raise UsageError(f"OUT={out} exists and is not a folder: pick another OUT")
        if any(out.iterdir()) and not (out / "grades.csv").exists():
            raise UsageError(f"OUT={out} holds other files (no grades.csv from an earlier run): pick a new or empty folder")
    parent = out.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"cannot create OUT={out}: {parent} is not a folder; pick another OUT")
    # The results are staged beside OUT and renamed into place: try exactly that (and remove the try).
    try:
        Path(tempfile.mkdtemp(prefix=".grade-probe-", dir=parent)).rmdir()
        if out.exists():
            Path(tempfile.mkdtemp(prefix=".grade-probe-", dir=out)).rmdir()
    except OSError as e:
        raise UsageError(f"cannot write to {parent if not out.exists() else out} ({e.strerror}): "
                         "pick an OUT folder you can write")
    return out


def read_weights(path):
    """'test case name = points' lines; '#' starts a comment. Returns {name: points}."""
    weights = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read weights file {path}: {e}")
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, eq, value = line.rpartition("=")
        try:
            points = float(value)
        except ValueError:
            points = -1
        if not eq or not name.strip() or points < 0:
            raise UsageError(f"{path}:{n}: expected 'test case name = points' (points >= 0), got '{line}'")
        weights[name.strip()] = points
    return weights


# --------------------------------------------------------------------------
# Running commands with limits
# --------------------------------------------------------------------------

class Limits:
    def __init__(self, a, gpu_lab):
        self.mode = a.sandbox
        self.mem_kb = 0 if gpu_lab else a.memory_mb * 1024
        self.fsize_kb = a.max_output_mb * 1024
        self.nproc = a.max_procs


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


def clean_env(extra=None):
    """The environment for builds and tests: no make variables or compiler flags from the caller."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS", "OPT", "ARCH", "CXXFLAGS",
                        "LDFLAGS", "SIZE", "SOLUTION", "BUILD", "MML_IMPL", "MMLAB", "OMP_NUM_THREADS")}
    env["LC_ALL"] = "C"
    if extra:
        env.update(extra)
    return env


def read_head(path, limit=LOG_READ_BYTES):
    try:
        with open(path, "rb") as f:
            data = f.read(limit)
            more = f.read(1) != b""
    except OSError:
        return ""
    text = data.decode("utf-8", "replace")
    return text + ("\n[... output cut: it was longer than %d KiB ...]" % (limit // 1024) if more else "")


# --------------------------------------------------------------------------
# The source tree every student's build starts from
# --------------------------------------------------------------------------

def git(*args, binary=False):
    r = subprocess.run(["git", "-C", str(REPO)] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        return None
    return r.stdout if binary else r.stdout.decode("utf-8", "replace")


def snapshot_sources(dest, lab, skip):
    """Copies this checkout (sources only, modification times kept) to dest; labs/labN comes from git HEAD.
    Returns (commit or None, warnings)."""
    notes = []
    commit = git("rev-parse", "HEAD")
    commit = commit.strip() if commit else None
    listing = git("ls-files", "-z", "--cached", "--others", "--exclude-standard") if commit else None
    if listing is not None:
        files = [f for f in listing.split("\0") if f]
    else:
        files = []
        for root, dirs, names in os.walk(REPO):
            rel_root = Path(root).relative_to(REPO)
            dirs[:] = [d for d in dirs if not (rel_root == Path(".") and d in ("build", ".git"))]
            files += [str(rel_root / n) for n in names]
    for rel in files:
        src = REPO / rel
        if any(s == src or s in src.parents for s in skip) or rel.startswith(".carry/"):
            continue
        if not src.is_file() or src.is_symlink():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    labdir = f"labs/lab{lab}"
    if commit:
        head = git("ls-tree", "-r", "--name-only", "HEAD", labdir + "/")
        head_files = set(head.split()) if head else set()
        for rel in sorted(head_files):
            blob = git("show", f"HEAD:{rel}", binary=True)
            if blob is not None and (not (dest / rel).exists() or (dest / rel).read_bytes() != blob):
                (dest / rel).write_bytes(blob)
                notes.append(f"{rel} differs from git HEAD here: the starter from HEAD ({commit[:10]}) is used")
        for f in sorted((dest / labdir).glob("*")):
            rel = f"{labdir}/{f.name}"
            if f.is_file() and rel not in head_files:
                f.unlink()
                notes.append(f"{rel} is not in git HEAD: left out of the starter")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", "tests", ":(exclude)tests/grading", "harness",
                    "cpu", "gpu", "Makefile")
        if dirty and dirty.strip():
            notes.append("tests/, harness/, cpu/, gpu/ or the Makefile have uncommitted changes: they ARE used "
                         "(this checkout is graded as it is, not as committed)")
    return commit, notes


def seed_build(dest_build, fresh, need_cuda):
    """Starts from this checkout's build/ (objects, configuration), so that make rebuilds only what differs."""
    src = REPO / "build"
    if fresh or not (src / "config.mk").is_file() or not (src / "obj").is_dir():
        return False
    if need_cuda and re.search(r"^HAVE_CUDA := 1$", (src / "config.mk").read_text(), re.M) is None:
        return False  # configured without CUDA: the GPU tests are not in it
    dest_build.mkdir(parents=True, exist_ok=True)
    for name in ("config.mk", "flags.txt", "toolchain.txt"):
        if (src / name).is_file():
            shutil.copy2(src / name, dest_build / name)
    shutil.copytree(src / "obj", dest_build / "obj", symlinks=True)
    if (src / "bin").is_dir():
        shutil.copytree(src / "bin", dest_build / "bin", symlinks=True)
    return True


# --------------------------------------------------------------------------
# Test cases: listing, running one, reading doctest's XML
# --------------------------------------------------------------------------

def doctest_filter_escape(name):
    # doctest splits filters at commas unless escaped with a backslash (2.4.9+);
    # '*' and '?' are wildcards that also match themselves, and results are
    # matched by exact name afterwards.
    return name.replace("\\", "\\\\").replace(",", "\\,")


def parse_doctest_xml(path):
    """Returns ({(suite, name): element}, ran: [(suite, name, element)], complete). Tolerates a cut-off file."""
    text = read_head(path, 16 * 1024 * 1024)
    complete = "</doctest>" in text
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        # A crash or a timeout cut the file: close what was open and retry;
        # what is not well-formed by then counts as not reported.
        cut = text.rsplit("</TestCase>", 1)[0] + "</TestCase>" if "</TestCase>" in text else ""
        root = None
        for tail in ("</TestSuite></doctest>", "</doctest>"):
            try:
                root = ET.fromstring(cut + tail)
                break
            except ET.ParseError:
                continue
        if root is None:
            return {}, [], False
    cases, ran = {}, []
    for suite in root.iter("TestSuite"):
        for tc in suite.findall("TestCase"):
            key = (suite.get("name", ""), tc.get("name", ""))
            cases[key] = tc
            if tc.get("skipped") != "true":
                ran.append((key[0], key[1], tc))
    return cases, ran, complete


def failure_text(tc):
    """The failed checks of one test case, as the student should read them."""
    out = []
    for el in tc.iter():
        if el.tag == "Expression" and el.get("success") == "false":
            where = f"{el.get('filename', '?')}:{el.get('line', '?')}"
            infos = [" ".join((i.text or "").split()) for i in el.findall("Info")]
            expr = " ".join((el.findtext("Original") or "").split())
            expanded = " ".join((el.findtext("Expanded") or "").split())
            exc = el.findtext("Exception")
            # The check's own message says what is wrong; without one, the
            # expression and where it is in the tests.
            msg = "; ".join(i for i in infos if i) or f"{el.get('type', 'CHECK')}({expr}) is {expanded or 'false'} [{where}]"
            if exc:
                msg += f" (threw: {' '.join(exc.split())})"
            out.append(msg)
        elif el.tag == "Message" and el.get("type", "").upper().find("FAIL") >= 0:
            out.append(" ".join((el.findtext("Text") or "").split()))
        elif el.tag == "Exception":
            what = "crashed" if el.get("crash") == "true" else "threw an exception"
            out.append(f"the test {what}: {' '.join((el.text or '').split())}")
    distinct = list(dict.fromkeys(out))  # a check repeated per thread count or subcase, once
    if len(distinct) > 5:
        distinct = distinct[:5] + [f"(and {len(distinct) - 5} more failed checks)"]
    text = "\n".join(distinct) or "failed (doctest reported no message)"
    return text if len(text) <= TEST_MESSAGE_CHARS else text[:TEST_MESSAGE_CHARS] + " [...]"


class TestResult:
    def __init__(self, name, status, message="", seconds=0.0):
        self.name, self.status, self.message, self.seconds = name, status, message, seconds
        # status: passed | failed | timeout | crashed | not-run


def run_test_case(tree, suites, suite, name, out_dir, index, limits, timeout, gpu_note, impl="student"):
    xml_path = out_dir / f"test{index}.xml"
    log_path = out_dir / f"test{index}.log"
    cmd = ["build/bin/mmlab-tests", f"--test-suite={','.join(suites)}",
           f"--test-case={doctest_filter_escape(name)}", "--reporters=xml", f"--out={xml_path}"]
    env = clean_env({"MML_IMPL": impl, "MMLAB": "build/bin/mmlab", "TMPDIR": str(tree / ".tmp")})
    rc, timed_out, secs = run_limited(cmd, tree, tree, log_path, timeout, limits, timeout * 4 + 10, env)
    cases, ran, complete = parse_doctest_xml(xml_path)
    mine = [tc for s, n, tc in ran if s == suite and n == name]
    if timed_out:
        return TestResult(name, "timeout", f"did not finish in {timeout:g} s (an endless loop, or far too slow)"
                          + (": " + failure_text(mine[0]) if mine and mine[0].find(".//Expression") is not None else ""),
                          secs)
    if mine:
        tc = mine[0]
        overall = tc.find("OverallResultsAsserts")
        if overall is not None and overall.get("test_case_success") == "true":
            if rc == 0:
                return TestResult(name, "passed", "", secs)
            return TestResult(name, "crashed", f"the checks passed but the program then ended with {exit_text(rc)}", secs)
        if overall is None:
            log = read_head(log_path, 4096).strip()
            return TestResult(name, "crashed", f"the program ended with {exit_text(rc)} during this test"
                              + (f"; its output:\n{tail_lines(log, 10)}" if log else ""), secs)
        crashed = any(e.get("crash") == "true" for e in tc.iter("Exception"))
        return TestResult(name, "crashed" if crashed else "failed", failure_text(tc), secs)
    if (suite, name) in cases and suite.startswith("gpu-"):
        return TestResult(name, "not-run", f"GPU test not run on the grading machine ({gpu_note}); scored 0 "
                          "until it is graded on a machine with a GPU", secs)
    log = read_head(log_path, 4096).strip()
    return TestResult(name, "crashed", f"the program ended with {exit_text(rc)} during this test"
                      + (f"; its output:\n{tail_lines(log, 10)}" if log else ""), secs)


def exit_text(rc):
    if rc is None:
        return "no exit status"
    sig = -rc if rc < 0 else rc - 128 if rc > 128 else 0
    names = {4: "SIGILL (illegal instruction)", 6: "SIGABRT (abort)", 7: "SIGBUS", 8: "SIGFPE (arithmetic error)",
             9: "SIGKILL (a limit: CPU time or memory)", 11: "SIGSEGV (segmentation fault)",
             24: "SIGXCPU (CPU time limit)", 25: "SIGXFSZ (file size limit: too much output)"}
    if sig:
        return names.get(sig, f"signal {sig}")
    return f"exit status {rc}"


def tail_lines(text, n):
    return "\n".join(text.splitlines()[-n:])


def list_tests(tree, lab, work, limits):
    """Every test case of the lab (suites labN and gpu-labN) from the starter build, in file order,
    plus why GPU tests do not run here (None when a GPU is present)."""
    xml_path, log_path = tree / ".grade-list.xml", work / "list.log"
    cmd = ["build/bin/mmlab-tests", f"--test-suite=lab{lab},gpu-lab{lab}", "--test-case=mml-grade-lists-all-cases-*",
           "--reporters=xml", f"--out={xml_path}"]
    run_limited(cmd, tree, tree, log_path, 120, limits, 120, clean_env({"TMPDIR": str(tree / ".tmp")}))
    cases, _, complete = parse_doctest_xml(xml_path)
    if not complete:
        raise SetupError(f"cannot list the tests of lab {lab} (see {log_path})")
    tests = [(s, n) for (s, n) in cases if s in (f"lab{lab}", f"gpu-lab{lab}")]
    m = re.search(r"\[tests\] GPU tests skipped: (.*)", read_head(log_path, 65536))
    return tests, (m.group(1).strip() if m else None)


# --------------------------------------------------------------------------
# One student
# --------------------------------------------------------------------------

class Grader:
    def __init__(self, a, lab, work, base, lab_files, tests, weights, free, gpu_note, limits, build_jobs, ref_seconds):
        self.a, self.lab, self.work, self.base, self.free = a, lab, work, base, free
        self.lab_files, self.tests, self.weights = lab_files, tests, weights
        self.gpu_note, self.limits, self.build_jobs = gpu_note, limits, build_jobs
        self.suites = [f"lab{lab}", f"gpu-lab{lab}"]
        # Per test case: --test-timeout, or AUTO_TIMEOUT_* of the reference's time here.
        self.timeouts = {n: a.test_timeout or ref_seconds.get(n, AUTO_TIMEOUT_MAX) for s, n in tests}

    def find_files(self, folder):
        """Which folder of the submission holds the lab's files: labs/labN/, labN/ or the folder itself; else
        the one folder below (at most NESTED_DEPTH deep) that holds any of them, as a course platform's
        download or an unpacked archive nests them. Returns (folder or None, notes for when it is None)."""
        names = set(self.lab_files)
        for cand in (folder / "labs" / f"lab{self.lab}", folder / f"lab{self.lab}", folder):
            inside = folder.resolve() == cand.resolve() or folder.resolve() in cand.resolve().parents
            if inside and cand.is_dir() and not cand.is_symlink() and any((cand / n).exists() or (cand / n).is_symlink()
                                                               for n in names):
                return cand, []
        found, archives = [], []
        for root, dirs, files in os.walk(folder):  # os.walk does not follow symbolic links to folders
            depth = len(Path(root).relative_to(folder).parts)
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__MACOSX" and depth < NESTED_DEPTH)
            if Path(root) != folder and any(n in names and not os.path.islink(os.path.join(root, n)) for n in files):
                found.append(Path(root))
            archives += [os.path.join(root, f) for f in files if re.search(ARCHIVES, f, re.I)]
        if len(found) == 1:
            return found[0], []
        notes = []
        if found:
            notes.append(f"lab {self.lab} files in {len(found)} folders ("
                         + ", ".join(str(f.relative_to(folder.parent)) for f in found[:5])
                         + "), so none was graded: hand in one copy")
        if archives:
            notes.append("an archive (" + ", ".join(str(Path(f).relative_to(folder.parent)) for f in archives[:5])
                         + "), which is not unpacked: hand in the files themselves (or unpack it and grade again)")
        return None, notes

    def grade(self, index, folder, out_dir):
        """Grades one student; writes results.json and feedback.txt under out_dir; returns the CSV row data."""
        t0 = time.monotonic()
        name = folder.name
        lab = self.lab
        fb = []            # feedback lines for the student
        flags = []         # notes for the instructor only
        results = {}       # test name -> TestResult
        build_status = "ok"
        tree = self.work / f"student{index:04d}"
        logs = tree / ".grade"  # inside the tree: the sandbox lets the student's processes write only there
        try:
            src, found_notes = self.find_files(folder)
            if src is None:
                build_status = "no-files"
                where = ", ".join(f"{name}/{p}" for p in (f"labs/lab{lab}/", f"lab{lab}/", ""))
                fb.append(f"No lab {lab} files found: looked for {', '.join(sorted(self.lab_files))} in {where} "
                          f"(the folder itself) and the folders below it. Nothing was graded."
                          + "".join(f"\nFound {n}." for n in found_notes))
                flags.extend(f"no lab files: found {n}" for n in found_notes)
                for s, n in self.tests:
                    results[n] = TestResult(n, "not-run", "no lab files were submitted")
            else:
                shutil.copytree(self.base, tree, symlinks=True)
                logs.mkdir()
                (tree / ".tmp").mkdir(exist_ok=True)
                used, starter, refused, problems = self.overlay(src, tree, folder)
                flags.extend(refused)  # the starter was graded in its place: worth a look
                fb.append(f"Files graded from your submission ({src.relative_to(folder.parent)}): "
                          f"{', '.join(used) if used else 'none'}")
                todo = [n for n in starter if "TODO" in (self.base / "labs" / f"lab{lab}" / n).read_text("utf-8", "replace")]
                given = [n for n in starter if n not in todo]
                if todo:
                    fb.append(f"Missing, so the starter version was used (its tasks fail): {', '.join(todo)}")
                if given:
                    fb.append(f"Not submitted, so the starter version was used (it has no task, so nothing is lost): "
                              f"{', '.join(given)}")
                fb.extend(problems)
                flags.extend(self.scan(tree, used))
                build_status, build_msg = self.build(tree, logs)
                if build_status != "ok":
                    fb.append("")
                    fb.append(build_msg)
                    for s, n in self.tests:
                        results[n] = TestResult(n, "not-run", "the code did not build")
                else:
                    budget = self.a.student_budget
                    for i, (s, n) in enumerate(self.tests):
                        if n in self.free:
                            results[n] = TestResult(n, "not-run", "not graded (passes on the untouched starter)")
                            continue
                        if budget <= 0:
                            results[n] = TestResult(n, "not-run", "this submission used up its time budget "
                                                    f"({self.a.student_budget:g} s of tests) on earlier tests")
                            continue
                        r = run_test_case(tree, self.suites, s, n, logs, i, self.limits,
                                          min(self.timeouts[n], budget), self.gpu_note)
                        budget -= r.seconds
                        results[n] = r
                    if self.a.perf:
                        results["__perf__"] = self.perf(tree, logs, results)
        except Exception as e:  # one student's trouble must never stop the others
            build_status = "grader-error"
            fb.append(f"The grading script failed on this submission ({type(e).__name__}: {e}); "
                      "your instructor has been told.")
            flags.append(f"grader error: {type(e).__name__}: {e}")
            for s, n in self.tests:
                results.setdefault(n, TestResult(n, "not-run", "grading error"))
        finally:
            if not self.a.keep:
                shutil.rmtree(tree, ignore_errors=True)
                shutil.rmtree(logs, ignore_errors=True)
        return self.write(name, out_dir, fb, flags, results, build_status, time.monotonic() - t0)

    def overlay(self, src, tree, folder):
        """Copies the student's lab files over the starter; reports extra, missing and refused files."""
        used, starter, refused, extra = [], [], [], []
        dest = tree / "labs" / f"lab{self.lab}"
        newest = max((p.stat().st_mtime for p in (tree / "build").rglob("*") if p.is_file()), default=time.time())
        stamp = max(time.time(), newest + 1)
        for n in sorted(self.lab_files):
            f = src / n
            # A refused file is named as refused (not as missing: it was handed in).
            if f.is_symlink():
                refused.append(f"{n}: a symbolic link, not a file: refused, the starter version was used")
            elif not f.exists():
                starter.append(n)
            elif not f.is_file():
                refused.append(f"{n}: not a regular file: refused, the starter version was used")
            elif f.stat().st_size > MAX_SUBMITTED_FILE_BYTES:
                refused.append(f"{n}: larger than {MAX_SUBMITTED_FILE_BYTES // 1024} KiB: refused, "
                               "the starter version was used")
            else:
                data = f.read_bytes()
                used.append(n)
                if data != (dest / n).read_bytes():  # unchanged files keep the starter's objects
                    (dest / n).write_bytes(data)
                    os.utime(dest / n, (stamp, stamp))
        skip = {"labs", f"lab{self.lab}"} if src == folder else set()
        for e in sorted(src.iterdir(), key=lambda e: e.name):
            if e.name not in self.lab_files and e.name not in skip and not e.name.startswith("."):
                extra.append(e.name + ("/" if e.is_dir() else ""))
        if extra:
            shown = ", ".join(extra[:20]) + (f" and {len(extra) - 20} more" if len(extra) > 20 else "")
            extra_note = (f"Ignored (not part of lab {self.lab}; only its own files are graded): {shown}")
        return used, starter, refused, refused + ([extra_note] if extra else [])

    def scan(self, tree, used):
        def found(path, pattern):
            text = path.read_text("utf-8", "replace")
            text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)  # comments do not count
            return {" ".join(m.group("show" if "show" in m.re.groupindex else 0).split())
                    for m in re.finditer(pattern, text)}

        flags = []
        for n in used:
            for pattern, what in SUSPICIOUS:
                new = found(tree / "labs" / f"lab{self.lab}" / n, pattern) - \
                      found(self.base / "labs" / f"lab{self.lab}" / n, pattern)
                if new:
                    shown = ", ".join(sorted(new)[:3]) + (", ..." if len(new) > 3 else "")
                    flags.append(f"{n}: {what} ({shown})")
        return flags

    def build(self, tree, logs):
        log = logs / "build.log"
        targets = ["build/bin/mmlab-tests", "build/bin/mmlab"]
        cmd = ["make", f"-j{self.build_jobs}", "--no-print-directory"] + targets
        env = clean_env({"TMPDIR": str(tree / ".tmp")})
        rc, timed_out, secs = run_limited(cmd, tree, tree, log, self.a.build_timeout, self.limits,
                                          self.a.build_timeout + 10, env, fsize_kb=BUILD_FILE_KB)
        if timed_out:
            return "build-timeout", (f"BUILD: did not finish in {self.a.build_timeout:g} s; nothing could be tested.")
        if rc == 0 and all((tree / t).is_file() for t in targets):
            return "ok", ""
        text = read_head(log).replace(str(tree) + "/", "")
        lines = [l for l in text.splitlines() if not re.match(r"\s*(CXX|NVCC|LINK)\s", l)]
        first = next((i for i, l in enumerate(lines) if re.search(r"\berror\b|Error \d+", l)), 0)
        start = max(0, first - 2)
        shown = lines[start:start + BUILD_ERROR_LINES]
        more = len(lines) - start - len(shown)
        return "build-failed", ("BUILD FAILED: your code did not compile, so no test could run. The compiler said "
                                f"(first {len(shown)} lines from the first error):\n" + "\n".join("  " + l for l in shown)
                                + (f"\n  [... {more} more lines ...]" if more > 0 else ""))

    def perf(self, tree, logs, results):
        name = "performance target (mmlab lab %d)" % self.lab
        if any(r.status != "passed" for k, r in results.items() if k != "__perf__" and self.weights.get(k, 0) > 0):
            return TestResult(name, "not-run", "every graded test must pass first")
        json_path = logs / "perf.json"
        threads = self.a.perf_threads or os.cpu_count() or 1
        cmd = ["build/bin/mmlab", "lab", str(self.lab), "--threads", str(threads), "--json", str(json_path), "--quiet"]
        if self.a.perf_size:
            cmd += ["--size", self.a.perf_size]
        rc, timed_out, secs = run_limited(cmd, tree, tree, logs / "perf.log", 600, self.limits, 4000,
                                          clean_env({"TMPDIR": str(tree / ".tmp")}))
        if timed_out:
            return TestResult(name, "timeout", "mmlab lab did not finish in 600 s", secs)
        try:
            target = json.loads(json_path.read_text())["target"]
        except (OSError, ValueError, KeyError, TypeError):
            return TestResult(name, "failed", f"mmlab lab {self.lab} gave no verdict ({exit_text(rc)})", secs)
        text = f"{target.get('goal', '')}: {target.get('explanation', '')}"
        return TestResult(name, "passed" if target.get("met") is True else "failed", text, secs)

    def write(self, name, out_dir, fb, flags, results, build_status, seconds):
        tests_json, rows = [], {}
        score = max_score = 0.0
        order = [n for s, n in self.tests] + (["__perf__"] if self.a.perf else [])
        not_graded = [n for n in order if n in self.free]
        for n in not_graded:
            rows[n] = ""  # an empty cell in grades.csv: not graded
        for number, n in enumerate([n for n in order if n not in self.free], 1):
            r = results.get(n) or TestResult(n, "not-run", "not run")
            pts = self.a.perf_points if n == "__perf__" else self.weights[n]
            got = pts if r.status == "passed" else 0.0
            score += got
            max_score += pts
            rows[n] = got
            shown = r.name if n == "__perf__" else n
            tests_json.append({"name": shown, "number": str(number), "score": got, "max_score": pts,
                               "status": "passed" if r.status == "passed" else "failed",
                               "output": (r.status.upper().replace("-", " ") + (": " + r.message if r.message else "")),
                               "visibility": "visible"})
        head = [f"matmul-lab, lab {self.lab}: {name}", f"Score: {fmt(score)} / {fmt(max_score)}",
                f"Build: {build_status}", ""]
        body = list(fb)
        if results:
            body.append("")
            body.append("Tests:")
            for t in tests_json:
                body.append(f"  [{fmt(t['score'])}/{fmt(t['max_score'])}] {t['name']}: {t['output'].splitlines()[0]}")
                for line in t["output"].splitlines()[1:]:
                    body.append("      " + line)
            if not_graded:
                body.append("  Not graded (they pass without your code, so they give no points): "
                            + "; ".join(not_graded))
        if any(r.status == "not-run" and "GPU" in r.message for r in results.values()):
            body.append("")
            body.append("NOTE: the GPU tests could not run on the grading machine; they score 0 here and are not "
                        "counted as passed. Your instructor regrades them on a machine with a GPU.")
        feedback = "\n".join(head + body).rstrip() + "\n"
        output = "\n".join(head[1:3] + [l for l in fb if l]).strip()
        results_json = {"score": score, "execution_time": round(seconds, 1), "output": output,
                        "visibility": "visible", "stdout_visibility": "hidden", "tests": tests_json,
                        "extra_data": {"lab": self.lab, "build": build_status, "max_score": max_score}}
        d = out_dir / safe_name(name)
        d.mkdir(parents=True, exist_ok=True)
        atomic_write(d / "results.json", json.dumps(results_json, indent=2) + "\n")
        atomic_write(d / "feedback.txt", feedback)
        return {"student": name, "build": build_status, "score": score, "max": max_score, "tests": rows,
                "flags": flags, "statuses": {n: (results.get(n).status if results.get(n) else "not-run") for n in order},
                "seconds": seconds}


def fmt(x):
    return f"{x:g}"


def timeout_text(a, auto):
    if a.test_timeout:
        return f"{a.test_timeout:g} s"
    lo, hi = (min(auto.values()), max(auto.values())) if auto else (AUTO_TIMEOUT_MAX, AUTO_TIMEOUT_MAX)
    span = f"{lo:.0f} s" if round(lo) == round(hi) else f"{lo:.0f}-{hi:.0f} s"
    return f"{span} (auto: {AUTO_TIMEOUT_FACTOR:g}x the reference's time here, {AUTO_TIMEOUT_MIN:g}-{AUTO_TIMEOUT_MAX:g} s)"


def safe_name(name):
    # Letters and digits of any script stay (a class of 张三, 李四 must not all become "__"); what a shell or
    # a file system could trip on (spaces, quotes, slashes, control characters) becomes "_".
    return re.sub(r"[^\w.@+-]", "_", name).encode("utf-8")[:200].decode("utf-8", "ignore") or "_"


def spreadsheet_cell(text):
    # A cell that begins with =, +, -, @ (or a tab or carriage return) is a formula to Excel, LibreOffice and
    # Google Sheets: a student folder named =HYPERLINK(...) would run in the instructor's spreadsheet. Such a
    # cell gets a leading apostrophe, the spreadsheets' mark for "this is text" (they do not show it).
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def atomic_write(path, text):
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def main(argv):
    a = parse_args(argv)
    lab = a.lab
    labdir = REPO / "labs" / f"lab{lab}"
    if not labdir.is_dir():
        have = sorted(int(p.name[3:]) for p in (REPO / "labs").glob("lab*") if p.name[3:].isdigit())
        known = re.search(r"^LABS\s*:=\s*(.*)$", (REPO / "Makefile").read_text(), re.M)
        if known and f"lab{lab}" in known.group(1).split():
            raise UsageError(f"lab {lab} has no starter code yet (no labs/lab{lab}/): labs with a starter: "
                             f"{', '.join(map(str, have))}")
        raise UsageError(f"unknown lab {lab}: labs here are {', '.join(map(str, have))}")
    sub = Path(a.submissions).expanduser()
    students, stray = student_folders(sub)
    out = check_out(Path(a.out or f"grades-lab{lab}").expanduser(), sub)
    seen = {}
    for st in students:
        key = safe_name(st.name)
        if key in seen:
            raise UsageError(f"student folders '{seen[key]}' and '{st.name}' would share the output folder "
                             f"'{key}': rename one")
        seen[key] = st.name
    weights_path = Path(a.weights) if a.weights else REPO / "tools" / "grading" / f"lab{lab}.weights"
    if a.weights and not weights_path.is_file():
        raise UsageError(f"weights file {weights_path} does not exist")
    given_weights = read_weights(weights_path) if weights_path.is_file() else {}
    # A GPU lab: GPU code to write, or GPU tests (lab 10's models are CPU code
    # checked against GPU measurements); it needs a build with CUDA.
    gpu_lab = any(labdir.glob("*.cu")) or any((REPO / "tests" / "gpu").glob(f"test_lab{lab}.cpp"))
    nvcc = shutil.which("nvcc") or (os.access("/usr/local/cuda/bin/nvcc", os.X_OK) and "/usr/local/cuda/bin/nvcc")
    if gpu_lab and not nvcc:
        raise UsageError(f"lab {lab} is a GPU lab and this machine has no CUDA toolkit (nvcc): grade it on a machine "
                         "with nvcc and an NVIDIA GPU")
    for tool in ("make", "bash", "g++"):
        if not shutil.which(tool):
            raise UsageError(f"'{tool}' is not installed here: grading builds the code (see README.md)")
    if a.work and not Path(a.work).is_dir():
        raise UsageError(f"--work {a.work} is not a folder")

    started = datetime.datetime.now(datetime.timezone.utc)
    work = Path(tempfile.mkdtemp(prefix="mmlab-grade-", dir=a.work)).resolve()
    staging = None
    try:
        requested = a.sandbox
        mode = probe_sandbox(a.sandbox, work)
        a.sandbox = mode
        limits = Limits(a, gpu_lab)
        cores = os.cpu_count() or 1
        build_jobs = a.build_jobs or max(1, cores // a.jobs)
        say(f"== grading lab {lab}: {len(students)} submission(s) in {sub} -> {out}")
        notes = []
        if mode != "full":
            why = "as asked with --sandbox" if requested != "auto" else "user namespaces are unavailable here"
            notes.append(f"containment: '{mode}' only ({'no network, ' if mode == 'net' else ''}no read-only "
                         f"file system, no PID namespace): {why}; grade untrusted code inside a container or VM "
                         "(handouts/grading.md)")
        if os.geteuid() == 0:
            notes.append("running as root: the process-count limit is not enforced for root, and a submission "
                         "could do more harm; run the grader as an ordinary user")
        for n in notes:
            warn(n)

        # The starter tree, built once; every student starts from a copy of it.
        base = work / "base"
        base.mkdir()
        skip = [sub.resolve(), out, work]
        commit, snap_notes = snapshot_sources(base, lab, skip)
        for n in snap_notes:
            warn(n)
        lab_files = sorted(p.name for p in (base / "labs" / f"lab{lab}").iterdir() if p.is_file())
        reused = seed_build(base / "build", a.fresh_build, gpu_lab)
        say(f"building the starter tree ({'from this checkout' + chr(39) + 's build/' if reused else 'from scratch'};"
            f" containment: {mode}) ...")
        cfg_env = {"TMPDIR": str(base / ".tmp")}
        (base / ".tmp").mkdir()
        if not reused and not gpu_lab:
            cfg_env["CUDA"] = "0"  # the CPU labs need no nvcc: a much shorter build
        log = work / "base-build.log"
        rc, timed_out, _ = run_limited(["make", f"-j{cores}", "--no-print-directory", "build/bin/mmlab-tests",
                                        "build/bin/mmlab"], base, base, log, 3600, limits, 7200, clean_env(cfg_env),
                                       fsize_kb=BUILD_FILE_KB)
        if rc != 0 or timed_out:
            raise SetupError(f"the starter tree does not build here:\n{tail_lines(read_head(log), 20)}")
        tests, gpu_note = list_tests(base, lab, work, limits)
        if not tests:
            raise UsageError(f"lab {lab} has no test cases (test suites lab{lab} and gpu-lab{lab} are empty): "
                             "nothing to grade")
        names = [n for s, n in tests]
        unknown = [n for n in given_weights if n not in names]
        if unknown:
            raise UsageError(f"{weights_path} names a test case lab {lab} does not have: '{unknown[0]}' "
                             f"(see: build/bin/mmlab-tests --test-suite=lab{lab} --list-test-cases)")
        gpu_tests = [n for s, n in tests if s.startswith("gpu-")]
        if gpu_tests and gpu_note:
            warn(f"no usable GPU here ({gpu_note}): the {len(gpu_tests)} GPU test(s) of lab {lab} score 0 for "
                 "everyone; grade on a GPU machine for the real scores")

        # Calibration: a test the untouched starter passes gives free points
        # (a peer row, a test of the harness): weight 0 unless the weights file
        # says otherwise. A test the reference fails here is broken on this machine.
        say("checking the tests on the untouched starter and on the reference solution ...")
        cal = base / ".grade-calibration"
        cal.mkdir()
        weights, free = {}, set()
        calib_lines = []
        auto_timeouts = {}  # test case -> seconds, from the reference's time here
        for i, (s, n) in enumerate(tests):
            weights[n] = given_weights.get(n, 1.0)
            if n in gpu_tests and gpu_note:
                continue
            st = run_test_case(base, [f"lab{lab}", f"gpu-lab{lab}"], s, n, cal, f"s{i}", limits, 300, gpu_note)
            ref = run_test_case(base, [f"lab{lab}", f"gpu-lab{lab}"], s, n, cal, f"r{i}", limits, 300, gpu_note,
                                impl="reference")
            auto_timeouts[n] = min(AUTO_TIMEOUT_MAX, max(AUTO_TIMEOUT_MIN, AUTO_TIMEOUT_FACTOR * ref.seconds))
            if st.status == "passed" and n not in given_weights:
                weights[n] = 0.0
                free.add(n)
                calib_lines.append(f"'{n}' passes on the untouched starter: not graded (weight 0; give it points in "
                                   f"{weights_path.relative_to(REPO) if REPO in weights_path.parents else weights_path} "
                                   "to grade it anyway)")
            if ref.status != "passed":
                calib_lines.append(f"WARNING: the reference solution fails '{n}' on this machine ({ref.status}: "
                                   f"{ref.message.splitlines()[0] if ref.message else ''}): its points are unreliable here")
        for line in calib_lines:
            say("  " + line)
        shutil.rmtree(cal)
        (base / ".grade-list.xml").unlink()

        # Output goes to a staging folder beside OUT, renamed into place at the end.
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        grader = Grader(a, lab, work, base, lab_files, tests, weights, free, gpu_note, limits, build_jobs, auto_timeouts)
        say(f"grading {len(students)} submission(s), {a.jobs} at a time; {len(tests)} test case(s), "
            f"{fmt(sum(weights[n] for n in names) + (a.perf_points if a.perf else 0))} points; time limit per test "
            f"case {timeout_text(a, auto_timeouts)} ...")
        rows = [None] * len(students)
        lock = threading.Lock()

        def one(i):
            row = grader.grade(i, students[i], staging)
            if STOPPING.is_set():
                return  # interrupted: this student's row is not a grade
            with lock:
                rows[i] = row
                say(f"  {row['student']:<24} {fmt(row['score']):>6} / {fmt(row['max']):<6} {row['build']:<13}"
                    f" {row['seconds']:6.1f} s" + ("   [review: " + "; ".join(row["flags"]) + "]" if row["flags"] else ""))

        ex = concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs)
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

        order = names + (["__perf__"] if a.perf else [])
        header = ["student", "build", "score", "max"] + \
                 names + (["performance target"] if a.perf else []) + ["review"]
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        for r in rows:
            w.writerow([spreadsheet_cell(r["student"]), r["build"], fmt(r["score"]), fmt(r["max"])] +
                       [cell if cell == "" else fmt(cell) for cell in (r["tests"].get(n, 0) for n in order)]
                       + [spreadsheet_cell("; ".join(r["flags"]))])
        atomic_write(staging / "grades.csv", buf.getvalue())

        summary = [f"matmul-lab grading, lab {lab}, {started.strftime('%Y-%m-%d %H:%M UTC')}",
                   f"code: {REPO} at {commit or '(not a git checkout)'}; containment: {mode}; "
                   f"limits: build {a.build_timeout:g} s, test case {timeout_text(a, auto_timeouts)}, tests per student "
                   f"{a.student_budget:g} s, memory {a.memory_mb if not gpu_lab else 'unlimited'} MiB, "
                   f"output {a.max_output_mb} MiB", f"weights: {weights_path if given_weights else 'all 1'}"]
        summary += ["note: " + n for n in notes + snap_notes + calib_lines]
        if stray:
            summary.append("ignored (not folders): " + ", ".join(stray))
        if gpu_tests and gpu_note:
            summary.append(f"GPU tests NOT RUN here ({gpu_note}): {len(gpu_tests)} test(s) scored 0 for everyone")
        summary.append("")
        summary.append("per test case: students who passed")
        for n in order:
            passed = sum(1 for r in rows if r["statuses"].get(n) == "passed")
            label = f"performance target" if n == "__perf__" else n
            if n in free:
                summary.append(f"     not graded  {label} (passes on the untouched starter)")
            else:
                summary.append(f"  {passed:4d} / {len(rows)}  {label}")
        summary.append("")
        summary.append("per student:")
        for r in rows:
            summary.append(f"  {r['student']:<24} {fmt(r['score']):>6} / {fmt(r['max']):<6} {r['build']}")
            for fl in r["flags"]:
                summary.append(f"      review: {fl}")
        atomic_write(staging / "summary.txt", "\n".join(summary) + "\n")

        # Publish: OUT is replaced as a whole (an earlier run's output goes).
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.rename(out, old / "x")
            os.rename(staging, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(staging, out)
        staging = None
        total = sum(r["score"] for r in rows)
        say("")
        say("\n".join(summary[summary.index("per test case: students who passed"):]))
        say("")
        say(f"wrote {out}/grades.csv, {out}/summary.txt and results.json + feedback.txt for {len(rows)} student(s)"
            f" (class average {fmt(round(total / max(1, len(rows)), 2))} / {fmt(rows[0]['max'] if rows else 0)})")
        return 0
    finally:
        kill_running()
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if a.keep:
            say(f"(kept the build trees in {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)


def interrupted(signum, frame):
    raise KeyboardInterrupt  # SIGTERM, SIGHUP: the same clean exit as Ctrl-C (nothing written, nothing left running)


if __name__ == "__main__":
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, interrupted)
    for stream in (sys.stdout, sys.stderr):  # a student's name a terminal cannot show must not stop the grading
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        sys.exit(2)
    except SetupError as e:
        print(f"{PROG}: cannot grade: {e}", file=sys.stderr)
        sys.exit(1)
    except (KeyboardInterrupt, Stopped):
        print(f"{PROG}: interrupted: nothing written", file=sys.stderr)
        sys.exit(130)
