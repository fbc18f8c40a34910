#!/usr/bin/env python3
"""Unit tests of tools/grading/review.py: what a student's file is flagged
for (the reference solution, processes, files, absolute paths, the network,
inline assembly...), comments not counted, and what the starter's own file
already has not flagged. No build."""
import sys
sys.dont_write_bytecode = True

import checks
from checks import Scratch, check
from grading import review

STARTER = """#include "labs/labX/kernel.h"
#include "solutions/labX/helpers.h"   // a helper the starter gives
void kernel() {
    reference::labX::helper();  // given
    // TODO: your code
}
"""


def flags_for(tmp, student_text, starter_text=STARTER):
    (tmp / "student").mkdir(exist_ok=True)
    (tmp / "starter").mkdir(exist_ok=True)
    (tmp / "student" / "kernel.cpp").write_text(student_text)
    (tmp / "starter" / "kernel.cpp").write_text(starter_text)
    return review.review_flags(tmp / "student", tmp / "starter", ["kernel.cpp"])


def flagged(tmp):
    cases = [
        ("calls the reference", "reference::labX::matmul(A, B, C);", "uses the reference solution (reference::labX::matmul)"),
        ("includes the solutions", '#include "solutions/labX/kernel.h"', "solutions/labX/kernel.h"),
        ("starts a process", 'system("ls");', "starts processes (system()"),
        ("exits", "std::exit(0);", "ends the program itself (exit()"),
        ("reads the environment", 'getenv("MML_IMPL");', "looks at the test environment"),
        ("opens a file", 'std::ofstream out("x");', "opens or removes files (ofstream)"),
        ("names an absolute path", 'const char* p = "/home/bob/lab/kernel.cpp";',
         'names an absolute path ("/home/bob/lab/kernel.cpp")'),
        ("uses the network", "socket(AF_INET, SOCK_STREAM, 0);", "uses the network (socket()"),
        ("includes by absolute path", '#include "/etc/passwd"', "includes a file by absolute or parent path"),
        ("includes by parent path", '#include "../../other/kernel.h"', "includes a file by absolute or parent path"),
        ("inline assembly", 'asm volatile("nop");', "inline assembly (asm)"),
    ]
    for what, line, expect in cases:
        flags = flags_for(tmp, STARTER.replace("// TODO: your code", line))
        check(any(f.startswith("kernel.cpp: ") and expect in f for f in flags), f"flagged: {what}", str(flags))


def not_flagged(tmp):
    check(flags_for(tmp, STARTER) == [], "the starter's own helpers (reference::, solutions/) are not flagged")
    quiet = STARTER.replace("// TODO: your code", '// system("ls"); fopen("/etc/x")\n    /* std::exit(1);\n  asm */'
                            "\n    float sum = 0; for (int i = 0; i < 4; ++i) sum += i;")
    check(flags_for(tmp, quiet) == [], "comments, line and block, do not count")
    intrinsics = STARTER.replace("// TODO: your code", "__m256 v = _mm256_fmadd_ps(a, b, c); exit_code = 1; reopen = 2;")
    check(flags_for(tmp, intrinsics) == [], "SIMD intrinsics and names that merely contain a flagged word pass")
    check(flags_for(tmp, STARTER.replace('#include "labs/labX/kernel.h"', '#include "/abs/kernel.h"'))
          == ["kernel.cpp: includes a file by absolute or parent path (#include \"/)"],
          "an absolute #include is flagged as an include, not also as an absolute path in a string")


def many(tmp):
    text = STARTER.replace("// TODO: your code", "system(a); popen(b); fork(); execv(c, d);")
    flags = flags_for(tmp, text)
    check(flags == ["kernel.cpp: starts processes (execv(, fork(, popen(, ...)"],
          "one line per kind of finding: three matches shown, sorted, then '...'", str(flags))
    check(review.matches("a  =  reference ::  labX :: f", review.SUSPICIOUS[0][0]) == {"reference :: labX :: f"},
          "whitespace in a match collapsed")


with Scratch() as tmp:
    flagged(tmp)
    not_flagged(tmp)
    many(tmp)
checks.finish("review")
