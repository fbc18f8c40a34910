#!/usr/bin/env python3
"""Property-based tests (hypothesis) of what a submission controls: any bytes
in file and folder names, any content within the size limit. For random
names, sizes and contents: intake finds and copies without raising, the
review finishes (its comment stripping the same as the old regular
expression's, in linear time), and every output writer (feedback.txt,
results.json, grades.csv, summary.txt's lines, the progress line) writes
valid UTF-8 with no control character a terminal or a spreadsheet would act
on. Derandomized (the same examples every run), no example database written.
Seconds; skipped with the fix named where hypothesis is missing."""
import sys
sys.dont_write_bytecode = True
import csv
import io
import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import checks
from checks import check

checks.need_hypothesis("property")
import hypothesis.configuration  # noqa: E402
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

# hypothesis keeps caches in ./.hypothesis: not in the checkout (the grader copies untracked files into its trees).
STORE = tempfile.mkdtemp(prefix="mmlab-hypothesis-")
hypothesis.configuration.set_hypothesis_home_dir(STORE)

from grading import escape, intake, outputs, review, score  # noqa: E402
from grading.testcases import TestResult  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
# What no written file and no shown line may hold: control characters (but newline and tab in files), the
# bidirectional overrides, lone surrogates (a name that was not UTF-8).
UNSAFE_IN_FILES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
UNSAFE_IN_LINES = re.compile("[\n\t\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

# A file or folder name: any bytes but / and NUL, as the file system hands them to Python.
names = st.binary(min_size=1, max_size=255).filter(lambda b: b"/" not in b and b"\0" not in b
                                                   and b not in (b".", b"..")).map(os.fsdecode)
# Student text: any Unicode, or any bytes decoded as names are (lone surrogates), or pieces an attacker likes.
PIECES = ["/*", "*/", "//", "\n", '"', "/", "*", "a", "\x1b[2J", "\x1b]0;x\x07", "\r", "=HYPERLINK(\"x\")", "+1",
          "-", "@", "\t", "system(", '"/etc/passwd"', "reference::x", "\u202e", "\udcff", "#include \"solutions/x\""]
texts = st.one_of(st.text(), st.binary().map(os.fsdecode), st.lists(st.sampled_from(PIECES)).map("".join))
contents = st.one_of(st.binary(max_size=4096), st.lists(st.sampled_from([p.encode("utf-8", "surrogateescape")
                                                                         for p in PIECES])).map(b"".join))


def file_is_safe(path):
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not UNSAFE_IN_FILES.search(text)


@SETTINGS
@given(texts)
def escapes(t):
    one, many = escape.line(t), escape.block(t)
    assert not UNSAFE_IN_LINES.search(one), repr(one)
    assert not UNSAFE_IN_FILES.search(many), repr(many)
    assert escape.line(one) == one and escape.block(many) == many
    one.encode("utf-8")
    cells = [t, "x", t]
    parsed = list(csv.reader(io.StringIO(escape.csv_row(cells))))
    assert len(parsed) == 1 and len(parsed[0]) == 3, parsed
    assert parsed[0][0] == escape.csv_cell(t) and parsed[0][0][:1] not in escape.FORMULA_STARTS, parsed


@SETTINGS
@given(st.lists(st.sampled_from(["/*", "*/", "//", "\n", "/", "*", "a", '"']), max_size=40).map("".join))
def strip_comments_as_before(t):
    assert review.strip_comments(t) == re.sub(r"//[^\n]*|/\*.*?\*/", " ", t, flags=re.S), repr(t)


@SETTINGS
@given(st.lists(st.tuples(names, contents), max_size=6), st.lists(st.sampled_from(["kernel.cpp", "kernel.h"])),
       contents, st.sampled_from(["", "lab7", "labs/lab7", "deep/er"]))
def intake_any_names(extra, lab_files, content, where):
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-prop-"))
    try:
        folder, dest, build_dir = tmp / "student", tmp / "dest", tmp / "build"
        src = folder / where if where else folder
        src.mkdir(parents=True)
        for d in (dest, build_dir):
            d.mkdir()
        for n in ("kernel.cpp", "kernel.h"):
            (dest / n).write_text("// TODO\n")
        for n, data in extra:
            try:
                (src / n).write_bytes(data)
            except OSError:  # a name the file system refuses (too long in bytes after all): not a submission
                pass
        for n in lab_files:
            (src / n).write_bytes(content)
        found, notes = intake.find_lab_files(folder, 7, ["kernel.cpp", "kernel.h"])
        for line in notes:
            assert isinstance(line, str)
        if found is not None:
            used, starter, refused, problems = intake.copy_submission_files(found, folder, 7, ["kernel.cpp", "kernel.h"],
                                                                            dest, build_dir)
            assert set(used) | set(starter) | {r.split(":")[0] for r in refused} == {"kernel.cpp", "kernel.h"}
            for n in used:
                assert (dest / n).read_bytes() == (found / n).read_bytes()
            for line in problems:
                escape.block(line).encode("utf-8")
            review.flags_in_process(dest, tmp / "dest", used)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@SETTINGS
@given(contents, contents)
def review_any_content(mine, starter):
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-prop-"))
    try:
        for d, data in (("s", mine), ("t", starter)):
            (tmp / d).mkdir()
            (tmp / d / "k.cpp").write_bytes(data)
        flags = review.flags_in_process(tmp / "s", tmp / "t", ["k.cpp"])
        assert all(f.startswith("k.cpp: ") for f in flags), flags
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@settings(SETTINGS, max_examples=8)
@given(names, contents)
def review_child_any_name(name, data):
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-prop-"))
    try:
        for d in ("s", "t"):
            (tmp / d).mkdir()
            try:
                (tmp / d / name).write_bytes(data)
            except OSError:
                return
        flags = review.review_flags(tmp / "s", tmp / "t", [name])
        assert flags == [], flags  # the same file on both sides: nothing new, and the name went through as it is
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@SETTINGS
@given(names, st.lists(texts, max_size=4), texts, st.lists(texts, max_size=3))
def writers_any_text(name, notes, output, flags):
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-prop-"))
    try:
        results = {"t1": TestResult("t1", "failed", output), "t2": TestResult("t2", "passed", output)}
        card = score.score_student(["t1", "t2"], results, {"t1": 1.0, "t2": 2.0}, set(), 1.0)
        outputs.write_student_files(tmp, 1, name, notes, card, "built", results, 1.0)
        d = tmp / outputs.safe_name(name)
        for f in ("results.json", "feedback.txt"):
            assert file_is_safe(d / f), (d / f).read_bytes()[:300]
        json.loads((d / "results.json").read_text(encoding="utf-8"))
        row = outputs.StudentRow(name, "built", card.score, card.max_score, card.cells, flags, card.statuses, 1.0)
        outputs.atomic_write(tmp / "grades.csv", outputs.grades_csv([row, row], ["t1", "t2"], False))
        assert file_is_safe(tmp / "grades.csv")
        parsed = list(csv.reader((tmp / "grades.csv").open(encoding="utf-8", newline="")))
        assert len(parsed) == 3 and all(len(r) == 7 for r in parsed), parsed
        assert all(c[:1] not in escape.FORMULA_STARTS for r in parsed for c in r), parsed
        for line in [outputs.progress_line(row, 1, 2, 3.0)] + outputs.class_results(["t1", "t2"], set(), [row]):
            assert not UNSAFE_IN_LINES.search(line), repr(line)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def crafted_comment_file():
    """A 1 MiB file of /* without */ (inside a string literal: valid C++): the old regular expressions took
    hours on it; in one pass it is well under a second (the bound is loose and grows with the load average:
    a busy machine must not fail it)."""
    text = 'const char* s = "' + "/* " * (1024 * 1024 // 3 - 10) + '";\n'
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-prop-"))
    try:
        for d in ("s", "t"):
            (tmp / d).mkdir()
        (tmp / "s" / "k.cpp").write_text(text)
        (tmp / "t" / "k.cpp").write_text("// TODO\n")
        t0 = time.monotonic()
        flags = review.review_flags(tmp / "s", tmp / "t", ["k.cpp"])
        includes = intake.solutions_includes(text)
        secs = time.monotonic() - t0
        bound = 20 * checks.slack()
        check(flags == [] and includes == [] and secs < bound,
              f"a 1 MiB file of /* without */: reviewed and checked for includes in {secs:.2f} s (< {bound:.0f} s)",
              str(flags))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def budget():
    """The review's own time limit: a child that does not finish in time is one flag, not a stall."""
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-prop-"))
    try:
        for d in ("s", "t"):
            (tmp / d).mkdir()
            (tmp / d / "k.cpp").write_text("x" * 4_000_000 + "\n")
        t0 = time.monotonic()
        flags = review.review_flags(tmp / "s", tmp / "t", ["k.cpp"], seconds=0.01)
        check(len(flags) == 1 and "review not finished in 0.01 s" in flags[0]
              and time.monotonic() - t0 < 10 * checks.slack(),
              "a review past its time budget is stopped and says so in one flag", str(flags))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


for prop in (escapes, strip_comments_as_before, intake_any_names, review_any_content, review_child_any_name,
             writers_any_text):
    try:
        prop()
        check(True, f"property holds: {prop.__name__}")
    except Exception as e:  # hypothesis's shrunk counterexample is in the message
        check(False, f"property holds: {prop.__name__}", f"{type(e).__name__}: {str(e)[:1500]}")
crafted_comment_file()
budget()
shutil.rmtree(STORE, ignore_errors=True)
checks.finish("property")
