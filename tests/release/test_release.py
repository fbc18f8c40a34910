#!/usr/bin/env python3
"""`make student-release OUT=dir`: the tree a course publishes to its students.

  - bad OUT (an existing non-empty folder, an unwritable place): one line, exit 2, nothing written
  - the release holds no solutions/ folder, no grader, and no line of any
    reference solution's code: every line of solutions/ that appears nowhere
    else in the repository (an "answer line") is searched for in every file
    of the release
  - no answer shipped as given code: no function body in the release outside
    the starters (labs/labN/ give parts of their answers' files by design) is
    mostly solutions/' lines (lab 3's recursion, which lab 4 is given, was
    once in labs/common/ as source; it ships compiled)
  - README.md is the students' (tools/release/README.student.md), and no file
    of the release names a path the release lacks (solutions/..., the grader,
    the instructors' tests: release_paths.py, beside this file), a make target it
    cannot run (make grade: its grader is left out) or a section its file lacks
    (README, "Plots": the release's README, not the repository's); every markdown
    link of its README, docs/ and handouts resolves, #anchor included
    (tests/structure/readers.py's link check); `make help` there lists only
    targets and paths the release has
  - LICENSE ships (and CITATION.cff); the instructors' docs/instructors.md does not
  - prebuilt/ holds the reference libraries, the given-compiled library
    (libmmlab-given.a: lab 3's recursion, defined there and nowhere else) and
    declarations-only headers
  - `make lab1` in the release (CUDA=0: the CPU build) builds, runs the lab's
    tests on the untouched starter, and fails them with the starter's message;
    neither it nor `make check LAB=1` gives advice that contradicts configure
    (tests/setup/test_messages.sh --contradictions: no "install the CUDA
    toolkit" in a CUDA=0 build, no "OpenMPI was not found" where MPI is);
    `make lab1 SOLUTION=1` there shows the reference rows from the prebuilt
    library and passes
  - lab 4 there links lab 3's recursion from libmmlab-given.a: its test
    "lab4.strassen_par is bit for bit lab 3's Strassen" passes on the
    reference and fails on the untouched starter
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
MESSAGES = REPO / "tests" / "setup" / "test_messages.sh"  # the rules for advice that contradicts configure
sys.path.insert(0, str(Path(__file__).resolve().parent))
from release_paths import dangling, dead_references, help_findings  # noqa: E402
sys.path.insert(0, str(REPO / "tests" / "structure"))
from readers import link_findings  # noqa: E402
failures = []
SOURCE_SUFFIXES = {".cpp", ".cu", ".h", ".cuh"}


def check(cond, what, detail=""):
    print(("ok   - " if cond else "FAIL - ") + what + ("" if cond or not detail else f"\n       {detail}"), flush=True)
    if not cond:
        failures.append(what)


def without_comments(text):
    """C++ text with its comments blanked (block comments keep their line breaks)."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: "" if m.group(0).startswith("//") else re.sub(r"[^\n]", " ", m.group(0)),
                  text, flags=re.S)


def code_line(line):
    """One line as compared: whitespace collapsed; None for one that carries too little code to tell
    (short ones, braces alone, includes)."""
    s = " ".join(line.split())
    return None if len(s) < 24 or s.startswith(("#include", "#pragma")) else s


def code_lines(path):
    """The lines of a source file that carry code (comments left out)."""
    return [s for s in map(code_line, without_comments(path.read_text(errors="replace")).splitlines()) if s]


FUNCTION_HEAD = re.compile(r"\)\s*(?:const\s*|noexcept\s*|override\s*|final\s*|mutable\s*|->\s*[\w:<>*&\s]+)*$")
CONTROL_HEAD = re.compile(r"^(?:if|for|while|switch|catch|do|else)\b")


def function_bodies(path):
    """(name, code lines of the body) of every function a source file defines outside
    another function (member functions included; lambdas and blocks inside a function are its body)."""
    text = without_comments(path.read_text(errors="replace"))
    stack, out, head_start = [], [], 0
    for i, ch in enumerate(text):
        if ch == "{":
            head = text[head_start:i].strip()
            is_function = ("function" not in (k for k, _ in stack) and FUNCTION_HEAD.search(head) is not None
                           and not CONTROL_HEAD.match(head))
            stack.append(("function" if is_function else "block", (head, i)))
        elif ch == "}" and stack:
            kind, (head, start) = stack.pop()
            if kind == "function" and "function" not in (k for k, _ in stack):
                body = [s for s in map(code_line, text[start + 1:i].splitlines()) if s]
                name = re.search(r"([\w:~]+)\s*\(", head)
                out.append((name.group(1) if name else " ".join(head.split())[:60], body))
        if ch in ";{}":
            head_start = i + 1
    return out


def given_answers(rel, solution_lines):
    """Function bodies of the release, outside the starters, that are mostly lines of solutions/' code
    (3 code lines or more, half of them or more): an answer shipped as source under another name.
    The starters are left to the answer-line check: they give parts of their answers' files by design, and a
    line a starter gives (a device query, a bounds check) is public, so it does not count as an answer's."""
    given = set()
    for p in sorted(rel.rglob("*")):
        if p.is_file() and p.suffix in SOURCE_SUFFIXES and re.match(r"labs/lab\d", p.relative_to(rel).as_posix()):
            given.update(code_lines(p))
    found = []
    for p in sorted(rel.rglob("*")):
        r = p.relative_to(rel).as_posix()
        if not p.is_file() or p.suffix not in SOURCE_SUFFIXES or re.match(r"labs/lab\d", r):
            continue
        for head, body in function_bodies(p):
            shared = [s for s in body if s in solution_lines and s not in given]
            if len(body) >= 3 and 2 * len(shared) >= len(body):
                found.append(f"{r}: {head} ({len(shared)} of its {len(body)} lines are solutions/' code)")
    return found


def solution_code():
    """(every code line of solutions/' code: .cpp, .cu, *_impl headers; the answer lines: those of them
    that no other tracked file of the repository has). The declarations-only headers of solutions/ ship
    by design, so theirs do not count."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True).stdout.split()
    elsewhere = set()
    for f in tracked:
        p = REPO / f
        shipped_header = f.startswith("solutions/") and p.suffix in {".h", ".cuh"} and "_impl." not in f
        if (not f.startswith("solutions/") or shipped_header) and p.suffix in SOURCE_SUFFIXES and p.is_file():
            elsewhere.update(code_lines(p))
    lines, answers = set(), {}
    for f in tracked:
        p = REPO / f
        if (f.startswith("solutions/") and p.suffix in {".cpp", ".cu"} or f.endswith(("_impl.h", "_impl.cuh"))) \
                and p.is_file():
            for s in code_lines(p):
                lines.add(s)
                if s not in elsewhere:
                    answers.setdefault(s, f)
    return lines, answers


def main():
    scratch = Path(tempfile.mkdtemp(prefix="mmlab-release-"))
    try:
        # The path finder itself, on a made-up tree: it must see a dead path, and only that one.
        fake = scratch / "fake"
        (fake / "handouts").mkdir(parents=True)
        (fake / "labs" / "lab1").mkdir(parents=True)
        (fake / "labs" / "lab1" / "a.cpp").write_text("// see handouts/lab1.md\n")
        (fake / "handouts" / "lab1.md").write_text(
            "Read labs/lab1/a.cpp, then `solutions/lab1/a.cpp` (the reference's).\n"
            "The instructors' tools/grade.py grades it; labs/labN/ is yours; build/bin/mmlab runs it.\n")
        found = dangling(fake)
        check(found == [("handouts/lab1.md", 1, "solutions/lab1/a.cpp")],
              "release_paths.py finds a path the tree lacks, and passes what it has or marks as the instructors'",
              str(found))
        # ... and the make targets and sections they name: one dead of each, beside live ones.
        (fake / "Makefile").write_text(".PHONY: lab1 check\n")
        (fake / "README.md").write_text("# Your labs\n\n## The order\n\nRun `make check LAB=1`, then "
                                        "`make grade SUBMISSIONS=x`.\n")
        (fake / "labs" / "lab1" / "b.cpp").write_text('// README, "The order"; README.md, "Plots"\n')
        refs = dead_references(fake)
        check([(r, n) for r, n, _ in refs] == [("README.md", 5), ("labs/lab1/b.cpp", 1)]
              and "make grade" in refs[0][2] and "Plots" in refs[1][2],
              "release_paths.py finds a target the release cannot run and a section its README lacks, and only those",
              str(refs))
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
        check((rel / "README.md").read_text() == (REPO / "tools" / "release" / "README.student.md").read_text()
              and not (rel / "ARCHITECTURE.md").exists(),
              "README.md is the students' (tools/release/README.student.md); no ARCHITECTURE.md")
        check(not (rel / ".ci").exists(), "no .ci/ (the repository's CI runs make test-all, the instructors' tier)")
        check((rel / "LICENSE").is_file() and (rel / "LICENSE").read_text() == (REPO / "LICENSE").read_text()
              and (rel / "CITATION.cff").is_file(), "LICENSE ships (the MIT licence of code and handouts), and CITATION.cff")
        check(not (rel / "docs" / "instructors.md").exists() and (rel / "docs" / "setup.md").is_file(),
              "docs/setup.md ships (mmlab --help points there); the instructors' docs/instructors.md does not")
        refs = dead_references(rel)
        check(not refs, "no file of the release names a make target it cannot run or a section it lacks",
              "; ".join(f"{r}:{n}: {what}" for r, n, what in refs[:8]) + (f" (+{len(refs) - 8} more)" if len(refs) > 8 else ""))
        links = link_findings(rel)
        check(not links, "every markdown link of the release's README, docs/ and handouts resolves (#anchors too)",
              "; ".join(links[:8]))
        p_help = subprocess.run(["make", "-s", "--no-print-directory", "help"], cwd=rel, capture_output=True, text=True)
        listed = help_findings(rel, p_help.stdout)
        check(p_help.returncode == 0 and "make lab" in p_help.stdout and not listed,
              "make help in the release lists only targets and paths the release has",
              "; ".join(f"line {n}: {what}" for _, n, what in listed[:8]) + p_help.stderr[-300:])
        dead = dangling(rel)
        check(not dead, "no file of the release names a path the release lacks",
              "; ".join(f"{r}:{n}: {path}" for r, n, path in dead[:8]) + (f" (+{len(dead) - 8} more)" if len(dead) > 8 else ""))
        check((rel / "prebuilt" / "lib" / "libmmlab-reference.a").is_file(), "prebuilt/lib/libmmlab-reference.a")
        check((rel / "prebuilt" / "include" / "solutions" / "lab1" / "loop_orders.h").is_file(),
              "prebuilt/include/solutions/: the references' declarations")

        solution_lines, answers = solution_code()
        leaks = []
        for p in rel.rglob("*"):
            if p.is_file() and p.suffix in SOURCE_SUFFIXES | {".md", ".txt", ".py", ".sh"}:
                for s in code_lines(p):
                    if s in answers:
                        leaks.append(f"{p.relative_to(rel)}: '{s[:70]}' (from {answers[s]})")
        check(len(answers) > 100, f"the answer lines to look for were found ({len(answers)})")
        check(not leaks, "no line of a reference solution is in the release",
              "; ".join(leaks[:5]) + (f" (+{len(leaks) - 5} more)" if len(leaks) > 5 else ""))
        copies = given_answers(rel, solution_lines)
        check(not copies, "no answer shipped as source under another name (given code that is solutions/' code)",
              "; ".join(copies[:5]) + (f" (+{len(copies) - 5} more)" if len(copies) > 5 else ""))
        check(not list(rel.rglob("strassen_recursion.cpp")),
              "lab 3's recursion is not in the release as source (labs/common/strassen_recursion.h only)")
        symbols = subprocess.run(["nm", "-C", str(rel / "prebuilt" / "lib" / "libmmlab-reference.a")],
                                 capture_output=True, text=True).stdout
        check("reference::lab1::matmul_ijk" in symbols, "the CPU library defines the references (lab1.ijk)")
        given = subprocess.run(["nm", "-C", "--defined-only", str(rel / "prebuilt" / "lib" / "libmmlab-given.a")],
                               capture_output=True, text=True).stdout
        defined_in_refs = subprocess.run(["nm", "-C", "--defined-only",
                                          str(rel / "prebuilt" / "lib" / "libmmlab-reference.a")],
                                         capture_output=True, text=True).stdout
        check(" T common::lab3::compute_product(" in given and "common::lab3::compute_product(" not in defined_in_refs
              and "reference::" not in given,
              "prebuilt/lib/libmmlab-given.a defines lab 3's recursion (compute_product), the reference library "
              "does not, and it holds no reference", given[-500:])

        env = {k: v for k, v in os.environ.items() if k not in ("MML_IMPL", "MAKEFLAGS", "MFLAGS")}
        p = subprocess.run(["make", "--no-print-directory", "-j2", "CUDA=0", "lab1", "SIZE=64"], cwd=rel, env=env,
                           capture_output=True, text=True, timeout=3600)
        text = p.stdout + p.stderr
        check("LINK  build/bin/mmlab-tests" in text, "make lab1 in the release builds", text[-1500:])
        check(p.returncode != 0 and "the tests above failed" in text and "was never written" in text,
              "make lab1 there fails on the untouched starter, saying why", text[-800:])
        # Its advice is true of how the release was configured (tests/setup/test_messages.sh's rules);
        # the rules first on a made-up contradiction, so that this check can fail.
        (scratch / "off.mk").write_text("CUDA_CHOSEN_OFF := 1\nHAVE_CUDA := 0\nHAVE_MPI := 1\n")
        said = subprocess.run(["bash", str(MESSAGES), "--contradictions", str(scratch / "off.mk")], cwd=REPO,
                              input="ok\nnvcc was not found: install the CUDA toolkit\n", capture_output=True, text=True)
        check(said.returncode == 1 and "install the CUDA toolkit" in said.stdout,
              "test_messages.sh --contradictions finds advice that contradicts a config.mk", said.stdout + said.stderr)
        p_check = subprocess.run(["make", "--no-print-directory", "check", "LAB=1"], cwd=rel, env=env,
                                 capture_output=True, text=True, timeout=600)
        for what, out in (("make lab1", text), ("make check LAB=1", p_check.stdout + p_check.stderr)):
            said = subprocess.run(["bash", str(MESSAGES), "--contradictions", str(rel / "build" / "config.mk")],
                                  cwd=REPO, input=out, capture_output=True, text=True)
            check(said.returncode == 0, f"{what} in the release (CUDA=0) gives no advice that contradicts configure",
                  said.stdout + said.stderr)
        p = subprocess.run(["make", "--no-print-directory", "-j2", "CUDA=0", "lab1", "SIZE=64", "SOLUTION=1"], cwd=rel,
                           env=env, capture_output=True, text=True, timeout=3600)
        text = p.stdout + p.stderr
        check(re.search(r"lab1\.ijk\s+reference\s+64\^3.*ok", text) is not None and "not in this build" not in text,
              "make lab1 SOLUTION=1 there: the reference rows run from the prebuilt library", text[-800:])
        # Lab 4 links lab 3's recursion from prebuilt/lib/libmmlab-given.a (the build above linked it).
        given_test = "-tc=lab4.strassen_par is bit for bit lab 3's Strassen*"
        for impl, passes in (("reference", True), ("student", False)):
            p = subprocess.run([str(rel / "build" / "bin" / "mmlab-tests"), given_test], cwd=rel,
                               env=dict(env, MML_IMPL=impl), capture_output=True, text=True, timeout=600)
            ran = re.search(r"test cases:\s+1 \|", p.stdout) is not None
            check(ran and (p.returncode == 0) == passes,
                  f"lab 4 there, on the {impl}: its test against lab 3's given-compiled Strassen "
                  f"{'passes' if passes else 'fails (the starter is unwritten)'}", (p.stdout + p.stderr)[-800:])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print(f"release tests: {len(failures)} failed")
        return 1
    print("release tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
