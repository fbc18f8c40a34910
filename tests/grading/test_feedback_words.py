#!/usr/bin/env python3
"""Reads feedback.txt as a student would (handouts/grading.md, "feedback.txt"):
what the checker reports about a runner's failure (the texts of
harness/runner/runner_process.cpp and checker.cpp) turned into the student's
words, and whole feedback files of made-up submissions (fake_tree.py), each
checked by checks.read_as_student: no line over FEEDBACK_WIDTH characters,
none of the grader's own names for its parts (checks.INTERNAL), no phrase said twice
in one test's verdict, no word of how the code was contained. Also the
unchanged starter, named so. No build; seconds."""
import sys
sys.dont_write_bytecode = True
import argparse
import json

import checks
from checks import FEEDBACK_WIDTH, Scratch, check, read_as_student
from fake_tree import LAB, STARTER_HEADER, STARTER_KERNEL, make_tree
from grading import outputs, score, student, testcases
from grading.sandbox import Limits
from grading.testcases import TestResult

def report(tmp, name, exception):
    """A checker's report of test `name`: the test threw `exception` (a runner's failure), as doctest writes it."""
    path = tmp / f"{len(list(tmp.iterdir()))}.xml"
    path.write_text(f'<doctest><TestSuite name="labX"><TestCase name="{name}" filename="t.cpp" line="1">'
                    f'<Exception crash="false">{exception}</Exception>'
                    '<OverallResultsAsserts successes="0" failures="0" test_case_success="false"/>'
                    "</TestCase></TestSuite></doctest>")
    return path


# (the checker's text, the status, what the student reads) for each way a runner fails.
WHERE = ", while running lab1.ijk at M x N x K = 64 x 64 x 64"
FAILURES = [
    ("the runner did not answer within the test's time limit (30 s): an endless loop, or far too slow" + WHERE,
     "timeout", "did not finish within the test's 30 s limit (an endless loop, or far too slow) while running "
                "lab1.ijk at 64x64x64"),
    ("the runner crashed: SIGSEGV (segmentation fault) while answering" + WHERE,
     "crashed", "your code ended with SIGSEGV (segmentation fault) while running lab1.ijk at 64x64x64"),
    ("the runner crashed: SIGKILL (a limit: CPU time or memory) before answering" + WHERE,
     "crashed", "your code ended with SIGKILL (a limit: CPU time or memory) while running lab1.ijk at 64x64x64"),
    ("the runner exited (exit status 0) before answering" + WHERE,
     "crashed", "your code exited (exit status 0) before returning while running lab1.ijk at 64x64x64"),
    ("the runner closed its end of the channel while answering" + WHERE,
     "crashed", "your code closed the connection the test calls it through while running lab1.ijk at 64x64x64"),
    ('the runner broke the protocol: it answered "x" to "run lab1.ijk"' + WHERE,
     "crashed", 'your code broke the protocol the test calls it through: it answered "x" to "run lab1.ijk" '
                "while running lab1.ijk at 64x64x64"),
    ("the runner crashed: SIGSEGV (segmentation fault) while answering" + WHERE + " (earlier in this test)",
     "crashed", "your code ended with SIGSEGV (segmentation fault) while running lab1.ijk at 64x64x64 "
                "(earlier in this test)"),
]


def runner_failures(tmp):
    """Each runner failure the checker reports: its status, and the student's words, said once."""
    results = {}
    for i, (said, status, read) in enumerate(FAILURES):
        name = f"t{i}"
        r, direct = testcases._checked_result(1, False, 0.5, tmp / "none.log", report(tmp, name, said), "labX",
                                              name, 30, None)
        check(r.status == status and r.message == read and not direct,
              f"the checker's '{said[:50]}...': {status.upper()}: {read[:60]}...", f"{r.status}: {r.message}")
        results[name] = r
    card = score.score_student(list(results), results, {n: 1.0 for n in results}, set(), 1.0)
    text = outputs.feedback_text(1, "bob", ["Files graded from your submission (bob): loop_orders.cpp"], card, "built",
                                 results)
    wrong = read_as_student(text)
    check(not wrong, "a feedback.txt of every runner failure reads as a student's: no internal word, nothing twice",
          "\n".join(wrong) + "\n" + text)
    check(read_as_student("  [0/1] t: TIMEOUT: did not finish in 30 s (an endless loop, or far too slow): the runner "
                          "did not answer within the test's time limit (30 s): an endless loop, or far too slow"),
          "the reader finds the old time-out message wrong (a repeated phrase, 'runner')")


def wrapping():
    check(FEEDBACK_WIDTH == outputs.FEEDBACK_WIDTH, "the reader's width is the grader's (checks.py, outputs.py)")
    long = "x.cpp:3:1: error: " + "a very long compiler message " * 20
    results = {"t": TestResult("t", "failed", "wrong at 1^3: " + "C[0][0] " * 60)}
    card = score.score_student(["t"], results, {"t": 1.0}, set(), 1.0)
    text = outputs.feedback_text(1, "bob", [long], card, "built", results)
    lines = text.splitlines()
    check(all(len(l) <= outputs.FEEDBACK_WIDTH for l in lines), "long lines are wrapped at the feedback's width",
          str([len(l) for l in lines]))
    check(" ".join(long.split()) in " ".join(text.split()),
          "wrapping keeps every word", text)
    check(outputs.wrap_line("  " + "y" * 450) == ["  " + "y" * 198, "    " + "y" * 196, "    " + "y" * 56],
          "a word longer than a line is cut, the rest indented", str(outputs.wrap_line("  " + "y" * 450)))


def graded_files(tmp):
    """Whole feedback files of made-up submissions, read as a student would; the starter handed in unchanged."""
    o = argparse.Namespace(build_timeout=60, student_budget=100, perf=False, perf_points=1.0, perf_threads=1,
                           perf_size=None, keep=False)
    tests = [("labX", "kernel works"), ("labX", "fails"), ("labX", "hangs in the test")]
    base = make_tree(tmp / "base")
    (tmp / "work").mkdir()
    s = student.ClassSetup(o, LAB, tmp / "work", base, ["kernel.cpp", "kernel.h"], tests,
                           {n: 1.0 for _, n in tests}, set(), "no CUDA device here",
                           Limits("none", 0, 64 * 1024, 1000), 1, {n: 1.0 for _, n in tests})
    subs = {"works": {"kernel.cpp": "// WORKS\n"}, "broken": {"kernel.cpp": "BROKEN\n"},
            "starter": {"kernel.cpp": STARTER_KERNEL, "kernel.h": STARTER_HEADER},
            "starter-crlf": {"kernel.cpp": STARTER_KERNEL.replace("\n", "\r\n") + "\n\n"},
            "nothing": {"notes.txt": "see my e-mail"}}
    rows = {}
    for i, (name, files) in enumerate(subs.items()):
        folder = tmp / "subs" / name
        folder.mkdir(parents=True)
        for rel, text in files.items():
            (folder / rel).write_bytes(text.encode())
        rows[name] = student.grade_student(s, i, folder, tmp / "out")
        text = (tmp / "out" / name / "feedback.txt").read_text()
        output = json.loads((tmp / "out" / name / "results.json").read_text())["output"]
        wrong = read_as_student(text) + read_as_student(output)
        check(not wrong and "Sandbox" not in text and "Sandbox" not in output,
              f"{name}: its feedback.txt and Gradescope output read as a student's (no sandbox line)",
              "\n".join(wrong) + "\n" + text)
    builds = {n: r.build for n, r in rows.items()}
    check(builds == {"works": "built", "broken": "build failed", "starter": "built", "starter-crlf": "built",
                     "nothing": "no files"}, "the build column says what became of the build, not a verdict",
          str(builds))
    for name in ("starter", "starter-crlf"):
        text = (tmp / "out" / name / "feedback.txt").read_text()
        check(student.STARTER_UNCHANGED in rows[name].flags and f"These files are {student.STARTER_UNCHANGED}" in text,
              f"{name}: the starter handed in unchanged (line endings aside) is named so, to the student and in the "
              "review column", f"{rows[name].flags} {text}")
    check(all(student.STARTER_UNCHANGED not in rows[n].flags for n in ("works", "broken", "nothing")),
          "a changed file, or none at all, is not called the starter", str({n: r.flags for n, r in rows.items()}))
    line = outputs.progress_line(rows["starter"], 1, 5)
    check(line.startswith("[1/5] starter: built, 0 / 3 points,") and "[review: the starter, unchanged]" in line,
          "the progress line: 'starter: built, 0 / 3 points', the review flag", line)


with Scratch() as tmp:
    runner_failures(tmp)
wrapping()
with Scratch() as tmp:
    graded_files(tmp)
checks.finish("feedback words")
