#!/usr/bin/env python3
"""Given code is written once: a starter and its solution agree outside the TODO blocks.

Every starter labs/labN/X that has an answer solutions/labN/X is compared with it,
code only: comments dropped, white space folded, blank lines and system includes
(`#include <...>`, which an answer may need more of) left out, and the starter's
names mapped to the answer's (`student::` -> `reference::`, `labs/labN/` ->
`solutions/labN/`). What remains must be the same, line for line, except where
the starter has a TODO block. A TODO block is:

  - a TODO comment right before a function definition (a signature, then `{`
    before any `;`): the definition, to its closing brace - the answer may
    write that function, and helpers before it, as it likes;
  - a TODO comment at the end of a line of code: that line (a value the task
    changes, as lab 8's kPadA);
  - any other TODO comment: the placeholder statements right before or after
    it (lines that only discard or return: `(void)x;`, `(void)a, (void)b;`,
    `return 0;`, `return {};`, `return nullptr;`) - the answer puts its code
    there - and the end of every brace scope that holds it: the answer may add
    code just before the closing brace (freeing what its code made, say).
The answer may include more headers than its starter (lab 3's answer
includes the recursion lab 4 is given compiled): an include is not a copy
of given code. A header (.h) of the answer may also declare more than its starter: what only
the reference exports (lab 10's kernel handles, say). Every line of the
starter's header must still be in it, in order: a declaration is not a copy
of given code, but a changed one is.
A TODO comment is `// TODO(labN, task ...)`, `// TODO n.m:`, `// TODO n.m-n.k
(...):`; a mention such as "TODO 5.1 and 5.2 below" in a file's header is not one.

The answer may put any code where the starter has a TODO block, and nowhere
else. So a fix made to one copy of given code and not the other fails here;
given code that both need in the same form belongs in labs/common/ (as
labs/common/hopper_ptx.cuh), where it exists once.

The pairs in NOT_YET are not in line yet (issue 25); the test fails when one
of them comes to agree, so that the list only shrinks.

Run from anywhere; prints one line per pair that differs (the first starter line
that has no place in the answer), exits 1 if any does.
"""
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
SOURCES = {".cpp", ".cu", ".cuh", ".h"}
TODO = re.compile(r"TODO(\(| \d[\d.a-z-]*( \([^)]*\))?:)")
PLACEHOLDER = re.compile(r"^(\(void\)[^;]*;\s*)+$|^return( [\w:{}]*| \w+\(\))?;$|^(\(void\)\w+,\s*)*\(void\)\w+;$")


def code_lines(text):
    """(line number, code) for every line with code: comments out, white space folded.
    A line that held a TODO comment gets the code "@TODO" (before its code, if any)."""
    out = []
    i, n, line_no = 0, len(text), 1
    current, todo = [], False
    in_block = False

    def flush():
        nonlocal current, todo
        code = " ".join("".join(current).split())
        if todo:
            out.append((line_no, "@TODO"))
        if code and not code.startswith("#include <"):
            out.append((line_no, code))
        current, todo = [], False

    while i < n:
        c = text[i]
        if in_block:
            if text.startswith("*/", i):
                in_block = False
                i += 2
                continue
            if c == "\n":
                flush()
                line_no += 1
            elif TODO.match(text, i):
                todo = True
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            if TODO.search(text, i, end):
                todo = True
            i = end
            continue
        if text.startswith("/*", i):
            in_block = True
            i += 2
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            current.append(text[i:j + 1])
            i = j + 1
            continue
        if c == "\n":
            flush()
            line_no += 1
        else:
            current.append(c)
        i += 1
    flush()
    return out


def normalise(lines, lab):
    out = []
    for no, code in lines:
        code = code.replace("[[maybe_unused]] ", "")
        code = code.replace("student::", "reference::").replace("namespace student", "namespace reference")
        code = code.replace(f'"labs/{lab}/', f'"solutions/{lab}/')
        out.append((no, code))
    return out


def segments(lines):
    """The starter's code cut at its TODO blocks: [given, given, ...] (one more than blocks)."""
    given, current = [], []
    holds_todo = []  # one entry a brace scope open here: whether a TODO block is in it
    i = 0
    while i < len(lines):
        no, code = lines[i]
        if code != "@TODO":
            # The end of a scope that holds a TODO block belongs to the block: the
            # answer may add code just before its closing brace.
            if code.startswith("}") and holds_todo and holds_todo[-1] and current:
                given.append(current)
                current = []
            current.append((no, code))
            for c in code:
                if c == "{":
                    holds_todo.append(False)
                elif c == "}" and holds_todo:
                    holds_todo.pop()
            i += 1
            continue
        holds_todo = [True] * len(holds_todo)
        while current and PLACEHOLDER.match(current[-1][1]):
            current.pop()
        given.append(current)
        current = []
        i += 1
        # The code on the TODO comment's own line is the line the task changes.
        if i < len(lines) and lines[i][0] == no and lines[i][1] != "@TODO":
            i += 1
        # Before a definition: the block is the definition to its closing brace.
        j = i
        if j < len(lines) and not PLACEHOLDER.match(lines[j][1]) and lines[j][1] != "@TODO" and at_definition(lines, j):
            d = 0
            opened = False
            while j < len(lines):
                d += lines[j][1].count("{") - lines[j][1].count("}")
                opened = opened or "{" in lines[j][1]
                j += 1
                if opened and d <= 0:
                    break
            i = j
            continue
        while i < len(lines) and PLACEHOLDER.match(lines[i][1]):
            i += 1
    given.append(current)
    return given


def at_definition(lines, j):
    """Whether the code from line j on starts a function definition: a signature whose
    first `{` comes before any `;`."""
    text = ""
    for _, code in lines[j:j + 6]:
        text += code + " "
        if "{" in code or ";" in code:
            break
    brace, semi = text.find("{"), text.find(";")
    return "(" in text and brace >= 0 and (semi < 0 or brace < semi) and not text.lstrip().startswith(("for", "if", "while", "do", "namespace", "struct", "class", "switch", "else"))


def first_difference(given, answer):
    """None when the answer is given[0] X1 given[1] X2 ... given[-1] for some code Xi,
    else the starter's line number where that first fails."""
    sep = "\x00"
    pattern = ""
    for k, seg in enumerate(given):
        body = "".join(re.escape(code + sep) for _, code in seg)
        if k == 0:
            pattern += body
        else:
            pattern += "(?:[^\x00]*\x00)*?" + body
    target = "".join(code + sep for _, code in answer)
    if re.fullmatch(pattern, target, re.S):
        return None
    # Where it goes wrong: the longest prefix of the starter's segments that still matches.
    flat = [(k, no, code) for k, seg in enumerate(given) for no, code in seg]
    lo, hi = 0, len(flat)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        p, last = "", -1
        for k, _, code in flat[:mid]:
            if k != last and k > 0:
                p += "(?:[^\x00]*\x00)*?"
            last = k
            p += re.escape(code + sep)
        if re.match(p, target, re.S):
            lo = mid
        else:
            hi = mid - 1
    return flat[lo][1] if lo < len(flat) else flat[-1][1] if flat else 1


# Pairs whose starter is not yet its answer with the TODO blocks filled in
# (issue 25: bring each in line, then take it off this list). Each stays
# checked the other way round: the test fails when one of them comes to agree,
# so that the list only shrinks.
NOT_YET = set()


def pairs():
    for starter in sorted((REPO / "labs").glob("lab*/*")):
        if starter.suffix not in SOURCES:
            continue
        answer = REPO / "solutions" / starter.parent.name / starter.name
        if answer.exists():
            yield starter, answer


def main():
    if not (REPO / "solutions").is_dir():
        print("given code: no solutions/ in this tree (a student release): nothing to compare")
        return 77  # could not run here (tests/script_test.h)
    bad = not_yet = 0
    count = 0
    for starter, answer in pairs():
        count += 1
        lab = starter.parent.name
        mine = normalise(code_lines(starter.read_text()), lab)
        given = segments(mine)
        if starter.suffix == ".h":  # the answer may declare more, between any two lines
            given = [[line] for segment in given for line in segment]
        includes = {code for _, code in mine if code.startswith("#include")}
        theirs = [(no, code) for no, code in normalise(code_lines(answer.read_text()), lab)
                  if not code.startswith("#include") or code in includes]
        where = first_difference(given, theirs)
        name = f"{starter.relative_to(REPO)} vs {answer.relative_to(REPO)}"
        exempt = f"{lab}/{starter.name}" in NOT_YET
        if exempt and where is None:
            bad += 1
            print(f"FAIL {name}: agrees now: take {lab}/{starter.name} off NOT_YET in {Path(__file__).name}")
        elif exempt:
            not_yet += 1
        elif where is None:
            print(f"ok   {name}")
        else:
            bad += 1
            print(f"FAIL {name}: from the starter's line {where} on, its given code is not in the answer "
                  f"(make the two copies the same, or move the code to labs/common/ so that it exists once)")
    print(f"given code: {count - bad - not_yet} of {count} starter/solution pairs agree outside their TODO blocks "
          f"({not_yet} not yet brought in line, listed in NOT_YET)")
    if bad == 0:
        print("given code tests: all passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
