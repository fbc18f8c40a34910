#!/usr/bin/env python3
"""Unit tests of tools/grading/similarity.py (--similarity) on lab 2: three
independent correct solutions written for this test (similarity_lab2/:
alpha, beta, gamma; each checked against a float64 product when written)
and planted copies, disguised the way students disguise copies: identifiers
renamed, functions reordered, reformatted (and all three at once); the
mechanical edits (`++i` as `i++`, `x += y` as `x = x + y`, `i*K + k` as
`k + i*K`, `long` indices, no comments: each alone and all together); for
loops rewritten as while loops; a helper written out where it was called, a loop
moved into a helper. Every copy must score above every pair of
independent solutions (the margin printed) and at or above the share that
shows it side by side, the independent ones below it; two untouched
starters share nothing (the starter never counts); the scores the same in
another process. The lexer and its normalizations are checked on small
pieces (simtokens.py). The page is escaped (a folder named like an HTML
tag), its fragments numbered and linked; the CSV, clusters and each
student's highest match are checked. No build; seconds."""
import sys
sys.dont_write_bytecode = True
import os
import re
import itertools
import shutil
import subprocess
import time
from pathlib import Path

import checks
from checks import Scratch, check
from grading import similarity, similarity_report, simtokens
from grading.catalog import Lab
from grading.common import REPO

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


def increments(text):
    """`++i` written `i++`."""
    return re.sub(r"\+\+(\w+)", r"\1++", text)


def compound(text):
    """`x += y` written `x = x + y` (and -=, *=)."""
    return re.sub(r"([\w\[\]]+) ([-+*])= ([^;)]+)", r"\1 = \1 \2 \3", text)


def commuted(text):
    """`i * K + k` written `k + i * K`."""
    return re.sub(r"\b(\w+) \* (\w+) \+ (\w+)\b(?!\s*[\[(*])", r"\3 + \1 * \2", text)


def long_indices(text):
    """std::int64_t indices written long."""
    return text.replace("std::int64_t", "long")


def no_comments(text):
    return re.sub(r"[ \t]*//[^\n]*", "", text)


def all_mechanical(text):
    return no_comments(long_indices(commuted(compound(increments(text)))))


def while_loops(text):
    """Every one-line for loop (`for (T i = a; i < b; ++i) statement;`) written as a while loop."""
    loop = re.compile(r"for \(([\w:]+) (\w+) = ([^;]+); \2 < ([^;]+); (?:\+\+\2|\2\+\+)\) ([^\n]*;)\n")
    return loop.sub(lambda m: f"{m[1]} {m[2]} = {m[3]};\nwhile ({m[2]} < {m[4]}) {{\n{m[5]}\n++{m[2]};\n}}\n", text)


def inlined(text):
    """alpha's helper axpy_row written out where matmul_interchanged calls it."""
    return text.replace("for (std::int64_t k = 0; k < K; ++k) axpy_row(A[i * K + k], B + k * N, row, N);",
                        "for (std::int64_t k = 0; k < K; ++k) {\n            const float aik = A[i * K + k];\n"
                        "            for (std::int64_t j = 0; j < N; ++j) row[j] += aik * B[k * N + j];\n        }")


def into_helper(text):
    """gamma's innermost loop of matmul_interchanged moved into a helper function of its own."""
    helper = ("static void add_row(float* out, const float* rhs, float f, idx n) {\n"
              "    for (idx c = 0; c < n; c++) out[c] += f * rhs[c];\n}\n\n")
    return text.replace("void matmul_blocked", helper + "void matmul_blocked", 1).replace(
        "for (idx c = 0; c < N; c++) out[c] += f * rhs[c];", "add_row(out, rhs, f, N);")


ORIGINALS = ("alpha", "beta", "gamma")
# Each disguised copy: (its name, the original, the disguise).
COPIES = [("renamed_alpha", "alpha", renamed), ("reordered_beta", "beta", reordered),
          ("reformatted_gamma", "gamma", reformatted),
          ("<b>all_three&amp", "alpha", lambda t: reformatted(renamed(reordered(t)))),
          ("incr_beta", "beta", increments), ("compound_gamma", "gamma", compound),
          ("commuted_alpha", "alpha", commuted), ("long_alpha", "alpha", long_indices),
          ("nocomment_beta", "beta", no_comments), ("mechanical_alpha", "alpha", all_mechanical),
          ("mechanical_beta", "beta", all_mechanical), ("mechanical_gamma", "gamma", all_mechanical),
          ("while_alpha", "alpha", while_loops), ("while_gamma", "gamma", while_loops),
          ("inlined_alpha", "alpha", inlined), ("helper_gamma", "gamma", into_helper)]


def make_class(sub):
    originals = {n: (HERE / f"{n}.cpp").read_text() for n in ORIGINALS}
    header = (REPO / "labs" / "lab2" / "locality.h").read_text()
    students = dict(originals)
    for name, source, disguise in COPIES:
        students[name] = disguise(originals[source])
        if name != "<b>all_three&amp":
            check(students[name] != originals[source], f"the disguise of {name} changes the code")
    for name, code in students.items():
        d = sub / name / "labs" / "lab2"
        d.mkdir(parents=True)
        (d / "locality.cpp").write_text(code)
        (d / "locality.h").write_text(header)
    for name in ("starter_1", "starter_2"):
        shutil.copytree(REPO / "labs" / "lab2", sub / name / "lab2")
    return sorted(p for p in sub.iterdir())


def family(name):
    """The original a student's code comes from (itself for an original), None for a starter."""
    return dict((n, s) for n, s, _ in COPIES).get(name, name if name in ORIGINALS else None)


def ranking(tmp):
    sub, out = tmp / "subs", tmp / "out"
    out.mkdir()
    students = make_class(sub)
    t0 = time.monotonic()
    lines = similarity.class_similarity(students, LAB, FILES, REPO / "labs" / "lab2", out)
    seconds = time.monotonic() - t0
    page = (out / "similarity.html").read_text(encoding="utf-8")
    csv = (out / "similarity.csv").read_text(encoding="utf-8")
    docs = {s.name: similarity.submission_text(s, 2, FILES) for s in students}
    starter = similarity.submission_text(REPO, 2, FILES)
    expected = similarity.folder_text(REPO / "solutions" / "lab2", FILES)  # as class_similarity takes it
    pairs = similarity.ranked_pairs(docs, starter, expected)
    score = {frozenset((p[1], p[2])): p[0] for p in pairs}
    names = [s.name for s in students]
    copies = {}  # each disguised copy against its original
    for name, source, _ in COPIES:
        copies[name] = score.get(frozenset((name, source)), 0.0)
    independent = {f"{x}+{y}": score.get(frozenset((x, y)), 0.0)
                   for x, y in itertools.combinations(names, 2) if family(x) and family(y) and family(x) != family(y)}
    print("note - each copy against its original: " + "; ".join(f"{n} {100 * v:.0f}%" for n, v in copies.items()))
    worst_independent = max(independent.items(), key=lambda kv: kv[1])
    print(f"note - independent pairs ({len(independent)}): the highest {worst_independent[0]} "
          f"{100 * worst_independent[1]:.0f}%; among the originals: " + "; ".join(
              f"{k} {100 * v:.0f}%" for k, v in independent.items() if set(k.split("+")) <= set(ORIGINALS)))
    weakest = min(copies.items(), key=lambda kv: kv[1])
    print(f"note - margin: the weakest copy ({weakest[0]}, {100 * weakest[1]:.0f}%) is "
          f"{100 * (weakest[1] - worst_independent[1]):.0f} points above the highest independent pair; "
          f"{len(names)} submissions compared in {seconds:.2f} s", flush=True)
    check(weakest[1] > worst_independent[1], "every disguised copy scores above every independent pair",
          f"{weakest} vs {worst_independent}")
    check(weakest[1] >= similarity.SHOW_AT, f"every disguised copy scores {100 * similarity.SHOW_AT:.0f}% or "
          "more, so it is shown side by side", str(copies))
    check(worst_independent[1] < similarity.SHOW_AT, "independent solutions (and copies of different ones) "
          "score below the side-by-side share", str(worst_independent))
    check(not any("starter_" in p[1] or "starter_" in p[2] for p in pairs),
          "the untouched starters share nothing with anybody: the starter's code never counts",
          "; ".join(f"{p[1]}+{p[2]} {100 * p[0]:.0f}%" for p in pairs if "starter_" in p[1] + p[2]))
    check("<b>all_three&amp" not in page and "&lt;b&gt;all_three&amp;amp" in page,
          "the page: names and code HTML-escaped", page[:300])
    check(re.search(r'<mark id="p0a1" style="background:#\w+"><a href="#p0b1"><sup>\[1\]</sup>', page)
          and 'id="p0b1"' in page and 'href="#p0a1"' in page,
          "the side-by-side view: fragment [1] on one side is linked to fragment [1] on the other and back")
    check("Scores of all pairs" in page and 'class="bar over"' in page and "Each student's highest match" in page,
          "the page has the score histogram (threshold marked) and each student's highest match")
    clusters = similarity_report.clusters([p[5] for p in pairs])
    alpha_family = {"alpha"} | {n for n, s, _ in COPIES if s == "alpha"}
    check(any(set(g) == alpha_family for g in clusters),
          "the copies of alpha and alpha form one cluster", str(clusters))
    rows = csv.splitlines()
    check(rows[0] == "a,b,share_a,share_b,shared_tokens,longest_fragment_tokens,fragments"
          and len(rows) == len(pairs) + 1 and '"<b>all_three&amp"' not in csv,
          "similarity.csv: a header and a line per pair", "\n".join(rows[:3]))
    child = subprocess.run([sys.executable, "-B", "-c", CHILD, str(sub)], stdout=subprocess.PIPE, text=True,
                           env=dict(os.environ, PYTHONHASHSEED="12345"), cwd=Path(__file__).parent)
    mine = "\n".join(f"{p[1]}|{p[2]}|{p[0]:.6f}" for p in pairs)
    check(child.returncode == 0 and child.stdout.strip() == mine, "the same scores in another process (another "
          "hash salt): two runs write the same report", child.stdout[:300])
    # A small class: nothing is in more than half of it and at least COMMON_MIN submissions, so only the
    # starter is excluded and the idiomatic loops independent solutions share count too.
    small = {n: docs[n] for n in ORIGINALS + ("mechanical_alpha", "while_gamma", "starter_1")}
    small_pairs = similarity.ranked_pairs(small, starter, expected)
    small_score = {frozenset((p[1], p[2])): p[0] for p in small_pairs}
    small_copies = [small_score.get(frozenset(x), 0.0)
                    for x in (("alpha", "mechanical_alpha"), ("gamma", "while_gamma"))]
    small_independent = max((v for k, v in small_score.items() if len({family(n) for n in k}) == 2), default=0.0)
    print(f"note - a class of {len(small)} (three originals, two copies, a starter): copies "
          + ", ".join(f"{100 * v:.0f}%" for v in small_copies) + f"; independent pairs at most "
          f"{100 * small_independent:.0f}%", flush=True)
    check(min(small_copies) >= similarity.SHOW_AT > small_independent and
          not any("starter_" in p[1] + p[2] for p in small_pairs),
          "in a small class too: copies at or above the side-by-side share, independent pairs and the starter "
          "below it", str(small_pairs))
    long = similarity_report.marked("<" * (similarity_report.SHOW_CHARS + 5), [(0, 3)], "x", "y")
    check(long.startswith('<mark id="x1" style="background:#ffd36b"><a href="#y1"><sup>[1]</sup>&lt;&lt;&lt;</a>'
                          "</mark>&lt;") and long.endswith("(5 more characters not shown)"),
          "a long document: its start shown (escaped, marked), the rest counted", long[-60:])
    check(lines[0].startswith("similarity (--similarity; no score changed): ") and "similarity.html" in lines[0],
          "summary.txt's lines: how many pairs, where the page is", "\n".join(lines))
    check("beyond the starter and the reference" in lines[0] and "<th>reference</th>" in page
          and "nor the expected code (the reference solution, solutions/lab2/)" in page,
          "the reference (solutions/lab2/) is the expected code: said in summary.txt and on the page, with each "
          "student's share of it", lines[0])
    strict = tmp / "strict"
    strict.mkdir()
    strict_lines = similarity.class_similarity(students, LAB, FILES, REPO / "labs" / "lab2", strict, show_at=1.0)
    strict_page = (strict / "similarity.html").read_text(encoding="utf-8")
    full = sum(1 for p in pairs if p[0] >= 1.0)
    check("share 100% or more" in strict_lines[0] and strict_page.count('<h2 id="pair') == min(full, 50)
          and "Clusters of three or more (pairs at 100% or more)" in strict_page
          and page.count('<h2 id="pair') > strict_page.count('<h2 id="pair'),
          f"--similarity-min 100: only the {full} pairs at 100% side by side, the threshold named", strict_lines[0])


CHILD = """
import sys
from pathlib import Path
import checks
from grading import similarity
from grading.common import REPO
files = ["locality.cpp", "locality.h"]
docs = {s.name: similarity.submission_text(s, 2, files) for s in sorted(Path(sys.argv[1]).iterdir())}
for p in similarity.ranked_pairs(docs, similarity.submission_text(REPO, 2, files),
                                 similarity.folder_text(REPO / "solutions" / "lab2", files)):
    print(f"{p[1]}|{p[2]}|{p[0]:.6f}")
"""


def symbols(src):
    return " ".join(t[0] for t in simtokens.tokens(src))


def lexer():
    toks = simtokens.lex('// c\n/* d */ #include <x>\n#define Y \\\n  1\nauto s = R"q(a")q" u8"b\\"" \'\\\'\';'
                         " x = 1e-5f + .5 + 0x1p3 + 1'000; a->b <<= c >>= d;")
    check([t.text for t in toks] == ["auto", "s", "=", 'R"q(a")q"', 'u8"b\\""', "'\\''", ";", "x", "=", "1e-5f",
                                     "+", ".5", "+", "0x1p3", "+", "1'000", ";", "a", "->", "b", "<<=", "c",
                                     ">>=", "d", ";"],
          "the lexer: comments and preprocessor lines gone; raw and prefixed strings, chars, numbers, "
          "punctuators by longest match", str(toks))
    same = [("for (int i = 0; i < n; ++i) c[i*K+k] += a;",
             "long i = 0;\nwhile (i < n) { c[k + K*i] = c[k+K*i] + a; i = i + 1; }", "for and while, ++i and "
             "i = i + 1, += and = x +, i*K+k and k+K*i, int and long, braces"),
            ("std::size_t j = 0; j++;", "unsigned long long j = 0; j += 1;", "size_t and unsigned long long, "
             "j++ and j += 1"),
            ("c[j] = a * b[j] + c[j]; s = x[k] * s;", "c[j] += a * b[j]; s *= x[k];", "x = y + x and x += y"),
            ("if (a) b++; else c--;", "if (a) { ++b; } else { c -= 1; }", "if/else bodies braced"),
            ("const float* __restrict__ p = q;", "float *p = q;", "const and __restrict__ dropped")]
    for x, y, what in same:
        check(symbols(x) == symbols(y), f"the same tokens: {what}", f"{symbols(x)}\n       {symbols(y)}")
    differ = [("x = x * y + z;", "x *= y + z;", "x = x * y + z is not x *= y + z"),
              ("a[i * K + k]", "a[(i + k) * K]", "i*K + k is not (i + k)*K"),
              ("x = a + b * x;", "x *= a + b;", "x = a + b * x is not x *= a + b"),
              ("x = a - x;", "x += a;", "x = a - x is not x += a"),
              ("x = y / i * K + k;", "x = y / k + i * K;", "a product after / is not reordered")]
    for x, y, what in differ:
        check(symbols(x) != symbols(y), f"different tokens: {what}", f"{symbols(x)}\n       {symbols(y)}")


def hostile():
    """Files made to be deep or repetitive: no recursion error, no exponential or quadratic time."""
    cases = {"100,000 nested parentheses": "x = " + "(" * 100_000 + "a" + ")" * 100_000 + ";",
             "30,000 nested sums": "x = " + "(a+" * 30_000 + "a" + ")" * 30_000 + ";",
             "20,000 nested for loops": "for (i=0;i<n;++i) " * 20_000 + "x;",
             "5,000 nested braced loops": "for (;;) { int q = 1; " * 5_000 + "x;" + "}" * 5_000,
             "20,000 nested blocks": "{" * 20_000 + "x;" + "}" * 20_000,
             "20,000 unclosed blocks": "f(); " + "{" * 20_000,
             "50,000 unused variables": "".join(f"int u{i} = {i}; " for i in range(50_000)) + "f();",
             "an unterminated comment and string": "int x = f(); /* " + "a" * 100_000 + ' " ' + "b" * 100_000}
    for what, src in cases.items():
        t0 = time.monotonic()
        n = len(simtokens.tokens(src))
        seconds = time.monotonic() - t0
        check(n > 0 and seconds < 10 * checks.slack(), f"hostile: {what} in {seconds:.1f} s", str(n))
    line = "c[i*K+k] += a * b[j]; x = y;\n" * 5_000
    t0 = time.monotonic()
    pairs, _ = similarity.compare({"a": line, "b": line + "q;"}, "")
    seconds = time.monotonic() - t0
    check(pairs and pairs[0].score == 1.0 and seconds < 10 * checks.slack(),
          f"hostile: a line repeated 5,000 times in two submissions compared in {seconds:.1f} s")


lexer()
hostile()
with Scratch() as tmp:
    ranking(tmp)
checks.finish("similarity")
