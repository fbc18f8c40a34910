#!/usr/bin/env python3
"""Unit tests of --similarity (tools/grading/similarity.py) on test classes
of labs 1 and 5 (CPU kernels) and lab 7 (CUDA), as test_similarity.py's
class of lab 2: three independent correct solutions per lab, written for
this test in the structures different students choose (similarity_lab1/,
similarity_lab5/, similarity_lab7/: alpha, beta, gamma), and copies of each
disguised the way students disguise copies: an exact copy; identifiers
renamed and comments rewritten; functions reordered; each mechanical edit
alone (`++i` as `i++`, `x += y` as `x = x + y`, `i*K + k` as `k + i*K`,
`long` indices, no comments) and all together; for loops rewritten as while
loops; code moved into a helper function; declarations in another order;
dead statements inserted (unused variables, `;`, `x = x;`, `(void)x;`); and
two untouched starters. Compared as the grader does, the lab's reference
solution given as the expected code (each original's share of it printed:
lab 7's alpha, the textbook kernel, is 94% the reference's, and its copies
are found by the rest). The originals were checked when written: labs 1
and 5 (packing) against a float64 product and the layouts of gemm.h, lab 5's
dot.cpp and lab 7's kernels compiled (g++, nvcc), lab 7's not run.

Checked per lab: every disguised copy scores above every pair of students
whose code comes from different originals (the margin printed), no starter
or independent pair reaches the default threshold (SHOW_AT), and the copies
do. Lab 1 also measures what the expected code is for: a small class with
the reference handed in as a student's own, compared without and with the
reference as expected code. No build; seconds."""
import sys
sys.dont_write_bytecode = True
import itertools
import re
import time
from pathlib import Path

import checks
from checks import check
from grading import similarity, similarity_report, simtokens
from grading.common import REPO

HERE = Path(__file__).resolve().parent
ORIGINALS = ("alpha", "beta", "gamma")


def doc(files):
    """{file name: text} as one document, the way similarity.submission_text puts a submission together."""
    return "\n".join(f"// ==== {n} ====\n" + files[n] for n in sorted(files))


def student_names(text, starter):
    """The identifiers a student wrote that are not the starter's, the language's or CUDA's."""
    given = set(re.findall(r"[A-Za-z_]\w*", starter))
    return sorted({w for w in re.findall(r"\b[A-Za-z_]\w*\b", re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S))
                   if w not in given and w not in simtokens.KEYWORDS and w not in simtokens.BUILTINS
                   and w not in ("std", "int64_t", "size_t", "memset", "fill", "min", "fmaf", "pragma", "unroll")})


# The disguises: each takes (text, starter text) and returns the disguised text.
def renamed(text, starter):
    names = {w: f"my_{w[::-1]}_{n}" for n, w in enumerate(student_names(text, starter))}
    text = re.sub(r"//[^\n]*", "// mine", text)
    # (a member, threadIdx.y or job.K, keeps its name: the struct's is not the student's to change)
    return re.sub(r"(?<![.\w])(?<!->)[A-Za-z_]\w*\b", lambda m: names.get(m.group(), m.group()), text)


def reordered(text, starter):
    """The functions defined one after the other (separated by a blank line, at the same depth of braces) in
    the opposite order (the declarations a compiler would then need, a student would add: a few tokens)."""
    chunks = text.split("\n\n")
    depth, groups, current = 0, [], []
    for n, c in enumerate(chunks):
        delta = c.count("{") - c.count("}")
        is_function = delta == 0 and re.search(r"\)\s*(const\s*)?\{", c) and c.rstrip().endswith("}")
        if is_function:
            current.append(n)
        elif delta:
            groups.append(current)
            current = []
        depth += delta
    groups.append(current)
    for g in groups:
        for n, m in zip(g, reversed(g)):
            chunks[n] = text.split("\n\n")[m]
    return "\n\n".join(chunks)


def increments(text, starter):
    """`++i` written `i++`, or where there is none, `i++` written `++i`."""
    if re.search(r"\+\+\w", text):
        return re.sub(r"\+\+(\w+)", r"\1++", text)
    return re.sub(r"\b(\w+)\+\+", r"++\1", text)


LVALUE = r"(\w+(?:\[[^\]=;\n]*\])*)"


def compound(text, starter):
    """`x += y` written `x = x + y` (and -=, *=), or where there is none, `x = x + y` written `x += y`."""
    if re.search(LVALUE + r" [-+*]= ", text):
        return re.sub(LVALUE + r" ([-+*])= ([^;)]+)", r"\1 = \1 \2 \3", text)
    return re.sub(LVALUE + r" = (\w+(?:\[[^\]=;\n]*\])*) ([-+*]) ", lambda m: f"{m[1]} {m[3]}= " if m[1] == m[2]
                  else m[0], text)


def commuted(text, starter):
    """`i * K + k` written `k + i * K` (a member's name, blockIdx.y, left alone)."""
    return re.sub(r"(?<![.\w])(\w+) \* (\w+) \+ (\w+)\b(?![\[(*.])", r"\3 + \1 * \2", text)


def long_indices(text, starter):
    return re.sub(r"\bint\b(?! TILE| PAD)", "long", text.replace("std::int64_t", "long"))


def no_comments(text, starter):
    return re.sub(r"[ \t]*//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def all_mechanical(text, starter):
    return no_comments(long_indices(commuted(compound(increments(text, starter), starter), starter), starter), starter)


def _statement_end(text, i):
    """The index just past the statement starting at text[i] (a braced block, a for, or up to its `;`)."""
    while text[i].isspace():
        i += 1
    if text[i] == "{":
        depth = 0
        for j in range(i, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                return j + 1
    if text.startswith(("for", "if", "while"), i) and re.match(r"(for|if|while)\s*\(", text[i:]):
        return _statement_end(text, _paren_end(text, text.index("(", i)))
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if text[j] == ";" and depth == 0:
            return j + 1


def _paren_end(text, i):
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j + 1


def while_loops(text, starter):
    """Every `for (init; cond; step) body` written `init; while (cond) { body step; }` (the init in a block of
    its own where two loops of a function declare the same name, as a student must)."""
    m = re.search(r"\bfor \(", text)
    if not m:
        return text
    close = _paren_end(text, m.end() - 1)
    init, cond, step = (p.strip() for p in text[m.end():close - 1].split(";"))
    end = _statement_end(text, close)
    body = text[close:end].strip()
    body = body[1:-1].strip() if body.startswith("{") else body
    declares = re.match(r"(const )?(float|double|int|long|std::\w+|auto)\b", init)
    loop = f"{init}; while ({cond}) {{\n{while_loops(body, starter)}\n{step}; }}"
    loop = f"{{ {loop} }}" if declares else loop
    return text[:m.start()] + loop + while_loops(text[end:], starter)


def declaration_order(text, starter):
    """Each pair of consecutive one-line declarations the second of which does not name the first's variable,
    swapped."""
    decl = r"[ \t]*(?:const )?(?:float|double|int|long|bool|std::int64_t)\*? (\w+)(?: = [^;\n]*)?;[^\n]*\n"
    pattern = re.compile(f"({decl})({decl})")

    def swap(m):
        if re.search(rf"\b{m[2]}\b", m[3]):
            return m[0]
        return m[3] + m[1]
    return pattern.sub(swap, text)


def dead_statements(text, starter):
    """After each line that opens a block inside a function: an unused variable, a `;`, `x = x;` of a
    variable just declared and `(void)x;`, in turn."""
    pads = ["int unused_{n} = {n};", ";", "float spare_{n} = 1.0f; spare_{n} = spare_{n};",
            "float other_{n} = 2.0f; (void)other_{n};"]
    out, n = [], 0
    for line in text.split("\n"):
        out.append(line)
        if line.startswith(" ") and line.rstrip().endswith("{"):
            indent = len(line) - len(line.lstrip()) + 4
            out.append(" " * indent + pads[n % len(pads)].format(n=n))
            n += 1
    return "\n".join(out)


DISGUISES = [("exact", lambda t, s: t), ("renamed", renamed), ("reordered", reordered),
             ("increments", increments), ("compound", compound), ("commuted", commuted),
             ("long", long_indices), ("nocomment", no_comments), ("mechanical", all_mechanical),
             ("while", while_loops), ("declorder", declaration_order), ("dead", dead_statements),
             ("everything", lambda t, s: dead_statements(while_loops(all_mechanical(renamed(reordered(t, s), s), s),
                                                                     s), s))]


class Lab:
    """One lab's test class: its number, the files students write, the originals' folder layout and the helper
    disguise (a function moving some code of one original into a helper, and which original)."""

    def __init__(self, number, files, helper, helper_of, originals=None):
        self.number, self.files, self.helper, self.helper_of = number, files, helper, helper_of
        self.starter = {n: (REPO / "labs" / f"lab{number}" / n).read_text() for n in files}
        self.expected = doc({n: (REPO / "solutions" / f"lab{number}" / n).read_text() for n in files})
        self.originals = originals or {o: {n: (HERE / f"similarity_lab{number}" / o / n).read_text() for n in files}
                                       for o in ORIGINALS}


def lab1_helper(files):
    """beta's ikj: its innermost loop (a row of C plus a times a row of B) moved into a helper function."""
    t = files["loop_orders.cpp"]
    helper = ("static void add_scaled_row(float* crow, const float* brow, float aik, int n) {\n"
              "    for (int j = 0; j < n; j++) crow[j] += aik * brow[j];\n}\n\n")
    old = "            for (int j = 0; j < N; j++) crow[j] += aik * brow[j];\n        }\n    }\n}\n\nvoid matmul_jik"
    check(old in t, "lab 1's helper disguise finds beta's ikj loop")
    t = t.replace(old, "            add_scaled_row(crow, brow, aik, N);\n        }\n    }\n}\n\nvoid matmul_jik")
    return dict(files, **{"loop_orders.cpp": t.replace("void matmul_ijk", helper + "void matmul_ijk", 1)})


def lab5_helper(files):
    """alpha's pack_b_panels: the copy of one row of a micro-panel moved into a helper function."""
    t = files["packing.cpp"]
    old = ("            for (int c = 0; c < NR; ++c) {\n                const std::int64_t col = c0 + c;\n"
           "                *out++ = col < nc ? B[p * ldb + col] : 0.0f;\n            }\n")
    helper = ("float* copy_row(const float* brow, std::int64_t c0, std::int64_t nc, int NR, float* out) {\n"
              "    for (int c = 0; c < NR; ++c) {\n        const std::int64_t col = c0 + c;\n"
              "        *out++ = col < nc ? brow[col] : 0.0f;\n    }\n    return out;\n}\n\n")
    check(old in t, "lab 5's helper disguise finds alpha's pack_b_panels loop")
    t = t.replace(old, "            out = copy_row(B + p * ldb, c0, nc, NR, out);\n")
    mark = "// Micro-panels [first_panel"
    return dict(files, **{"packing.cpp": t.replace(mark, helper + mark, 1)})


def lab7_helper(files):
    """gamma's tiled kernel: the product of the two tiles' row and column moved into a __device__ function."""
    out = {}
    for n, t in files.items():
        tile = "kTile" if n == "transposed_b.cu" else "TILE"
        bs = "BsT[lc][q]" if n == "transposed_b.cu" else "Bs[q][lc]"
        old = f"        for (int q = 0; q < n; ++q) total += As[lr][q] * {bs};\n"
        check(old in t, f"lab 7's helper disguise finds gamma's inner loop in {n}")
        arr = f"const float (*Bt)[{tile} + PAD]" if n == "transposed_b.cu" else f"const float (*Bt)[{tile}]"
        helper = (f"template <int {'PAD' if n == 'transposed_b.cu' else 'TILE'}>\n"
                  f"__device__ float tile_dot(const float (*At)[{tile}], {arr}, int lr, int lc, int n) {{\n"
                  "    float s = 0.0f;\n"
                  f"    for (int q = 0; q < n; ++q) s += At[lr][q] * {bs.replace('BsT', 'Bt').replace('Bs', 'Bt')};\n"
                  "    return s;\n}\n\n")
        t = t.replace(old, f"        total += tile_dot<{'PAD' if n == 'transposed_b.cu' else 'TILE'}>(As, "
                           f"{'BsT' if n == 'transposed_b.cu' else 'Bs'}, lr, lc, n);\n")
        out[n] = t.replace("namespace {\n\n", "namespace {\n\n" + helper, 1)
    return out


LABS = [Lab(1, ["loop_orders.cpp"], lab1_helper, "beta"),
        Lab(5, ["dot.cpp", "packing.cpp"], lab5_helper, "alpha"),
        Lab(7, ["tiled.cu", "transposed_b.cu"], lab7_helper, "gamma")]


def make_class(lab):
    """{student: document}, {student: the original their code comes from (None for a starter)}."""
    students, family = {}, {}
    for o, files in lab.originals.items():
        students[o], family[o] = doc(files), o
        for what, disguise in DISGUISES:
            starter = doc(lab.starter)
            copy = {n: disguise(t, lab.starter[n]) for n, t in files.items()}
            if what != "exact" and copy == files:
                continue  # nothing to disguise this way in this original (no ++i, no declarations in a row)
            students[f"{what}_{o}"], family[f"{what}_{o}"] = doc(copy), o
    students[f"helper_{lab.helper_of}"] = doc(lab.helper(lab.originals[lab.helper_of]))
    family[f"helper_{lab.helper_of}"] = lab.helper_of
    for s in ("starter_1", "starter_2"):
        students[s], family[s] = doc(lab.starter), None
    for what, _ in DISGUISES:
        check(any(f"{what}_{o}" in students for o in ORIGINALS),
              f"lab {lab.number}: the disguise '{what}' applies to at least one original")
    return students, family


def measure(lab):
    students, family = make_class(lab)
    t0 = time.monotonic()
    pairs, docs = similarity.compare(students, doc(lab.starter), lab.expected)
    pairs = [(p.score, p.a.name, p.b.name) for p in pairs]
    seconds = time.monotonic() - t0
    print(f"note - lab {lab.number}: the originals' code is the reference's for " + ", ".join(
        f"{o} {100 * docs[o].expected_share:.0f}%" for o in ORIGINALS) + " (excluded as expected code; the "
        "rest is what a copy is found by)")
    score = {frozenset((p[1], p[2])): p[0] for p in pairs}
    copies = {n: score.get(frozenset((n, f)), 0.0) for n, f in family.items() if f and n != f}
    independent = {(x, y): score.get(frozenset((x, y)), 0.0) for x, y in itertools.combinations(students, 2)
                   if family[x] and family[y] and family[x] != family[y]}
    starters = [p for p in pairs if family[p[1]] is None or family[p[2]] is None]
    weakest = min(copies.items(), key=lambda kv: kv[1])
    worst = max(independent.items(), key=lambda kv: kv[1])
    print(f"note - lab {lab.number}: {len(students)} submissions compared in {seconds:.2f} s; copies against their "
          "original: " + "; ".join(f"{n} {100 * v:.0f}%" for n, v in sorted(copies.items())))
    print(f"note - lab {lab.number}: independent pairs ({len(independent)}) at most {100 * worst[1]:.0f}% "
          f"({'+'.join(worst[0])}); among the originals: " + "; ".join(
              f"{x}+{y} {100 * score.get(frozenset((x, y)), 0.0):.0f}%"
              for x, y in itertools.combinations(ORIGINALS, 2)))
    print(f"note - lab {lab.number}: MARGIN {100 * (weakest[1] - worst[1]):.0f} points: the weakest copy "
          f"({weakest[0]}, {100 * weakest[1]:.0f}%) above the highest independent pair ({100 * worst[1]:.0f}%)",
          flush=True)
    check(weakest[1] > worst[1], f"lab {lab.number}: every disguised copy scores above every independent pair",
          f"{weakest} vs {worst}")
    check(weakest[1] >= similarity.SHOW_AT, f"lab {lab.number}: every disguised copy is flagged "
          f"({100 * similarity.SHOW_AT:.0f}% or more)", str(weakest))
    check(worst[1] < similarity.SHOW_AT and not any(p[0] >= similarity.SHOW_AT for p in starters),
          f"lab {lab.number}: no independent pair and no starter flagged",
          f"{worst}; " + "; ".join(f"{p[1]}+{p[2]} {100 * p[0]:.0f}%" for p in starters))
    check(not starters, f"lab {lab.number}: the untouched starters share nothing with anybody",
          "; ".join(f"{p[1]}+{p[2]} {100 * p[0]:.0f}%" for p in starters))


def expected_code():
    """Lab 1's plain solution, written as the reference writes it, is what every careful student writes: in a
    small class (nothing common to five students) it made an honest student look like a copier. The reference
    handed in as a student's own, against the three independent solutions, without and with the expected code."""
    lab = LABS[0]
    small = {o: doc(f) for o, f in lab.originals.items()}
    small["plain"] = lab.expected.replace("reference::lab1", "student::lab1")
    small["mechanical_alpha"] = doc({n: all_mechanical(t, "") for n, t in lab.originals["alpha"].items()})
    small["starter"] = doc(lab.starter)
    rows = {}
    for label, expected in (("without", ""), ("with", lab.expected)):
        pairs = similarity.ranked_pairs(small, doc(lab.starter), expected)
        score = {frozenset((p[1], p[2])): p[0] for p in pairs}
        rows[label] = (max(score.get(frozenset(("plain", o)), 0.0) for o in ORIGINALS),
                       max(score.get(frozenset(x), 0.0) for x in itertools.combinations(ORIGINALS, 2)),
                       score.get(frozenset(("alpha", "mechanical_alpha")), 0.0))
        print(f"note - lab 1, a class of {len(small)}, {label} the reference as expected code: the plain solution "
              f"against the independent ones at most {100 * rows[label][0]:.0f}%, independent pairs at most "
              f"{100 * rows[label][1]:.0f}%, alpha's mechanical copy {100 * rows[label][2]:.0f}%", flush=True)
    pairs, docs = similarity.compare(small, doc(lab.starter), lab.expected)
    page = similarity_report.html_page(pairs, docs, 1, len(small), (similarity.K, similarity.W),
                                       expected=", nor the expected code")
    plain = f"<tr><td>plain</td><td>0%</td><td>nobody</td><td>{100 * docs['plain'].expected_share:.0f}%</td></tr>"
    print(f"note - lab 1: the reference handed in is {100 * docs['plain'].expected_share:.0f}% the reference's code; "
          "the independent solutions " + ", ".join(f"{100 * docs[o].expected_share:.0f}%" for o in ORIGINALS))
    check(docs["plain"].expected_share >= similarity.REFERENCE_LIKE and plain in page,
          "the reference handed in shares nothing with anybody, yet has its row on the page: 'reference' "
          f"{100 * docs['plain'].expected_share:.0f}%", plain)
    check(rows["with"][0] < similarity.SHOW_AT and rows["with"][1] < similarity.SHOW_AT
          and rows["with"][2] >= similarity.SHOW_AT,
          "lab 1, a small class with the expected code: the plain solution and the independent ones not flagged, "
          "the copy flagged", str(rows))


def normalizations():
    """Declaration order and dead statements, on small pieces (the rest: test_similarity.py)."""
    def symbols(src):
        return " ".join(t[0] for t in simtokens.tokens(src))
    same = [("float a = x[i]; int n = m; c = a * n;", "int n = m; float a = x[i]; c = a * n;",
             "two independent declarations in either order"),
            ("c = a;", "int unused = 3; c = a; ;", "an unused variable and an empty statement"),
            ("c = a;", "float t = 1.0f; t = t; c = a; (void)t;", "x = x; and (void)x; of a variable used nowhere else"),
            ("c += a;", "c += a; c += 0; c *= 1;", "x += 0 and x *= 1"),
            ("for (int i = 0; i < n; ++i) { s += a[i]; }", "for (int i = 0; i < n; ++i) { int pad = 0; s += a[i]; }",
             "an unused variable inside a loop")]
    for x, y, what in same:
        check(symbols(x) == symbols(y), f"the same tokens: {what}", f"{symbols(x)}\n       {symbols(y)}")
    differ = [("float a = x[i]; float b = a; c = a + b;", "float b = a; float a = x[i]; c = a + b;",
               "a declaration naming the variable of the one before it stays after it"),
              ("int n = f(); c = a;", "c = a;", "an unused variable whose value is a call (an effect) stays"),
              ("(void)f(x); c = a;", "c = a;", "(void)f(x) calls f: it stays"),
              ("c[i] = c[j];", "", "c[i] = c[j] is not x = x")]
    for x, y, what in differ:
        check(symbols(x) != symbols(y), f"different tokens: {what}", f"{symbols(x)}\n       {symbols(y)}")


if __name__ == "__main__":  # (similarity_scale.py imports the disguises)
    normalizations()
    for lab in LABS:
        measure(lab)
    expected_code()
    checks.finish("similarity of labs 1, 5, 7")
