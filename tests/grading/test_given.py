#!/usr/bin/env python3
"""Code given compiled (the Makefile's GIVEN_COMPILED; ARCHITECTURE.md, "Given
code") in the grader: lab 4 is given lab 3's Strassen recursion
(labs/common/strassen_recursion.h declares it), and lab 3's own grading must
not be. Two classes graded by tools/grade.py:

  lab 3  forward   the starter with tasks 1 and 2 forwarding to lab 4's given
                   common::lab3::compute_product / add_product
                   -> 0, build failed, "not available to submissions", the function named
         own       tasks 1 and 2 written (the recursion's answer, in the starter's names)
                   -> builds, its lab3.strassen tests pass: lab 3 is gradable
                   without the given code
  lab 4  reference the lab 4 reference as a student hands it in; it calls the
                   given recursion -> builds (the given library is linked in
                   the student's tree, where solutions/ is not), its
                   lab4.strassen_par tests pass, the bit-for-bit one included
(Only those test cases: the ones that run mmlab's commands on the reference
are the checker's business, not the given code's.)

Both students' answers are made from solutions/ here (never written out a
second time). A few minutes (two starter trees, built from this checkout's
build/). Run from the repository root (make test-all runs it through
tests/test_grading.cpp). Prints one line per check and exits 1 if any fails.
"""
import csv
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
import checks  # noqa: E402 (after: no __pycache__ in the checkout)
from checks import REPO, check  # noqa: E402


def body_span(text, name):
    """(start, end) of the body of the function `name` defined in text: from its '{' to its matching '}'."""
    m = re.search(rf"\b{name}\([^;{{]*\)\s*\{{", text)
    if m is None:
        raise ValueError(f"no definition of {name}")
    depth, i = 0, m.end() - 1
    while True:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return m.end() - 1, i + 1
        i += 1


def body(text, name):
    start, end = body_span(text, name)
    return text[start:end]


def with_body(text, name, new_body):
    start, end = body_span(text, name)
    return text[:start] + new_body + text[end:]


def lab3_answers():
    """{file: text}: the lab 3 starter with its two tasks answered from the one place the answer is
    (solutions/lab3/strassen_recursion.cpp: compute_product is task 1, add_product task 2), and with them
    forwarding to lab 4's given code instead."""
    starter = (REPO / "labs" / "lab3" / "strassen.cpp").read_text()
    header = (REPO / "labs" / "lab3" / "strassen.h").read_text()
    answer = (REPO / "solutions" / "lab3" / "strassen_recursion.cpp").read_text()
    helpers = re.search(r"namespace \{\n.*?\n\}  // namespace\n", answer, re.S).group(0)  # Op, apply: task 2's
    task2 = "// TODO(lab3, task 2)"
    own = with_body(starter, "form_and_multiply", body(answer, "compute_product").replace("strassen_recursive(", "recurse("))
    own = with_body(own, "combine_into_c", body(answer, "add_product"))
    own = own.replace(task2, helpers + "\n" + task2, 1)
    forward = starter.replace('#include "labs/common/strassen_views.h"',
                              '#include "labs/common/strassen_views.h"\n#include "labs/common/strassen_recursion.h"', 1)
    forward = with_body(forward, "form_and_multiply", "{\n    common::lab3::compute_product(product, q, Z, work, cutoff);\n}")
    forward = with_body(forward, "combine_into_c", "{\n    common::lab3::add_product(product, Z, ldz, c, r0, r1, cols);\n}")
    return {"own": {"strassen.cpp": own, "strassen.h": header},
            "forward": {"strassen.cpp": forward, "strassen.h": header}}


def lab4_reference():
    """The lab 4 reference as a student hands it in (their namespace and include path)."""
    return {f.name: f.read_text().replace("reference::lab4", "student::lab4").replace("solutions/lab4", "labs/lab4")
            for f in (REPO / "solutions" / "lab4").iterdir() if f.suffix in (".cpp", ".h")}


def grade(sub, lab, out):
    """Grades the class in `sub` for `lab`: (exit status, output, {student: grades.csv row})."""
    r = subprocess.run(checks.grade_command() + [str(sub), "--lab", str(lab), "--out", str(out)], cwd=REPO, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace", timeout=3600)
    rows = {}
    if (out / "grades.csv").is_file():
        rows = {row["student"]: row for row in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    return r.returncode, r.stdout, rows


def main():
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-given-test-"))
    tmp.chmod(0o711)  # the grading user (root: nobody) must reach the build trees below it
    try:
        sub3 = tmp / "lab3"
        for student, files in lab3_answers().items():
            (sub3 / student / "lab3").mkdir(parents=True)
            for name, text in files.items():
                (sub3 / student / "lab3" / name).write_text(text)
        out3 = tmp / "out3"
        rc, text, rows = grade(sub3, 3, out3)
        check(rc == 0 and set(rows) == {"own", "forward"}, "grading lab 3 exits 0, one row per student",
              text[-1500:])
        if rows:
            feedback = (out3 / "forward" / "feedback.txt").read_text()
            check(rows["forward"]["build"] == "build failed" and float(rows["forward"]["score"]) == 0
                  and "not available to submissions" in feedback and "common::lab3::compute_product" in feedback
                  and "given compiled to a later lab" in feedback,
                  "lab 3 forwarding to lab 4's given recursion does not link: 0, 'not available', the function named",
                  f"{rows['forward']}\n{feedback[:800]}")
            strassen = [c for c in rows["own"] if c.startswith("lab3.strassen")]
            check(rows["own"]["build"] == "built" and len(strassen) >= 3
                  and all(rows["own"][c] and float(rows["own"][c]) > 0 for c in strassen),
                  "lab 3 with tasks 1 and 2 written: builds without the given code, every lab3.strassen test passes",
                  f"{rows['own']}\n{(out3 / 'own' / 'feedback.txt').read_text()[:1500]}")

        sub4 = tmp / "lab4"
        (sub4 / "reference" / "lab4").mkdir(parents=True)
        for name, text in lab4_reference().items():
            (sub4 / "reference" / "lab4" / name).write_text(text)
        out4 = tmp / "out4"
        rc, text, rows = grade(sub4, 4, out4)
        check(rc == 0 and set(rows) == {"reference"}, "grading lab 4 exits 0", text[-1500:])
        if rows:
            row = rows["reference"]
            strassen = [c for c in row if c.startswith("lab4.strassen_par")]
            check(row["build"] == "built" and any("bit for bit lab 3" in c for c in strassen)
                  and all(row[c] and float(row[c]) > 0 for c in strassen),
                  "lab 4 calling lab 3's given recursion builds in the student's tree, and its lab4.strassen_par "
                  "tests pass (the bit-for-bit one against the given code included)",
                  f"{row}\n{(out4 / 'reference' / 'feedback.txt').read_text()[:1500]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    checks.finish("given-code grading")
