"""What the grader writes, all of it into a staging folder beside OUT that
replaces OUT as a whole at the end (so an interrupted run leaves OUT as it
was): per student, results.json (Gradescope's autograder format) and
feedback.txt (what the student reads); for the class, grades.csv (one row per
student, one column per test case) and summary.txt. Also the checks that OUT
may be written at all, made before anything is. Every text written passes
through escape.py (student text made safe to show), every student's name as
one line of it."""

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import escape
from .common import BUILD_STATES, GRADER_ERROR, UsageError, fmt
from .score import PERF_KEY, withheld_text


# What a student's feedback may show of a line: longer ones are wrapped (wrap_line).
FEEDBACK_WIDTH = 200


@dataclass
class StudentRow:
    """One student's line in grades.csv and summary.txt."""
    student: str          # the folder's name
    build: str            # one of BUILD_STATES: what became of the build, never a verdict on the code
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


# The files the grader writes into OUT beside the students' folders (and their .tmp twins while written):
# a student's folder never takes one of these names.
CLASS_FILES = ("grades.csv", "summary.txt", "similarity.html", "similarity.csv")


def safe_name(name):
    # Letters and digits of any script stay (a class of 张三, 李四 must not all become "__"); what a shell or
    # a file system could trip on (spaces, quotes, slashes, control characters) becomes "_"; a byte of a name
    # that is not UTF-8 (a surrogate escape) becomes xNN, so that two such names stay two folders.
    name = re.sub("[\udc80-\udcff]", lambda m: f"x{ord(m.group()) - 0xDC00:02x}", name)
    name = re.sub(r"[^\w.@+-]", "_", name).encode("utf-8")[:200].decode("utf-8", "ignore") or "_"
    # A student named like a class file (grades.csv, ...) or like "." or "..": a leading "_", so that their
    # folder and the class's file (or OUT itself) stay apart. (A student named "_grades.csv" as well: cli.py
    # refuses the two folders as sharing one output folder.)
    taken = {n.casefold() for n in CLASS_FILES} | {n.casefold() + ".tmp" for n in CLASS_FILES} | {".", ".."}
    return "_" + name if name.casefold() in taken else name


def atomic_write(path, text):
    """Writes path whole or not at all (a reader never sees half a file); no control character but newlines
    and tabs, and nothing that is not UTF-8, gets into it (escape.block)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(escape.block(text))
    os.replace(tmp, path)


def wrap_line(line, width=FEEDBACK_WIDTH):
    """One line of feedback as lines of at most `width` characters, broken at spaces (a word longer than a
    line is cut), each continuation indented as the line itself is and by two more spaces."""
    if len(line) <= width:
        return [line]
    indent = line[:len(line) - len(line.lstrip(" "))] + "  "
    out, rest = [], line
    while len(rest) > width:
        cut = rest.rfind(" ", len(indent) + 1, width + 1)
        if cut <= len(indent):
            cut = width
        out.append(rest[:cut].rstrip())
        rest = indent + rest[cut:].lstrip(" ")
    return out + [rest]


def feedback_text(lab_number, name, notes, card, build_status, results):
    """feedback.txt: the score, the notes on the submission (files used, build errors), a line per test; no
    line over FEEDBACK_WIDTH characters. How the code was contained is the instructor's (summary.txt), not here."""
    head = [f"matmul-lab, lab {lab_number}: {escape.line(name)}",
            f"Score: {fmt(card.score)} / {fmt(card.max_score)}{withheld_text(card)}",
            f"Build: {build_status}", ""]
    body = list(notes)
    if results:
        body.append("")
        body.append("Tests:")
        for t in card.tests:
            got = "withheld" if t.withheld else fmt(t.points)
            body.append(f"  [{got}/{fmt(t.max_points)}] {t.name}: {t.output.splitlines()[0]}")
            for line in t.output.splitlines()[1:]:
                body.append("      " + line)
        if card.not_graded:
            body.append("  Not graded (they pass without your code, so they give no points): "
                        + "; ".join(card.not_graded))
    if any(r.status == "not-run" and "GPU" in r.message for r in results.values()):
        body.append("")
        body.append("NOTE: the GPU tests could not run on the grading machine; they score 0 here and are not "
                    "counted as passed. Your instructor regrades them on a machine with a GPU.")
    # Escaped first (escape.block: "\x1b" is four characters), so that the width holds as the file is written.
    lines = [w for text in head + body for line in escape.block(text).split("\n") for w in wrap_line(line)]
    return "\n".join(lines).rstrip() + "\n"


def leaderboard(perf_summary):
    """Gradescope's leaderboard entries from `mmlab lab N --json`'s summary rows: the GFLOP/s of the student's
    fastest correct stage, and that as a % of the reference's GFLOP/s for the same stage, shape and threads
    in the same run (higher is better for both: Gradescope's default order). [] when no student row passed."""
    rows = [r for r in perf_summary or [] if isinstance(r, dict)]
    mine = [r for r in rows if r.get("version") == "student" and r.get("passed") and not r.get("skipped")
            and (r.get("gflops") or 0) > 0]
    if not mine:
        return []
    best = max(mine, key=lambda r: r["gflops"])
    key = ("stage", "M", "N", "K", "threads", "device")
    ref = next((r for r in rows if r.get("version") == "reference" and (r.get("gflops") or 0) > 0
                and all(r.get(k) == best.get(k) for k in key)), None)
    entries = [{"name": "GFLOP/s", "value": round(best["gflops"], 2)}]
    if ref:
        entries.append({"name": "% of reference", "value": round(100 * best["gflops"] / ref["gflops"], 1)})
    return entries


def results_json(lab_number, notes, card, build_status, seconds, perf_summary=None):
    """Gradescope's results.json (its autograder format) as a dict; with --perf, its leaderboard. Its
    "output" is what a student reads: no word of how the code was contained (that is the instructor's)."""
    output = "\n".join([f"Score: {fmt(card.score)} / {fmt(card.max_score)}{withheld_text(card)}", f"Build: {build_status}"]
                       + [l for l in notes if l]).strip()
    tests = [{"name": t.name, "number": str(t.number), "score": t.points, "max_score": t.max_points,
              "status": "passed" if t.passed else "failed", "output": t.output, "visibility": "visible"}
             for t in card.tests]
    result = {"score": card.score, "execution_time": round(seconds, 1), "output": output, "output_format": "text",
              "visibility": "visible", "stdout_visibility": "hidden", "tests": tests,
              "extra_data": {"lab": lab_number, "build": build_status, "max_score": card.max_score,
                             "withheld": card.withheld}}
    if perf_summary is not None:
        result["leaderboard"] = leaderboard(perf_summary)
    return escape.gradescope(result)


def write_student_files(out_dir, lab_number, name, notes, card, build_status, results, seconds):
    """OUT/<student>/results.json and feedback.txt (the folder named by safe_name). With --perf, results[PERF_KEY].perf_summary (testcases.py) makes the
    leaderboard: present (maybe empty) whenever the performance target was scored."""
    d = out_dir / safe_name(name)
    d.mkdir(parents=True, exist_ok=True)
    perf = results.get(PERF_KEY)
    perf_summary = (getattr(perf, "perf_summary", None) or []) if perf is not None else None
    atomic_write(d / "results.json", json.dumps(results_json(lab_number, notes, card, build_status, seconds,
                                                             perf_summary=perf_summary), indent=2) + "\n")
    atomic_write(d / "feedback.txt", feedback_text(lab_number, name, notes, card, build_status, results))


def grades_csv(rows, test_names, perf):
    """grades.csv's text: student, build, score, max, a column per test case (and the target), review. A cell
    is the points earned, empty for a test not graded, "inconclusive" for points withheld (score.WITHHELD_CELL)."""
    order = list(test_names) + ([PERF_KEY] if perf else [])
    header = ["student", "build", "score", "max"] + list(test_names) + (["performance target"] if perf else []) + \
             ["review"]
    lines = [escape.csv_row(header)]
    for r in rows:
        lines.append(escape.csv_row([r.student, r.build, fmt(r.score), fmt(r.max)] +
                                    [cell if isinstance(cell, str) else fmt(cell) for cell in (r.cells.get(n, 0) for n in order)]
                                    + ["; ".join(r.flags)]))
    return "".join(lines)


def clock(seconds):
    """mm:ss (h:mm:ss from an hour on): a time left or taken, as people read it."""
    s = int(round(max(0, seconds)))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


def progress_line(row, done=None, total=None, eta_seconds=None):
    """A student's line as the run prints it when that student is done:
    `[k/N] student: built, score / max points, seconds — ETA mm:ss` (and the review flags)."""
    head = f"[{done}/{total}] " if done is not None else "  "
    eta = f" — ETA {clock(eta_seconds)}" if eta_seconds is not None else ""
    return escape.line(f"{head}{escape.line(row.student)}: {row.build}, {fmt(row.score)} / {fmt(row.max)} points, "
                       f"{row.seconds:.1f} s{eta}" + ("   [review: " + "; ".join(row.flags) + "]" if row.flags else ""))


def wall_time_line(rows, wall_seconds, how):
    """summary.txt's last line: the run's wall time, and the students' own times (build and tests) summed."""
    spent = sum(r.seconds for r in rows)
    return (f"wall time: {clock(wall_seconds)} for {len(rows)} student(s) ({how}); the students' own times "
            f"(build and tests) add up to {clock(spent)}, {spent / max(1, len(rows)):.1f} s each on average")


def class_results(order, free, rows):
    """summary.txt's results (also printed at the end): per test case, then per student."""
    lines = ["per test case: students who passed"]
    for n in order:
        passed = sum(1 for r in rows if r.statuses.get(n) == "passed")
        pending = sum(1 for r in rows if r.statuses.get(n) == "inconclusive")
        label = "performance target" if n == PERF_KEY else n
        if n in free:
            lines.append(f"     not graded  {label} (passes on the untouched starter)")
        else:
            lines.append(f"  {passed:4d} / {len(rows)}  {label}" + (f" ({pending} inconclusive)" if pending else ""))
    errors = [r for r in rows if r.build == GRADER_ERROR]
    if errors:
        lines.append(f"  GRADER ERRORS: {len(errors)} student(s) not graded because the grader failed on them "
                     f"(the reason is in their review line): {', '.join(escape.line(r.student) for r in errors[:20])}")
    inconclusive = [r for r in rows if "inconclusive" in r.statuses.values()]
    if inconclusive:
        lines.append(f"  INCONCLUSIVE: {len(inconclusive)} student(s) with points withheld: the checker found the "
                     f"machine busy in both runs of their performance target (the load is in their review line); "
                     f"grade them again with --perf on a quiet machine: "
                     f"{', '.join(escape.line(r.student) for r in inconclusive[:20])}"
                     + (f" and {len(inconclusive) - 20} more" if len(inconclusive) > 20 else ""))
    lines.append("")
    lines.append("per student:")
    for r in rows:
        points = f"{fmt(r.score)} / {fmt(r.max)} points,"
        lines.append(f"  {escape.line(r.student) + ':':<25} {r.build + ',':<16} {points:<20} {r.seconds:6.1f} s")
        for fl in r.flags:
            lines.append(f"      review: {escape.line(fl)}")
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
