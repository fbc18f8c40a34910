#!/usr/bin/env python3
"""Paths a student release names but does not contain.

A student reads the release's README, handouts, starters and scripts; a path
in them that the release lacks (solutions/..., tools/grading/, a test left
out) is a dead end, and in a handout a hint that points at the answers.
Every path-like word of every text file of the release that starts with one
of the repository's top-level folders is looked up in the release: as a file
or folder, or under prebuilt/include/ (where the references' headers go, so
that `#include "solutions/labN/x.h"` resolves there). Left alone: build/
(made by the build), words with a placeholder (labN, `$n`, `*`, `<...>`),
a mention that says where it is (the word "instructor" on its line or the
line before: "the instructors' tools/grade.py"), .gitignore, and the Makefile
with its parts (make/*.mk), whose rules for an instructor's tree (solutions/
present) are inert in a release by design (they test `$(wildcard solutions/.)`).

  python3 tests/release/release_paths.py RELEASE_DIR   one line per dead path, exit 1 if any
test_release.py runs it on the release it builds.
"""
import re
import sys
from pathlib import Path

TOP = ("solutions", "tools", "tests", "handouts", "labs", "harness", "cpu", "gpu", "peers", "models", "prebuilt")
PATH = re.compile(r"(?<![\w./$-])((?:%s)/[\w./+-]*|ARCHITECTURE\.md)" % "|".join(TOP))
SKIP_FILES = {"Makefile", ".gitignore"}
SKIP_FOLDERS = ("make/", "prebuilt/lib/", "build/", ".git/")
PLACEHOLDER = re.compile(r"labN|[*$<{]|\.\.\.")


def is_text(p):
    try:
        return b"\0" not in p.read_bytes()[:4096]
    except OSError:
        return False


def dangling(rel):
    """[(file, line number, path)] for every path the release names and lacks."""
    rel = Path(rel)
    out = []
    for f in sorted(rel.rglob("*")):
        r = f.relative_to(rel).as_posix()
        if not f.is_file() or r in SKIP_FILES or r.startswith(SKIP_FOLDERS) or not is_text(f):
            continue
        lines = f.read_text(errors="replace").splitlines()
        for n, line in enumerate(lines, 1):
            if "instructor" in line.lower() or n > 1 and "instructor" in lines[n - 2].lower():
                continue
            for m in PATH.finditer(line):
                path = m.group(1).rstrip(".,:;)'\"`/")
                if PLACEHOLDER.search(line[m.start():m.end() + 1]) or path.count("/") == 0 and path in TOP:
                    continue
                if not ((rel / path).exists() or (rel / "prebuilt" / "include" / path).exists()):
                    out.append((r, n, path))
    return out


def main(argv):
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        print("usage: release_paths.py RELEASE_DIR (a tree written by make student-release)", file=sys.stderr)
        return 2
    found = dangling(argv[1])
    for r, n, path in found:
        print(f"{r}:{n}: names {path}, which the release does not have")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
