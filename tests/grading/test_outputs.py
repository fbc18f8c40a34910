#!/usr/bin/env python3
"""Unit tests of tools/grading/outputs.py: grades.csv (cells a spreadsheet
would run as formulas made text, empty cells for tests not graded), the
fields of Gradescope's results.json (output_format, the leaderboard of
--perf), feedback.txt, output folder names, atomic
writes, the checks on OUT and OUT replaced as a whole, the progress line
with its time left, the wall-time line. No build."""
import sys
sys.dont_write_bytecode = True
import csv
import io
import json

import checks
from checks import Scratch, check, raises
from grading import outputs, score
from grading.common import UsageError
from grading.testcases import TestResult


def row(student, score_, cells, flags=(), statuses=None):
    return outputs.StudentRow(student, "built", score_, 3.0, cells, list(flags), statuses or {}, 1.5)


def grades_csv():
    rows = [row("=cmd|' /C calc'!A0", 2.0, {"t1": 2.0, "t2": 0.0, "free": ""}, ["a.cpp: starts processes (system()"]),
            row("bob, jr.", 3.0, {"t1": 2.0, "t2": 1.0, "free": ""}, ["-flag", "second"])]
    text = outputs.grades_csv(rows, ["t1", "t2", "free"], perf=False)
    parsed = list(csv.reader(io.StringIO(text)))
    check(parsed[0] == ["student", "build", "score", "max", "t1", "t2", "free", "review"],
          "header: student, build, score, max, a column per test case, review", str(parsed[0]))
    check(parsed[1][0] == "'=cmd|' /C calc'!A0" and parsed[2][0] == "bob, jr.",
          "a student named like a formula is text; a comma is quoted, not a new column", str(parsed[1:]))
    check(parsed[1][2:7] == ["2", "3", "2", "0", ""], "scores as people write them (2, not 2.0); not graded: empty",
          str(parsed[1]))
    check(parsed[2][7] == "'-flag; second", "review flags joined with '; ', a leading '-' made text", parsed[2][7])
    check(text.endswith("\n") and "\r" not in text, "lines end in \\n only")
    perf_rows = [row("a", 1.0, {"t1": 0.0, score.PERF_KEY: 1.0})]
    parsed = list(csv.reader(io.StringIO(outputs.grades_csv(perf_rows, ["t1"], perf=True))))
    check(parsed[0][4:6] == ["t1", "performance target"] and parsed[1][4:6] == ["0", "1"],
          "with --perf: a 'performance target' column after the tests", str(parsed))
    parsed = list(csv.reader(io.StringIO(outputs.grades_csv([row("a", 0.0, {})], ["t1"], perf=False))))
    check(parsed[1][4] == "0", "a test missing from a row (grader error before it) counts 0", str(parsed[1]))


def card_and_results():
    results = {"t1": TestResult("t1", "passed"), "t2": TestResult("t2", "failed", "wrong at 1^3\nC[0][0] never written"),
               "g": TestResult("g", "not-run", "GPU test not run on the grading machine (no GPU)"),
               "free": TestResult("free", "not-run", "not graded")}
    card = score.score_student(["t1", "t2", "g", "free"], results, {"t1": 2.0, "t2": 1.0, "g": 0.5, "free": 0.0},
                               {"free"}, 1.0)
    return card, results


def results_json():
    card, _ = card_and_results()
    notes = ["Files graded from your submission (alice): k.cpp", "", "Ignored (...): README.md"]
    r = outputs.results_json(6, notes, card, "built", 12.345)
    check({"score", "execution_time", "output", "visibility", "stdout_visibility", "tests", "extra_data"} <= set(r),
          "results.json has Gradescope's top-level fields", str(sorted(r)))
    check(r["score"] == 2.0 and r["execution_time"] == 12.3 and r["visibility"] == "visible"
          and r["stdout_visibility"] == "hidden", "score, execution time (0.1 s), visibility", str(r))
    check(r["output"] == "Score: 2 / 3.5\nBuild: built\nFiles graded from your submission (alice): k.cpp\nIgnored (...): README.md",
          "output: score, build and the notes (blank lines dropped)", r["output"])
    check([t["name"] for t in r["tests"]] == ["t1", "t2", "g"], "tests: the graded ones only (not the free one)")
    t2 = r["tests"][1]
    check(set(t2) == {"name", "number", "score", "max_score", "status", "output", "visibility"}
          and t2["number"] == "2" and t2["score"] == 0 and t2["max_score"] == 1.0 and t2["status"] == "failed"
          and t2["output"].startswith("FAILED: wrong at 1^3") and t2["visibility"] == "visible",
          "a test: name, number (a string), score, max_score, status, output (the reason), visibility", str(t2))
    check(r["tests"][0]["status"] == "passed" and r["tests"][2]["status"] == "failed",
          "status is passed or failed (not run counts as failed)")
    check(r["extra_data"] == {"lab": 6, "build": "built", "max_score": 3.5, "withheld": 0.0},
          str(r["extra_data"]))
    json.dumps(r)  # serialisable as it is


def feedback():
    card, results = card_and_results()
    text = outputs.feedback_text(6, "alice", ["Files graded from your submission (alice): k.cpp"], card, "built", results)
    lines = text.splitlines()
    check(lines[:3] == ["matmul-lab, lab 6: alice", "Score: 2 / 3.5", "Build: built"], "head: lab, student, score, build",
          str(lines[:3]))
    check("  [0/1] t2: FAILED: wrong at 1^3" in lines and "      C[0][0] never written" in lines,
          "a test's first line beside its points, the rest indented", text)
    check(any(l.startswith("  Not graded (they pass without your code") and "free" in l for l in lines),
          "the tests not graded are named")
    check("NOTE: the GPU tests could not run on the grading machine" in text, "a GPU test not run: the note to the student")
    check(text.endswith("\n") and not text.endswith("\n\n"), "one newline at the end")
    no_files = outputs.feedback_text(1, "bob", ["No lab 1 files found"], score.score_student([], {}, {}, set(), 1), "no files",
                                     {})
    check("Tests:" not in no_files and "No lab 1 files found" in no_files, "no results: no test list")


def names():
    check(outputs.safe_name("张三") == "张三" and outputs.safe_name("Zoë O'Brien") == "Zoë_O_Brien",
          "folder names: letters of any script kept, quotes and spaces become _")
    check(outputs.safe_name("../../etc") == ".._.._etc" and outputs.safe_name("") == "_", "no slashes; never empty")
    long = outputs.safe_name("名" * 100)
    check(len(long.encode("utf-8")) <= 200 and long == "名" * 66, "cut at 200 bytes without half a character", long)
    for n in outputs.CLASS_FILES + ("grades.csv.tmp", "Summary.TXT", ".", ".."):
        check(outputs.safe_name(n) == "_" + n, f"a student folder named {n!r} does not take the class's file: "
              f"{outputs.safe_name(n)!r}")
    check(outputs.safe_name("grades.csv2") == "grades.csv2" and outputs.safe_name("similarity") == "similarity",
          "a name that only starts like a class file stays as it is")


def writing(tmp):
    f = tmp / "grades.csv"
    outputs.atomic_write(f, "a,b\n")
    outputs.atomic_write(f, "c,d\n")
    check(f.read_text() == "c,d\n" and not (tmp / "grades.csv.tmp").exists(), "atomic write: the new text, no .tmp left")
    card, results = card_and_results()
    outputs.write_student_files(tmp / "stage", 6, "a/b", [], card, "built", results, 1.0)
    d = tmp / "stage" / "a_b"
    check(json.loads((d / "results.json").read_text())["score"] == 2.0 and (d / "feedback.txt").is_file(),
          "results.json and feedback.txt in the student's safe-named folder")


def out_folder(tmp):
    sub = tmp / "subs"
    (sub / "alice").mkdir(parents=True)
    e = raises(UsageError, outputs.check_out, sub / "out", sub)
    check(e is not None and "inside the submissions folder" in str(e), "OUT inside the submissions: refused", str(e))
    e = raises(UsageError, outputs.check_out, sub, sub)
    check(e is not None, "OUT = the submissions folder: refused")
    (tmp / "file").write_text("x")
    e = raises(UsageError, outputs.check_out, tmp / "file", sub)
    check(e is not None and "not a folder" in str(e), "OUT that is a file: refused", str(e))
    (tmp / "other").mkdir()
    (tmp / "other" / "thesis.tex").write_text("x")
    e = raises(UsageError, outputs.check_out, tmp / "other", sub)
    check(e is not None and "holds other files" in str(e), "OUT holding other files: refused", str(e))
    check(outputs.check_out(tmp / "new" / "deeper", sub) == (tmp / "new" / "deeper").resolve()
          and not (tmp / "new").exists(), "a new OUT (even two levels) is fine, and nothing is created yet")
    earlier = tmp / "earlier"
    earlier.mkdir()
    (earlier / "grades.csv").write_text("old\n")
    (earlier / "old-student").mkdir()
    check(outputs.check_out(earlier, sub) == earlier.resolve() and not list(earlier.glob(".grade-probe-*")),
          "an earlier run's OUT is fine (its probe folder removed)")
    staging = tmp / "staging"
    staging.mkdir()
    (staging / "grades.csv").write_text("new\n")
    outputs.publish(staging, earlier)
    check((earlier / "grades.csv").read_text() == "new\n" and not (earlier / "old-student").exists()
          and not staging.exists() and not list(tmp.glob(".earlier.old-*")),
          "publishing replaces OUT as a whole; no old or staging folder left")


def class_lines():
    rows = [row("alice", 3.0, {}, ["x.cpp: inline assembly (asm)"], {"t1": "passed", "free": "not-run"}),
            row("bob", 0.0, {}, [], {"t1": "failed"})]
    lines = outputs.class_results(["t1", "free", score.PERF_KEY], {"free"}, rows)
    check(lines[0] == "per test case: students who passed" and "     1 / 2  t1" in lines
          and "     not graded  free (passes on the untouched starter)" in lines and "     0 / 2  performance target" in lines,
          "summary: per test case, passed / students; tests not graded said so", "\n".join(lines))
    check("      review: x.cpp: inline assembly (asm)" in lines, "summary: review flags under the student")
    check(not any("INCONCLUSIVE" in l for l in lines), "no inconclusive run: no such line")
    rows.append(row("carl", 1.0, {"t1": 1.0, score.PERF_KEY: "inconclusive"},
                    ["performance target inconclusive twice (machine busy: load 3.0 on 2 cores): 1 point(s) withheld"],
                    {"t1": "passed", score.PERF_KEY: "inconclusive"}))
    lines = outputs.class_results(["t1", score.PERF_KEY], set(), rows)
    check("     0 / 3  performance target (1 inconclusive)" in lines
          and any(l.startswith("  INCONCLUSIVE: 1 student(s) with points withheld") and l.endswith("quiet machine: carl")
                  for l in lines)
          and any("machine busy: load 3.0 on 2 cores" in l for l in lines),
          "summary: the inconclusive targets counted, who to grade again, the load in their review line", "\n".join(lines))
    parsed = list(csv.reader(io.StringIO(outputs.grades_csv(rows[2:], ["t1"], perf=True))))
    check(parsed[1][4:6] == ["1", "inconclusive"] and "load 3.0" in parsed[1][6],
          "grades.csv: the withheld cell says inconclusive (text, not a 0), the review cell the load", str(parsed))
    check(outputs.progress_line(rows[0]).endswith("[review: x.cpp: inline assembly (asm)]")
          and "3 / 3" in outputs.progress_line(rows[0]), "the progress line: score, max, flags")


def progress_and_time():
    r = row("tab\tnew\nline", 6.0, {})
    line = outputs.progress_line(r, 3, 14, 125.4)
    check(line.startswith("[3/14] tab\\tnew\\nline: built, 6 / 3 points, 1.5 s — ETA 02:05"),
          "[k/N] student: build, score — ETA mm:ss, a newline in a name shown escaped (one student, one line)", line)
    check(outputs.clock(3725) == "1:02:05" and outputs.clock(59.6) == "01:00" and outputs.clock(-3) == "00:00",
          "times as mm:ss, h:mm:ss from an hour on")
    w = outputs.wall_time_line([row("a", 1.0, {}), row("b", 1.0, {})], 61, "on this machine, 2 at a time")
    check(w.startswith("wall time: 01:01 for 2 student(s) (on this machine, 2 at a time)") and "1.5 s each" in w,
          "summary.txt's wall time: the run's, and the students' own summed", w)
    lines = outputs.class_results(["t1"], set(), [row("ann", 3.0, {}, statuses={"t1": "passed"})])
    check(any(l.startswith("  ann") and l.endswith("1.5 s") for l in lines), "summary: each student's time", str(lines))


def leaderboard():
    def stage(version, name, gflops, passed=True, m=512):
        return {"stage": name, "version": version, "M": m, "N": m, "K": m, "threads": 2, "device": "cpu",
                "passed": passed, "skipped": False, "gflops": gflops}
    summary = [stage("student", "lab1.ijk", 1.0), stage("reference", "lab1.ijk", 1.1),
               stage("student", "lab1.ikj", 8.0), stage("reference", "lab1.ikj", 10.0),
               stage("student", "lab1.kij", 50.0, passed=False), stage("reference", "lab1.kij", 9.0),
               stage("reference", "lab1.ikj", 99.0, m=1024)]
    board = outputs.leaderboard(summary)
    check(board == [{"name": "GFLOP/s", "value": 8.0}, {"name": "% of reference", "value": 80.0}],
          "leaderboard: the fastest correct stage's GFLOP/s, and % of the reference at the same stage and shape",
          str(board))
    check(outputs.leaderboard([stage("student", "lab1.ijk", 3.0, passed=False)]) == [] and outputs.leaderboard(None) == [],
          "leaderboard: nothing when no stage of the student's passed")
    card = score.score_student(["t1"], {"t1": TestResult("t1", "passed")}, {"t1": 1.0}, set(), 1.0)
    r = outputs.results_json(1, [], card, "built", 2.0, summary)
    check(r["output_format"] == "text" and r["leaderboard"] == board and "Sandbox" not in r["output"],
          "results.json: output_format text, the leaderboard with --perf, no sandbox named to the student",
          json.dumps(r)[:300])
    check("leaderboard" not in outputs.results_json(1, [], card, "built", 2.0), "results.json without --perf: no leaderboard")


progress_and_time()
leaderboard()
grades_csv()
results_json()
feedback()
names()
class_lines()
with Scratch() as tmp:
    writing(tmp)
    out_folder(tmp)
checks.finish("outputs")
