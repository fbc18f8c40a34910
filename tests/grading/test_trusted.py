#!/usr/bin/env python3
"""Unit test of the trusted programs' separation (issue 24, broken behaviour 1;
environment.py): the real checker, built here (make checker runner LAB=1),
runs one lab 1 test case through testcases.run_checked_test_case with the
grader's environment as a CUDA image has it - PATH with an empty entry,
LD_LIBRARY_PATH ending in ':' (both: "the current folder") - on a tree where
the student's code planted a libdl.so.2 (a stub with glibc's version names and
a constructor: the loader takes it for the real one) and a `bash` script.
Neither may run: before the fix the library ran as root in the checker and
the bash as the grading user outside the sandbox. Where the checker is not
built, says 'skip' with the reason. Seconds."""
import sys
sys.dont_write_bytecode = True
import os
import shutil
import subprocess

import checks
from checks import REPO, Scratch, check
from grading import checker, sandbox, testcases

PLANTED_C = r'''#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void) {
    FILE* f = fopen("MARK", "w");
    if (f) { fprintf(f, "uid %d\n", (int)getuid()); fclose(f); }
}
void placeholder(void) {}
'''
VERSIONS = "GLIBC_2.2.5 { global: placeholder; local: *; };\nGLIBC_2.3.3 { } GLIBC_2.2.5;\n" \
           "GLIBC_2.3.4 { } GLIBC_2.3.3;\nGLIBC_2.34 { } GLIBC_2.3.4;\n"


def plant(tree, marks):
    """What a student's earlier test case can write into its own tree."""
    (tree / "planted.c").write_text(PLANTED_C.replace("MARK", str(marks["lib"])))
    (tree / "planted.map").write_text(VERSIONS)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(tree / "libdl.so.2"), str(tree / "planted.c"),
                    "-Wl,-soname,libdl.so.2", f"-Wl,--version-script={tree / 'planted.map'}"], check=True)
    (tree / "bash").write_text(f"#!/bin/sh\nid -u > {marks['bash']}\nexec /bin/bash \"$@\"\n")
    os.chmod(tree / "bash", 0o755)


def planted_never_run(tmp):
    programs = checker.Programs(REPO, 1)
    if not programs.checker_tests.is_file() or not programs.runner(REPO).is_file():
        print("skip - planted libraries and programs: the checker and runner of lab 1 are not built here "
              "(make checker runner LAB=1)", flush=True)
        return
    if not shutil.which("cc"):
        print("skip - planted libraries and programs: no C compiler (cc) to build the planted library", flush=True)
        return
    marks = {"lib": tmp / "MARK-lib", "bash": tmp / "MARK-bash"}
    tree = tmp / "tree"
    (tree / "build/bin/lab1").mkdir(parents=True)
    (tree / ".tmp").mkdir()
    shutil.copy2(programs.runner(REPO), programs.runner(tree))
    plant(tree, marks)
    script = tmp / "sandbox.sh"
    shutil.copyfile(sandbox.SANDBOX, script)
    os.chmod(script, 0o755)
    out = tmp / "out"
    out.mkdir()
    limits = sandbox.Limits("none", 0, 65536, 256, user=sandbox.grading_user(), script=script)
    saved = dict(os.environ)
    os.environ.update(PATH=":" + os.environ.get("PATH", "/usr/bin:/bin"), LD_LIBRARY_PATH=":")
    try:
        result, _ = testcases.run_checked_test_case(programs, tree, ["lab1"], "lab1", "lab1.ikj", out, 0, limits, 30,
                                                    "")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    # The starter's runner leaves C unwritten: the checker ran the test and said so (it was not replaced).
    check(result.status == "failed" and "never written" in result.message, "the checker ran the test case",
          f"{result.status}: {result.message[:300]}")
    for what, mark in marks.items():
        check(not mark.exists(), f"the {'library' if what == 'lib' else 'bash'} planted in the student's tree never "
              "ran (trusted programs start in / with PATH and LD_LIBRARY_PATH without empty entries)",
              mark.read_text() if mark.exists() else "")


with Scratch() as tmp:
    os.chmod(tmp, 0o777)  # the grading user reaches the tree; the planted bash (as that user) could write its mark
    planted_never_run(tmp)
checks.finish("trusted")
