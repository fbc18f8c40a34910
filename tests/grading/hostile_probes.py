"""What test_hostile.py's submissions are made of: the reference solution
with an attack put at the top of some of its six loop orders (with_probes),
so that each attack is one test case. Where an attack gets through (it read
what it must not see, say), its function throws "escaped: ..." (HEADERS) and
that test fails; a contained attack costs nothing. Case is what a case
expects; write() puts a submission's files in place.
"""
import re

ORDERS = ["ijk", "ikj", "jik", "jki", "kij", "kji"]

# What every attack may use: the headers, and how an attack that got through says so.
HEADERS = r'''
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace hostile {
inline void escaped(const std::string& what) { throw std::runtime_error("escaped: " + what); }
}  // namespace hostile
'''


def with_probes(files, bodies, extra_top=""):
    """The reference files with HEADERS and extra_top after the includes, bodies[order] at the top of
    matmul_<order>."""
    out = dict(files)
    text = out["loop_orders.cpp"].replace("#include <algorithm>", "#include <algorithm>\n" + HEADERS + extra_top, 1)
    for order, body in bodies.items():
        m = re.search(r"void matmul_" + order + r"\([^)]*\)\s*\{", text)
        assert m, order
        text = text[:m.end()] + "\n    " + body + "\n" + text[m.end():]
    out["loop_orders.cpp"] = text
    return out


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)


class Case:
    def __init__(self, name, expected, build="built", review=(), statuses=None, split=False, level_scores=None):
        self.name, self.expected, self.build, self.review = name, expected, build, list(review)
        self.statuses = statuses or {}    # order -> status word of its test (PASSED, FAILED, TIMEOUT, CRASHED...),
                                          # or a tuple of the words that all mean "contained" (a hog on a busy machine)
        self.split = split                # expected only once the checker/runner split has landed
        self.level_scores = level_scores or {}  # containment level -> expected score, where not `expected`


def outputs_name(name):
    """The student's folder in the grader's outputs (outputs.py's safe_name)."""
    from grading.outputs import safe_name  # (checks put tools/ on the path)
    return safe_name(name)
