#!/usr/bin/env python3
"""Unit tests of tools/grading/escape.py: terminal escapes, control
characters, line breaks in a name, bidirectional overrides and bytes that
are not UTF-8 shown as visible escapes; CSV cells safe from formula
injection and from breaking the row; results.json's strings. No build.
(test_properties.py checks the same over random text.)"""
import sys
sys.dont_write_bytecode = True
import csv
import io
import os

import checks
from checks import check
from grading import escape, outputs


def lines_and_blocks():
    redraw = "\x1b[2K\x1b[1A6 / 6 ok\x1b]0;title\x07"
    check(escape.line(redraw) == "\\x1b[2K\\x1b[1A6 / 6 ok\\x1b]0;title\\x07",
          "terminal escape sequences: shown as text, not acted on", escape.line(redraw))
    check(escape.line("tab\tnew\nline\r") == "tab\\tnew\\nline\\r", "a name with a tab, newline, CR: one line")
    check(escape.block("a\n\tb\rc") == "a\n\tb\\rc", "several lines: newlines and tabs kept, CR escaped")
    name = os.fsdecode(b"caf\xe9-\xff")
    check(escape.line(name) == "caf\\xe9-\\xff", "bytes that are not UTF-8: \\xNN", escape.line(name))
    check(escape.line("\u202eevil\u2066") == "\\u202eevil\\u2066" and escape.line("\x9b2J") == "\\x9b2J",
          "bidirectional overrides and the one-byte CSI escaped")
    for t in ("张三 Zoë O'Brien", "built, 6 / 6 points — ETA 01:00", "emoji 🎉"):
        check(escape.line(t) == t and escape.block(t) == t, f"{t!r}: printable text unchanged")
    check(escape.line(escape.line(redraw + name)) == escape.line(redraw + name), "idempotent")


def csv_cells():
    check(escape.csv_cell("\tx") == "\\tx" and escape.csv_cell("\r=1") == "\\r=1",
          "a cell starting with a tab or CR: the escape (a backslash) comes first, so it is no formula")
    for text in ("=1+1", "+1", "-1", "@SUM(A1)", "=HYPERLINK(\"http://x\")"):
        cell = escape.csv_cell(text)
        check(cell[:1] == "'" and cell[1:] == escape.line(text), f"{text!r}: a leading apostrophe", cell)
    for text in ("alice", "张三", "", "1=1", " =x", "'quoted"):
        check(escape.csv_cell(text) == text, f"{text!r} is left as it is")
    row = escape.csv_row(["=cmd|' /C calc'!A0", "a,b", 'say "hi"', "two\nlines", "plain"])
    check(row == '"\'=cmd|\' /C calc\'!A0","a,b","say ""hi""",two\\nlines,plain\n',
          "a row: formulas apostrophed and quoted, commas and quotes quoted, no line break in a cell", row)
    parsed = list(csv.reader(io.StringIO(row)))
    check(parsed == [["'=cmd|' /C calc'!A0", "a,b", 'say "hi"', "two\\nlines", "plain"]],
          "the row reads back as five cells", str(parsed))


def gradescope_values():
    v = escape.gradescope({"output": "x\x1b[31m\n", "tests": [{"name": os.fsdecode(b"\xff"), "score": 1.5}],
                           "n": None})
    check(v == {"output": "x\\x1b[31m\n", "tests": [{"name": "\\xff", "score": 1.5}], "n": None},
          "results.json: every string escaped, numbers and None kept", str(v))


def safe_names():
    a, b = os.fsdecode(b"caf\xe9"), os.fsdecode(b"caf\xff")
    check(outputs.safe_name(a) == "cafxe9" and outputs.safe_name(b) == "cafxff",
          "folder names that are not UTF-8: distinct output folders", f"{outputs.safe_name(a)} {outputs.safe_name(b)}")


lines_and_blocks()
csv_cells()
gradescope_values()
safe_names()
checks.finish("escape")
