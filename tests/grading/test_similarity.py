#!/usr/bin/env python3
"""Unit tests of tools/grading/similarity.py (--similarity) on lab 2: three
independent correct solutions written for this test (similarity_lab2/:
alpha, beta, gamma; each checked against a float64 product when written)
and a planted copy of each, disguised the way students disguise copies:
identifiers renamed, functions reordered, reformatted (and all three at
once). The planted pairs must rank at the top, above every pair of
independent solutions, and at or above the share that shows them side by
side; the independent ones below it; two untouched starters share nothing
(the starter never counts); the shares the same in another process (copydetect
hashes with Python's salted hash()). The page is escaped (a folder named like an HTML
tag). Without copydetect: the one-line error naming the fix; this test then
says it is skipped. No build; seconds."""
import sys
sys.dont_write_bytecode = True
import os
import re
import shutil
import subprocess
from pathlib import Path

import checks
from checks import Scratch, check, raises
from grading import similarity
from grading.catalog import Lab
from grading.common import REPO, UsageError

HERE = Path(__file__).resolve().parent / "similarity_lab2"
LAB = Lab(2, "cpu", ("lab2",), (), "memory locality")
FILES = ["locality.cpp", "locality.h"]


def renamed(text):
    """Every identifier of the student's own renamed, and the comments rewritten."""
    names = {"axpy_row": "scale_and_add", "dot": "inner", "row": "out_row", "bt": "b_transposed", "s": "total",
             "x": "lhs", "y": "rhs", "a": "factor", "b": "source", "c": "target", "n": "count", "i": "r",
             "j": "q", "k": "p", "jc": "col_block", "pc": "depth_block", "nc": "cols", "kc": "depth"}
    text = re.sub(r"//[^\n]*", "// mine", text)
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: names.get(m.group(), m.group()), text)


def functions(text):
    """(head, [top-level functions in the namespace], tail) of one of these files."""
    head, rest = text.split("namespace student::lab2 {\n", 1)
    body, tail = rest.rsplit("}  // namespace student::lab2", 1)
    parts = re.split(r"\n(?=void matmul_)", body)
    return head + "namespace student::lab2 {\n" + parts[0], parts[1:], "}  // namespace student::lab2" + tail


def reordered(text):
    head, funcs, tail = functions(text)
    return head + "\n" + "\n".join(reversed(funcs)) + "\n" + tail


def reformatted(text):
    """Another layout: tabs, braces on their own lines, no spaces around operators, blank lines."""
    text = text.replace("    ", "\t")
    text = re.sub(r"\) \{\n", ")\n{\n", text)
    text = re.sub(r" ([-+*/<>=]=?|<=|>=) ", r"\1", text)
    return text.replace(";\n", ";\n\n")


def make_class(sub):
    originals = {n: (HERE / f"{n}.cpp").read_text() for n in ("alpha", "beta", "gamma")}
    header = (REPO / "labs" / "lab2" / "locality.h").read_text()
    students = dict(originals)
    students["copy_of_alpha"] = renamed(originals["alpha"])
    students["copy_of_beta"] = reordered(originals["beta"])
    students["copy_of_gamma"] = reformatted(originals["gamma"])
    students["<b>all_three&amp"] = reformatted(renamed(reordered(originals["alpha"])))
    for name, code in students.items():
        d = sub / name / "labs" / "lab2"
        d.mkdir(parents=True)
        (d / "locality.cpp").write_text(code)
        (d / "locality.h").write_text(header)
    for name in ("starter_1", "starter_2"):
        shutil.copytree(REPO / "labs" / "lab2", sub / name / "lab2")
    return sorted(p for p in sub.iterdir())


def ranking(tmp):
    sub, out = tmp / "subs", tmp / "out"
    out.mkdir()
    students = make_class(sub)
    lines = similarity.class_similarity(students, LAB, FILES, REPO / "labs" / "lab2", out)
    page = (out / "similarity.html").read_text(encoding="utf-8")
    docs = {s.name: similarity.submission_text(s, 2, FILES) for s in students}
    starter = similarity.submission_text(REPO, 2, FILES)
    pairs = similarity.ranked_pairs(docs, starter)
    print("note - ranked: " + "; ".join(f"{p[1]}+{p[2]} {100 * p[0]:.0f}%" for p in pairs), flush=True)
    shown = [f"{p[1]}+{p[2]} {100 * p[0]:.0f}%" for p in pairs]
    planted = [{"alpha", "copy_of_alpha"}, {"beta", "copy_of_beta"}, {"gamma", "copy_of_gamma"},
               {"alpha", "<b>all_three&amp"}, {"copy_of_alpha", "<b>all_three&amp"}]
    top = [{p[1], p[2]} for p in pairs[:len(planted)]]
    check(all(t in planted for t in top), "the planted copies (renamed, reordered, reformatted, all three) are "
          "the top-ranked pairs", "; ".join(shown[:10]))
    check(all(p[0] >= similarity.SHOW_AT for p in pairs[:len(planted)]),
          f"each planted copy shares {100 * similarity.SHOW_AT:.0f}% or more, so it is shown side by side",
          "; ".join(shown[:10]))
    independent = [p for p in pairs if not ({p[1], p[2]} & {"copy_of_alpha", "copy_of_beta", "copy_of_gamma",
                                                              "<b>all_three&amp"})
                   and {p[1], p[2]} <= {"alpha", "beta", "gamma"}]
    check(all(p[0] < similarity.SHOW_AT for p in independent) and
          (not independent or max(p[0] for p in independent) < min(p[0] for p in pairs[:len(planted)])),
          "independent correct solutions rank below every planted copy and below the side-by-side share",
          "; ".join(f"{p[1]}+{p[2]} {100 * p[0]:.0f}%" for p in independent))
    check(not any({"starter_1", "starter_2"} <= {p[1], p[2]} and p[0] > 0 for p in pairs),
          "two untouched starters share nothing: the starter's code never counts", "; ".join(shown))
    check("<b>all_three&amp" not in page and "&lt;b&gt;all_three&amp;amp" in page and "<mark>" in page,
          "the page: names and code HTML-escaped, shared regions marked", page[:300])
    # copydetect hashes with Python's salted hash(): the shares must not depend on the salt (another run).
    child = subprocess.run([sys.executable, "-B", "-c", CHILD, str(sub)], stdout=subprocess.PIPE, text=True,
                           env=dict(os.environ, PYTHONHASHSEED="12345"), cwd=Path(__file__).parent)
    mine = "\n".join(f"{p[1]}|{p[2]}|{p[0]:.6f}" for p in pairs)
    check(child.returncode == 0 and child.stdout.strip() == mine, "the same shares in another process (another "
          "hash salt): two runs write the same report", child.stdout[:300])
    long = similarity.marked("<" * (similarity.SHOW_CHARS + 5), ([0], [3]))
    check(long.startswith("<mark>&lt;&lt;&lt;</mark>&lt;") and long.endswith("(5 more characters not shown)"),
          "a long document: its start shown (escaped, marked), the rest counted", long[-60:])
    check(lines[0].startswith("similarity (--similarity; no score changed): ") and "similarity.html" in lines[0],
          "summary.txt's lines: how many pairs, where the page is", "\n".join(lines))


CHILD = """
import sys
from pathlib import Path
import checks
from grading import similarity
from grading.common import REPO
files = ["locality.cpp", "locality.h"]
docs = {s.name: similarity.submission_text(s, 2, files) for s in sorted(Path(sys.argv[1]).iterdir())}
for p in similarity.ranked_pairs(docs, similarity.submission_text(REPO, 2, files)):
    print(f"{p[1]}|{p[2]}|{p[0]:.6f}")
"""


def missing_detector():
    saved = sys.modules.get("copydetect")
    sys.modules["copydetect"] = None  # as if not installed: the import fails
    try:
        e = raises(UsageError, similarity.detector)
    finally:
        if saved is not None:
            sys.modules["copydetect"] = saved
        else:
            del sys.modules["copydetect"]
    check(e is not None and "pip install copydetect" in str(e) and "\n" not in str(e),
          "without copydetect: one line naming the fix", str(e))


missing_detector()
try:
    similarity.detector()
except UsageError as e:
    print(f"skip - the ranking tests: {e}")
    print("similarity tests: skipped (copydetect is not installed)")
    sys.exit(0)
with Scratch() as tmp:
    ranking(tmp)
checks.finish("similarity")
