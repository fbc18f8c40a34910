#!/usr/bin/env python3
"""`make student-release OUT=dir`: the tree a course publishes to its students.

  - bad OUT (an existing non-empty folder, an unwritable place): one line, exit 2, nothing written
  - the release holds no solutions/ folder, no grader, and no line of any
    reference solution's code: every line of solutions/ that appears nowhere
    else in the repository (an "answer line") is searched for in every file
    of the release
  - prebuilt/ holds the reference libraries and declarations-only headers
  - `make lab1` in the release (CUDA=0: the CPU build) builds, runs the lab's
    tests on the untouched starter, and fails them with the starter's message;
    `make lab1 SOLUTION=1` there shows the reference rows from the prebuilt
    library and passes
Prints one line per check; exits 1 if any fails. A few minutes (two builds).
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
SOURCE_SUFFIXES = {".cpp", ".cu", ".h", ".cuh"}


def check(cond, what, detail=""):
    print(("ok   - " if cond else "FAIL - ") + what + ("" if cond or not detail else f"\n       {detail}"), flush=True)
    if not cond:
        failures.append(what)


def code_lines(path):
    """The lines of a source file that carry code (not comments, includes, braces alone)."""
    out = []
    for line in path.read_text(errors="replace").splitlines():
        s = " ".join(line.split())
        if len(s) < 24 or s.startswith(("//", "/*", "*", "#include", "#pragma")):
            continue
        out.append(s)
    return out


def answer_lines():
    """Lines of solutions/' code (.cpp, .cu, *_impl headers) that no other tracked file of the
    repository has; the declarations-only headers of solutions/ ship by design, so theirs do not count."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True).stdout.split()
    elsewhere = set()
    for f in tracked:
        p = REPO / f
        shipped_header = f.startswith("solutions/") and p.suffix in {".h", ".cuh"} and "_impl." not in f
        if (not f.startswith("solutions/") or shipped_header) and p.suffix in SOURCE_SUFFIXES and p.is_file():
            elsewhere.update(code_lines(p))
    answers = {}
    for f in tracked:
        p = REPO / f
        if f.startswith("solutions/") and p.suffix in {".cpp", ".cu"} or f.endswith(("_impl.h", "_impl.cuh")):
            for s in code_lines(p):
                if s not in elsewhere:
                    answers.setdefault(s, f)
    return answers


def main():
    scratch = Path(tempfile.mkdtemp(prefix="mmlab-release-"))
    try:
        busy = scratch / "busy"
        busy.mkdir()
        (busy / "x").write_text("x")
        for out, what in ((busy, "an existing non-empty OUT"), (Path("/proc/no-such-place/rel"), "an unwritable OUT")):
            p = subprocess.run(["make", "-s", "--no-print-directory", "student-release", f"OUT={out}"], cwd=REPO,
                               capture_output=True, text=True)
            lines = [l for l in p.stderr.splitlines() if l.startswith("student-release:")]
            check(p.returncode != 0 and len(lines) == 1 and not (busy / "labs").exists(),
                  f"student-release with {what}: one line, an error exit, nothing written", p.stderr[-300:])

        rel = scratch / "release"
        p = subprocess.run(["make", "-s", "--no-print-directory", "student-release", f"OUT={rel}"], cwd=REPO,
                           capture_output=True, text=True)
        check(p.returncode == 0 and (rel / "Makefile").is_file(), "make student-release writes the tree",
              p.stderr[-1500:])
        if p.returncode != 0:
            return
        print("       " + [l for l in p.stderr.splitlines() if "wrote" in l][-1])

        check(not (rel / "solutions").exists(), "no solutions/ folder")
        check(not (rel / "tools" / "grade.py").exists() and not (rel / "tools" / "grading").exists(),
              "no grader (tools/grade.py, tools/grading/)")
        check((rel / "prebuilt" / "lib" / "libmmlab-reference.a").is_file(), "prebuilt/lib/libmmlab-reference.a")
        check((rel / "prebuilt" / "include" / "solutions" / "lab1" / "loop_orders.h").is_file(),
              "prebuilt/include/solutions/: the references' declarations")

        answers = answer_lines()
        leaks = []
        for p in rel.rglob("*"):
            if p.is_file() and p.suffix in SOURCE_SUFFIXES | {".md", ".txt", ".py", ".sh"}:
                for s in code_lines(p):
                    if s in answers:
                        leaks.append(f"{p.relative_to(rel)}: '{s[:70]}' (from {answers[s]})")
        check(len(answers) > 100, f"the answer lines to look for were found ({len(answers)})")
        check(not leaks, "no line of a reference solution is in the release",
              "; ".join(leaks[:5]) + (f" (+{len(leaks) - 5} more)" if len(leaks) > 5 else ""))
        symbols = subprocess.run(["nm", "-C", str(rel / "prebuilt" / "lib" / "libmmlab-reference.a")],
                                 capture_output=True, text=True).stdout
        check("reference::lab1::matmul_ijk" in symbols, "the CPU library defines the references (lab1.ijk)")

        env = {k: v for k, v in os.environ.items() if k not in ("MML_IMPL", "MAKEFLAGS", "MFLAGS")}
        p = subprocess.run(["make", "--no-print-directory", "-j2", "CUDA=0", "lab1", "SIZE=64"], cwd=rel, env=env,
                           capture_output=True, text=True, timeout=3600)
        text = p.stdout + p.stderr
        check("LINK  build/bin/mmlab-tests" in text, "make lab1 in the release builds", text[-1500:])
        check(p.returncode != 0 and "the tests above failed" in text and "was never written" in text,
              "make lab1 there fails on the untouched starter, saying why", text[-800:])
        p = subprocess.run(["make", "--no-print-directory", "-j2", "CUDA=0", "lab1", "SIZE=64", "SOLUTION=1"], cwd=rel,
                           env=env, capture_output=True, text=True, timeout=3600)
        text = p.stdout + p.stderr
        check(re.search(r"lab1\.ijk\s+reference\s+64\^3.*ok", text) is not None and "not in this build" not in text,
              "make lab1 SOLUTION=1 there: the reference rows run from the prebuilt library", text[-800:])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print(f"release tests: {len(failures)} failed")
        return 1
    print("release tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
