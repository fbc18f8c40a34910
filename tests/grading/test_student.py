#!/usr/bin/env python3
"""Unit tests of tools/grading/student.py: one student graded from their
folder to results.json and feedback.txt, in a made-up tree (fake_tree.py:
a Makefile that builds in no time, a test program that passes when the
student's kernel says WORKS). Covers the files used, taken from the starter
and flagged; a failed build; no lab files; the time budget; tests not graded;
a GPU test not run; --perf; a grader error kept to that student, also one
while writing their files; file names that are not UTF-8 or hold escape
sequences. A few seconds."""
import sys
sys.dont_write_bytecode = True
import argparse
import json
import os
import shutil
from pathlib import Path

import checks
from checks import Scratch, check
from fake_tree import LAB, make_tree
from grading import student
from grading.sandbox import Limits

TESTS = [("labX", "kernel works"), ("labX", "fails"), ("labX", "passes"), ("gpu-labX", "on the GPU")]


def setup(tmp, **options):
    o = dict(build_timeout=60, student_budget=100, perf=False, perf_points=1.0, perf_threads=1, perf_size=None,
             keep=False)
    o.update(options)
    base = tmp / "base"
    if not base.exists():
        make_tree(base)
    (tmp / "work").mkdir(exist_ok=True)
    return student.ClassSetup(argparse.Namespace(**o), LAB, tmp / "work", base, ["kernel.cpp", "kernel.h"], TESTS,
                              {"kernel works": 2.0, "fails": 1.0, "passes": 0.0, "on the GPU": 1.0}, {"passes"},
                              "no CUDA device here", Limits("none", 0, 64 * 1024, 1000), 1,
                              {n: 10.0 for _, n in TESTS})


def grade(tmp, s, name, files, index=0):
    folder = tmp / "subs" / name
    folder.mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    out = tmp / "out"
    row = student.grade_student(s, index, folder, out)
    d = out / name
    results = json.loads((d / "results.json").read_text())
    return row, results, (d / "feedback.txt").read_text()


def good(tmp):
    s = setup(tmp)
    row, results, feedback = grade(tmp, s, "alice", {f"{LAB.folder}/kernel.cpp": "// WORKS\nint x = system(\"ls\");\n",
                                                     f"{LAB.folder}/notes.md": "mine"})
    check(row.build == "built" and row.score == 2.0 and row.max == 4.0,
          "a working kernel: built; its test's 2 points of 4 (2 + 1 failing + 1 GPU not run; the free test left out)",
          f"{row.build} {row.score}/{row.max}")
    check(row.cells == {"kernel works": 2.0, "fails": 0.0, "passes": "", "on the GPU": 0.0},
          "cells: points, and an empty cell for the test the starter passes", str(row.cells))
    check(f"Files graded from your submission (alice/{LAB.folder}): kernel.cpp" in feedback
          and "Not submitted, so the starter version was used (it has no task, so nothing is lost): kernel.h" in feedback
          and "Ignored (not part of lab 99; only its own files are graded): notes.md" in feedback,
          "feedback: the file used, the header taken from the starter (no task lost), the extra ignored", feedback)
    check(row.flags == ['kernel.cpp: starts processes (system()'], "review flag for system(), for the instructor",
          str(row.flags))
    check("system" not in feedback and "review" not in feedback, "review flags never reach the student's feedback")
    gpu = next(t for t in results["tests"] if t["name"] == "on the GPU")
    check(gpu["score"] == 0 and gpu["output"].startswith("NOT RUN: GPU test not run") and "NOTE: the GPU tests" in feedback,
          "a GPU test not run here: 0, and the note that the instructor regrades it", str(gpu))
    check(not (tmp / "work" / "student0000").exists(), "the student's build tree is removed afterwards")
    row, _, feedback = grade(tmp, s, "bob", {"kernel.cpp": "// TODO: write the kernel\n"}, index=1)
    check(row.score == 0 and "kernel works: FAILED" in feedback, "the starter's kernel handed in: 0")


def missing_and_broken(tmp):
    s = setup(tmp)
    row, results, feedback = grade(tmp, s, "carol", {"lab99/kernel.h": "#pragma once\n"})
    check("Missing, so the starter version was used (its tasks fail): kernel.cpp" in feedback,
          "a file with a task not handed in: its tasks fail, says the feedback", feedback)
    row, results, feedback = grade(tmp, s, "dan", {"kernel.cpp": "BROKEN\n"}, index=2)
    check(row.build == "build failed" and row.score == 0 and "BUILD FAILED" in feedback
          and "labs/lab99/kernel.cpp:2:1: error: 'BROKEN' was not declared" in feedback and "CXX" not in feedback,
          "a build that fails: build failed, 0, the compiler's error quoted", feedback)
    check(all(t["output"] == "NOT RUN: the code did not build" for t in results["tests"]),
          "every test: not run, the code did not build")
    row, results, feedback = grade(tmp, s, "erin", {"README.txt": "see the zip", "handin.zip": "PK"}, index=3)
    check(row.build == "no files" and row.score == 0 and "No lab 99 files found" in feedback
          and "handin.zip" in feedback and any("handin.zip" in f for f in row.flags),
          "no lab files, an archive: no files, the archive named to the student and in the review", feedback)


def budget_and_perf(tmp):
    row, results, _ = grade(tmp, setup(tmp, student_budget=0.001), "fay", {"kernel.cpp": "// WORKS\n"})
    outputs = [t["output"] for t in results["tests"]]
    check(outputs[0].startswith("TIMEOUT: did not finish within the test's 0.001 s limit")
          and all("used up its time budget (0.001 s of tests)" in o for o in outputs[1:]),
          "a test's limit is at most what is left of the student's budget; once it is spent, the rest are not run",
          str(outputs))
    s = setup(tmp, perf=True, perf_points=2.0)
    s.weights["fails"] = 0.0
    s.weights["on the GPU"] = 0.0
    row, results, _ = grade(tmp, s, "gus", {"kernel.cpp": "// WORKS\n"}, index=1)
    perf = results["tests"][-1]
    check(perf["name"] == "performance target (mmlab lab 99)" and perf["score"] == 2.0 and row.score == 4.0
          and row.cells["__perf__"] == 2.0, "--perf: the target scored as one more test", str(perf))
    row, results, feedback = grade(tmp, s, "hil", {"kernel.cpp": "// WORKS BUSY\n"}, index=2)
    perf = results["tests"][-1]
    check(row.score == 2.0 and row.max == 4.0 and row.cells["__perf__"] == "inconclusive"
          and row.statuses["__perf__"] == "inconclusive" and perf["score"] == 0
          and perf["output"].startswith("INCONCLUSIVE: machine busy (load")
          and results["extra_data"]["withheld"] == 2.0 and "2 points withheld" in results["output"]
          and "Score: 2 / 4 (2 points withheld" in feedback and "[withheld/2] performance target" in feedback
          and any(f.startswith("performance target inconclusive twice (machine busy: load") for f in row.flags),
          "--perf inconclusive twice: the points withheld and said so (feedback, results.json, review flag)",
          feedback + str(row.flags))


def grader_error(tmp):
    s = setup(tmp)
    shutil.rmtree(s.base / LAB.folder)  # the starter tree is damaged: copying it in works, reading it does not
    row, results, feedback = grade(tmp, s, "hal", {"kernel.cpp": "// WORKS\n"})
    check(row.build == "grader error" and row.score == 0 and "The grading script failed on this submission" in feedback
          and row.flags and row.flags[-1].startswith("grader error: "),
          "a grader error: that student only, 'grader error', said to both", f"{row.build} {row.flags} {feedback}")
    check(all(t["output"] == "NOT RUN: grading error" for t in results["tests"]), "its tests: not run, grading error")


def odd_names_and_write_errors(tmp):
    s = setup(tmp)
    folder = tmp / "subs" / "ivy"
    (folder / LAB.folder).mkdir(parents=True)
    (folder / LAB.folder / "kernel.cpp").write_text("// WORKS\n")
    for raw in (b"caf\xe9\xff.cpp", b"\x1b[2J\x1b[1;1H6 | 6 ok\n.cpp", b"=HYPERLINK(1)"):
        Path(os.fsdecode(os.fsencode(folder / LAB.folder) + b"/" + raw)).write_text("x")
    row = student.grade_student(s, 0, folder, tmp / "out")
    raw = (tmp / "out" / "ivy" / "feedback.txt").read_bytes()
    text = raw.decode("utf-8")
    check(row.build == "built" and row.score == 2.0 and "caf\\xe9\\xff.cpp" in text and "\x1b" not in text
          and "\\x1b[2J" in text and "6 | 6 ok\\n.cpp" in text, "file names not UTF-8 or with escape sequences: graded, named escaped in the "
          "feedback", f"{row.build} {row.score} {text[-400:]!r}")
    real = student.outputs.write_student_files

    def failing(*a, **k):
        raise OSError(28, "No space left on device")
    student.outputs.write_student_files = failing
    try:
        row = student.grade_student(s, 1, folder, tmp / "out2")
    finally:
        student.outputs.write_student_files = real
    fb = (tmp / "out2" / "ivy" / "feedback.txt").read_text()
    check(row.build == "grader error" and row.score == 0 and row.max == 4.0 and "No space left" in row.flags[0]
          and "failed while writing your results" in fb,
          "writing a student's files fails: that student's grader error with the reason, a short feedback",
          f"{row} {fb!r}")


with Scratch() as tmp:
    good(tmp / "a")
with Scratch() as tmp:
    odd_names_and_write_errors(tmp)
with Scratch() as tmp:
    missing_and_broken(tmp)
with Scratch() as tmp:
    budget_and_perf(tmp)
with Scratch() as tmp:
    grader_error(tmp)
checks.finish("student")
