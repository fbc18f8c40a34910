"""Student text made safe for where the grader shows it: the one place that
decides what "safe to show" means, used by every writer (outputs.py's files,
the progress lines through common.say, the error lines of cli.py).

Student text is anything a submission controls: folder and file names (any
bytes, a non-UTF-8 name arrives as Python's surrogate escapes), the source
lines review.py quotes, what the compiler and the tests printed. Shown raw, an
escape sequence repaints a terminal ("0 / 6 points" drawn as "6 / 6 points"), a newline
forges a line of summary.txt, a cell starting with = runs as a spreadsheet
formula, a lone surrogate cannot even be written as UTF-8. So:

  line(text)    one line of a terminal or a text file: every control character
                (C0, DEL, C1, line and paragraph separators, bidirectional
                overrides) and every byte that was not UTF-8 written as a
                visible escape (\\n, \\x1b, \\xff, \\u202e); nothing else changes
  block(text)   the same for text of several lines: newlines and tabs stay
  csv_row(...)  a line of grades.csv: each cell a line(); a cell that a
                spreadsheet would run as a formula (it starts with = + - @, a
                tab or a carriage return) gets a leading apostrophe and quotes
  gradescope(v) results.json's value: every string in it a block() (JSON's
                own escaping is json.dumps's; this is for Gradescope's page)

The escapes are idempotent (block(block(t)) == block(t)) and never fail.
"""

import re

# Control characters (C0 but newline and tab, DEL, C1), the Unicode line and paragraph separators, the
# bidirectional marks and overrides (they reorder what a reader sees), and lone surrogates (a non-UTF-8 byte).
_UNSAFE_KEPT = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c\ud800-\udfff"
_BLOCK_UNSAFE = re.compile(f"[{_UNSAFE_KEPT}]")
_LINE_UNSAFE = re.compile(f"[\n\t{_UNSAFE_KEPT}]")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escaped(match):
    c = match.group()
    if c in _NAMED:
        return _NAMED[c]
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:  # os.fsdecode's stand-in for the byte o - 0xDC00 of a name that is not UTF-8
        return f"\\x{o - 0xDC00:02x}"
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


def line(text):
    """text for one line: no control character, no line break, nothing that is not valid UTF-8."""
    return _LINE_UNSAFE.sub(_escaped, str(text))


def block(text):
    """text of several lines: as line(), but newlines and tabs are kept."""
    return _BLOCK_UNSAFE.sub(_escaped, str(text))


def csv_cell(text):
    """One cell's text: a line(), with a leading apostrophe (spreadsheets' mark for "this is text", which they
    do not show) where a spreadsheet would take it for a formula."""
    cell = line(text)
    return "'" + cell if cell[:1] in FORMULA_STARTS else cell


def csv_row(cells):
    """One line of CSV (RFC 4180, no line break inside a cell): cells quoted where they hold a comma or a
    quote, or were neutralised as formulas (so every reader keeps the apostrophe as part of the text)."""
    out = []
    for c in cells:
        c = csv_cell(c)
        out.append('"' + c.replace('"', '""') + '"' if c[:1] == "'" or "," in c or '"' in c
                   or c != c.strip(" ") else c)
    return ",".join(out) + "\n"


def gradescope(value):
    """value (results.json's dict) with every string in it, keys too, a block()."""
    if isinstance(value, str):
        return block(value)
    if isinstance(value, dict):
        return {gradescope(k): gradescope(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [gradescope(v) for v in value]
    return value
