"""What the grader writes, all of it into a staging folder beside OUT that
replaces OUT as a whole at the end (so an interrupted run leaves OUT as it
was): per student, results.json (Gradescope's autograder format) and
feedback.txt (what the student reads); for the class, grades.csv (one row per
student, one column per test case; cells a spreadsheet would run as formulas
made text) and summary.txt. Also the checks that OUT may be written at all,
made before anything is."""

import csv
import io
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .common import UsageError, fmt
from .score import PERF_KEY


@dataclass
class StudentRow:
    """One student's line in grades.csv and summary.txt."""
    student: str          # the folder's name
    build: str            # ok | build-failed | build-timeout | no-files | grader-error
    score: float
    max: float
    cells: dict           # test key -> points, "" when not graded (Scorecard.cells)
    flags: list           # review flags: for the instructor only
    statuses: dict        # test key -> status
    seconds: float


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
    """Writes path whole or not at all (a reader never sees half a file)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)


def feedback_text(lab_number, name, notes, card, build_status, results):
    """feedback.txt: the score, the notes on the submission (files used, build errors), a line per test."""
    head = [f"matmul-lab, lab {lab_number}: {name}", f"Score: {fmt(card.score)} / {fmt(card.max_score)}",
            f"Build: {build_status}", ""]
    body = list(notes)
    if results:
        body.append("")
        body.append("Tests:")
        for t in card.tests:
            body.append(f"  [{fmt(t.points)}/{fmt(t.max_points)}] {t.name}: {t.output.splitlines()[0]}")
            for line in t.output.splitlines()[1:]:
                body.append("      " + line)
        if card.not_graded:
            body.append("  Not graded (they pass without your code, so they give no points): "
                        + "; ".join(card.not_graded))
    if any(r.status == "not-run" and "GPU" in r.message for r in results.values()):
        body.append("")
        body.append("NOTE: the GPU tests could not run on the grading machine; they score 0 here and are not "
                    "counted as passed. Your instructor regrades them on a machine with a GPU.")
    return "\n".join(head + body).rstrip() + "\n"


def results_json(lab_number, notes, card, build_status, seconds):
    """Gradescope's results.json (its autograder format) as a dict."""
    output = "\n".join([f"Score: {fmt(card.score)} / {fmt(card.max_score)}", f"Build: {build_status}"]
                       + [l for l in notes if l]).strip()
    tests = [{"name": t.name, "number": str(t.number), "score": t.points, "max_score": t.max_points,
              "status": "passed" if t.passed else "failed", "output": t.output, "visibility": "visible"}
             for t in card.tests]
    return {"score": card.score, "execution_time": round(seconds, 1), "output": output,
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {"lab": lab_number, "build": build_status, "max_score": card.max_score}}


def write_student_files(out_dir, lab_number, name, notes, card, build_status, results, seconds):
    """OUT/<student>/results.json and feedback.txt (the folder named by safe_name)."""
    d = out_dir / safe_name(name)
    d.mkdir(parents=True, exist_ok=True)
    atomic_write(d / "results.json", json.dumps(results_json(lab_number, notes, card, build_status, seconds),
                                                indent=2) + "\n")
    atomic_write(d / "feedback.txt", feedback_text(lab_number, name, notes, card, build_status, results))


def grades_csv(rows, test_names, perf):
    """grades.csv's text: student, build, score, max, a column per test case (and the target), review."""
    order = list(test_names) + ([PERF_KEY] if perf else [])
    header = ["student", "build", "score", "max"] + list(test_names) + (["performance target"] if perf else []) + \
             ["review"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow([spreadsheet_cell(r.student), r.build, fmt(r.score), fmt(r.max)] +
                   [cell if cell == "" else fmt(cell) for cell in (r.cells.get(n, 0) for n in order)]
                   + [spreadsheet_cell("; ".join(r.flags))])
    return buf.getvalue()


def progress_line(row):
    """A student's line as the run prints it when that student is done."""
    return (f"  {row.student:<24} {fmt(row.score):>6} / {fmt(row.max):<6} {row.build:<13} {row.seconds:6.1f} s"
            + ("   [review: " + "; ".join(row.flags) + "]" if row.flags else ""))


def class_results(order, free, rows):
    """summary.txt's results (also printed at the end): per test case, then per student."""
    lines = ["per test case: students who passed"]
    for n in order:
        passed = sum(1 for r in rows if r.statuses.get(n) == "passed")
        label = "performance target" if n == PERF_KEY else n
        if n in free:
            lines.append(f"     not graded  {label} (passes on the untouched starter)")
        else:
            lines.append(f"  {passed:4d} / {len(rows)}  {label}")
    lines.append("")
    lines.append("per student:")
    for r in rows:
        lines.append(f"  {r.student:<24} {fmt(r.score):>6} / {fmt(r.max):<6} {r.build}")
        for fl in r.flags:
            lines.append(f"      review: {fl}")
    return lines


def publish(staging, out):
    """Renames the staging folder to OUT; an earlier OUT is replaced as a whole (its files go)."""
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rename(out, old / "x")
        os.rename(staging, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(staging, out)
