#!/usr/bin/env python3
"""Unit tests of tools/grading/build.py that need no compiler: the feedback
for a failed build (the compiler's first error, progress lines and the
temporary tree's path left out, capped), a call into code given compiled to
a later lab named as such, what a student's tree keeps of build/lib/, and the
snapshot of this checkout (the starter's lab folder as in git HEAD, the
submissions and output folders left out); a build stopped by one of its limits
named as such, a header read from outside the tree refused, and a student's
build limited in address space in GPU labs too (tests/grading/
test_build_attacks.py grades such submissions). A second or so."""
import sys
sys.dont_write_bytecode = True
import subprocess
from pathlib import Path

import checks
from checks import REPO, Scratch, check
from grading import build, catalog, checker
from grading.sandbox import Limits


def compiler_errors():
    tree = "/tmp/mmlab-grade-x/student0001"
    log = "\n".join(["  CXX   labs/labX/kernel.cpp", "  NVCC  labs/labX/k.cu", "  LINK  build/bin/mmlab",
                     f"{tree}/labs/labX/kernel.cpp: In function 'void f()':",
                     f"{tree}/labs/labX/kernel.cpp:12:5: warning: unused variable",
                     f"{tree}/labs/labX/kernel.cpp:14:22: error: expected ';' before '}}' token",
                     "   14 |     float sum = 0.0f", "make: *** [Makefile:120: x.o] Error 1"])
    text = build.compiler_errors(log, tree)
    lines = text.splitlines()
    check(lines[0].startswith("BUILD FAILED: your code did not compile") and "(first 5 lines from the first error)" in lines[0],
          "the feedback says the build failed and how much it quotes", lines[0])
    check(lines[1:] == ["  labs/labX/kernel.cpp: In function 'void f()':", "  labs/labX/kernel.cpp:12:5: warning: unused variable",
                        "  labs/labX/kernel.cpp:14:22: error: expected ';' before '}' token", "     14 |     float sum = 0.0f",
                        "  make: *** [Makefile:120: x.o] Error 1"],
          "from two lines before the first error; no CXX/NVCC/LINK lines; paths relative to the repository", str(lines))
    long = "\n".join(["error: first"] + [f"note: line {i}" for i in range(100)])
    lines = build.compiler_errors(long, "/t").splitlines()
    check(len(lines) == 1 + build.BUILD_ERROR_LINES + 1 and lines[-1] == "  [... 61 more lines ...]",
          f"at most {build.BUILD_ERROR_LINES} lines, then how many more", lines[-1])
    lines = build.compiler_errors("ld: undefined reference to `main'\ncollect2: ld returned 1 exit status", "/t").splitlines()
    check(len(lines) == 3, "no line says 'error': the log from its start", str(lines))


def snapshot(tmp):
    labs = [l for l in catalog.read_catalog() if (REPO / l.folder).is_dir()]
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0 or not labs:
        print("note - not a git checkout (or no lab with a starter): the snapshot checks are not made")
        return
    lab = labs[0]
    dest = tmp / "base"
    dest.mkdir()
    commit, notes = build.snapshot_sources(dest, lab.folder, [REPO / "handouts"])
    check(commit == head.stdout.strip(), "the snapshot names the commit graded")
    check((dest / "Makefile").is_file() and (dest / "labs" / "catalog.txt").is_file() and not (dest / "build").exists()
          and not (dest / ".git").exists(), "sources are copied; build/ and .git are not")
    check(not (dest / "handouts").exists(), "a folder to skip (the submissions, OUT, the work folder) is left out")
    for f in sorted((dest / lab.folder).iterdir()):
        blob = subprocess.run(["git", "-C", str(REPO), "show", f"HEAD:{lab.folder}/{f.name}"], capture_output=True)
        check(blob.returncode == 0 and blob.stdout == f.read_bytes(), f"{lab.folder}/{f.name} is git HEAD's (the starter)")
    check(all("uncommitted" in n or "git HEAD" in n for n in notes), "the snapshot's notes are about git only", str(notes))


def given_code():
    """Code given compiled to a later lab (the Makefile's GIVEN_COMPILED): named in a lab 3 link failure, and
    its library of the lab graded is the only thing of build/lib/ a student's tree keeps."""
    log = ("strassen.cpp:(.text+0x2a): undefined reference to `common::lab3::compute_product(int, "
           "common::lab3::Quadrants const&, float*, float*, long)'\ncollect2: error: ld returned 1 exit status")
    check(build.reference_called(log) == "common::lab3::compute_product(int, common::lab3::Quadrants const&, float*, "
          "float*, long)", "a call into lab 3's recursion, given only to lab 4 on, is named", str(build.reference_called(log)))
    check(build.reference_called("undefined reference to `student::lab3::recurse(int)'") is None,
          "a missing function of the student's own is not called a reference")
    base = Path("/t/base")
    ignore = build.student_tree_ignore(base, checker.Programs(base, 4))
    lib = ["libmmlab-given-lab4.a", "libmmlab-given-lab5.a", "libmmlab-given.a", "libmmlab-reference.a",
           "libmmlab-core.a"]
    check(ignore(str(base / "build" / "lib"), lib) == set(lib) - {"libmmlab-given-lab4.a"},
          "a lab 4 student's tree keeps build/lib/libmmlab-given-lab4.a, no other library")
    check(ignore(str(base / "build" / "obj"), ["solutions", "labs"]) == {"solutions"},
          "... and none of solutions/' objects (the given code's source and objects stay hidden)")


def limit_reasons():
    """The feedback's first words for a build one of its limits stopped (what gcc, collect2 and cc1plus print
    then, from g++ 12 under ulimit -f / -v), and none for an ordinary error."""
    limits = Limits("bwrap", 4096 * 1024, 0, 256)
    for log, words in (
            ("g++: internal compiler error: File size limit exceeded signal terminated program as", "build output too large"),
            ("collect2: fatal error: ld terminated with signal 25 [File size limit exceeded]", "build output too large"),
            ("cc1plus: out of memory allocating 4294967312 bytes after a total of 610304 bytes", "ran out of memory"),
            ("g++: fatal error: Killed signal terminated program cc1plus", "ran out of memory"),
            ("g++: fatal error: CPU time limit exceeded signal terminated program cc1plus", "ran out of CPU time")):
        why = build.build_limit_reason(log, limits) or ""
        check(why.startswith(words) or words in why, f"'{log[:60]}...': '{words}'", why)
    check("256 MiB" in build.build_limit_reason("File size limit exceeded", limits),
          "the size limit named in MiB", build.build_limit_reason("File size limit exceeded", limits))
    check(build.build_limit_reason("loop_orders.cpp:3:1: error: expected ';'\nmake: *** Error 1", limits) is None,
          "an ordinary compile error is not a limit")
    gpu = Limits("bwrap", 0, 0, 256, memory_mb=2048)
    check(build.build_limits(gpu).mem_kb == 2048 * 1024 and build.build_limits(limits) == limits,
          "a GPU lab's build (no address-space limit for its tests) gets --memory-mb of address space a process")


def outside_reads(tmp):
    """read_outside: a header the compiler read for an object of the lab's folder, outside the tree and the
    system's and toolchain's folders (as the dependency files list it), is named; nothing else."""
    tree = tmp / "student0001"
    obj = tree / "build" / "obj"
    (obj / "labs" / "lab1").mkdir(parents=True)
    (obj / "harness").mkdir()
    dep = obj / "labs" / "lab1" / "loop_orders.cpp.d"

    def deps(*files, where=dep):
        where.write_text(f"{where.with_suffix('.o')}: " + " \\\n ".join(files) + "\n" +
                         "".join(f"{f}:\n" for f in files[1:]))
        return build.read_outside(tree, 1, (Path("/apps/gcc-13"),))

    mine = ["labs/lab1/loop_orders.cpp", "labs/lab1/loop_orders.h", "harness/stage.h"]
    check(deps(*mine, "/usr/include/c++/12/vector", "/opt/cuda/include/x.h", "/apps/gcc-13/include/y.h",
               str(tree / "labs" / "lab1" / "loop_orders.h")) is None,
          "the tree's own files, the system's and the toolchain's: nothing outside")
    check(deps(*mine, "/srv/class/alice/labs/lab1/loop_orders.h") == "/srv/class/alice/labs/lab1/loop_orders.h",
          "an absolute path outside the tree is named")
    check(deps(*mine, "labs/lab1/../../../base/solutions/lab1/loop_orders.h") ==
          "labs/lab1/../../../base/solutions/lab1/loop_orders.h", "a ../ path out of the tree is named")
    check(deps(*mine, "labs/lab1/../../harness/stage.h") is None, "a ../ path that stays in the tree is not")
    deps(*mine)
    check(deps("harness/x.cpp", "labs/lab1/loop_orders.h", "/home/bob/secret.h", where=obj / "harness" / "x.cpp.d")
          == "/home/bob/secret.h", "... also in another object that includes the lab's header")
    check(deps("harness/x.cpp", "/home/bob/secret.h", where=obj / "harness" / "x.cpp.d") is None,
          "an object that does not depend on the lab's folder is not the student's (the starter's own build)")


compiler_errors()
given_code()
limit_reasons()
with Scratch() as tmp:
    snapshot(tmp)
with Scratch() as tmp:
    outside_reads(tmp)
checks.finish("build")
