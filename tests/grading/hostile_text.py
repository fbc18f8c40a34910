"""test_hostile.py's attacks on the grader's text handling (issue 24): a
submission must not stop, stall or mislead the grading of a class through
the names and the contents of its files. Each is the reference solution
(a working lab 1, 6/6) with the attack beside it, so any score below 6 is
the grader's fault:

  nonutf8_files     file names that are not UTF-8, or hold a newline and a
                    terminal escape, beside the lab's files   6/6, the names escaped
  <not UTF-8>       a student folder whose name is not UTF-8    6/6 (its row: the bytes as \\xNN)
  comment_bomb      a 1 MiB file: a string literal of "/* " repeated, no */ (valid
                    C++; the old review and include check were quadratic on
                    it: hours)                                  6/6, reviewed in time
  terminal          a string the review quotes holding terminal escapes that
                    redraw the line as "built, 6 / 6 points"    6/6, no escape reaches a screen
  @SUM(1+1)         a folder named like a formula, and a formula in a string
                    the review quotes                           6/6, made text in grades.csv

check_shown() then checks what the run showed and wrote: no escape sequence
or other control character on its output, in summary.txt, grades.csv or any
results.json / feedback.txt; every cell of grades.csv safe from formula
injection; no review that ran out of time.
"""

import csv
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
ESC = "\x1b"
# What no output may hold: C0 controls but newline and tab, DEL, C1 (0x9b is a one-byte CSI), lone surrogates.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
NOT_UTF8_FOLDER = os.fsdecode(b"student-caf\xe9-\xff")


def csv_key(name):
    """The student's cell in grades.csv (escape.py's csv_cell)."""
    sys.path.insert(0, str(REPO / "tools"))
    from grading.escape import csv_cell
    return csv_cell(name)


def add_cases(sub, ref, write, Case):
    """Writes the submissions under sub (ref: the reference files, write(folder, files)); returns their Cases."""
    cases = []
    d = sub / "nonutf8_files" / "labs" / "lab1"
    write(d, ref)
    for raw in (b"notes-\xff\xfe.txt", b"\x1b[31mred\x1b[0m\nsecond line.txt", b"caf\xe9.cpp"):
        Path(os.fsdecode(os.fsencode(d) + b"/" + raw)).write_bytes(b"x\n")
    Path(os.fsdecode(os.fsencode(sub / "nonutf8_files") + b"/README-\xff")).write_bytes(b"x\n")
    cases.append(Case("nonutf8_files", 6))

    write(sub / NOT_UTF8_FOLDER / "lab1", ref)
    cases.append(Case(NOT_UTF8_FOLDER, 6))

    # Just under the 1 MiB limit of a handed-in file (larger ones are refused, not read).
    room = 1024 * 1024 - len(ref["loop_orders.cpp"].encode()) - 200
    bomb = '\n[[maybe_unused]] static const char* const hostile_comments = "' + "/* " * (room // 3) + '";\n'
    write(sub / "comment_bomb" / "labs" / "lab1", dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] + bomb}))
    cases.append(Case("comment_bomb", 6))

    redraw = f"{ESC}[2K{ESC}[G{ESC}[1A{ESC}[2K[1/1] terminal: built, 6 / 6 points, 0.1 s{ESC}[K{ESC}]0;pwned\a\x9b2J"
    shout = f'\n[[maybe_unused]] static const char* const hostile_shout = "/tmp/{redraw}";\n'
    write(sub / "terminal" / "labs" / "lab1", dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] + shout}))
    cases.append(Case("terminal", 6, review=["names an absolute path"]))

    formula = ('\n[[maybe_unused]] static const char* const hostile_formula = '
               '"/x/=HYPERLINK(\\"http://example.com\\",\\"6\\")";\n')
    write(sub / "@SUM(1+1)" / "labs" / "lab1", dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] + formula}))
    cases.append(Case("@SUM(1+1)", 6, review=["names an absolute path"]))
    return cases


def check_shown(out, printed, check):
    """What the run printed (its stdout and stderr as text) and wrote into out: safe to show."""
    bad = UNSAFE.search(printed)
    check(bad is None, "the run's printed lines hold no control character (no terminal escape got through)",
          repr(printed[max(0, bad.start() - 80):bad.start() + 40]) if bad else "")
    written = [out / "summary.txt", out / "grades.csv"] + sorted(out.glob("*/results.json")) + \
        sorted(out.glob("*/feedback.txt"))
    unsafe = []
    for f in written:
        try:
            text = f.read_bytes().decode("utf-8")
        except UnicodeDecodeError as e:
            unsafe.append(f"{f.name}: not UTF-8 ({e})")
            continue
        m = UNSAFE.search(text)
        if m:
            unsafe.append(f"{f.relative_to(out)}: {text[max(0, m.start() - 60):m.start() + 20]!r}")
    check(not unsafe, f"every file written ({len(written)}) is UTF-8 without control characters", "; ".join(unsafe[:5]))
    cells = [c for row in csv.reader((out / "grades.csv").open(encoding="utf-8", newline="")) for c in row]
    check(all(c[:1] not in ("=", "+", "-", "@", "\t", "\r") for c in cells),
          "no cell of grades.csv starts like a formula", str([c for c in cells if c[:1] in "=+-@\t\r"][:5]))
    summary = (out / "summary.txt").read_text(encoding="utf-8")
    check("review not finished" not in summary and "GRADER ERRORS" not in summary,
          "no review ran out of its time budget, no grader error", summary[-1500:])
    fb = (out / "nonutf8_files" / "feedback.txt").read_text(encoding="utf-8")
    check("notes-\\xff\\xfe.txt" in fb and "\\x1b[31mred\\x1b[0m\\nsecond line.txt" in fb,
          "nonutf8_files: the ignored files named in the feedback, their bytes escaped", fb[:1500])
