#!/usr/bin/env python3
"""The instructors' documents name only what exists: every repository path and every make
target in them (the instructors' ARCHITECTURE.md, README.md, handouts/grading.md, and the
pages under docs/ that README.md links).

  paths    every word that starts with a top-level folder of the repository
           (labs/common/blis_loops.h, make/sources.mk, tests/structure/), its
           braces expanded (harness/format.{h,cpp}) and its * matched
           (strassen_level.*); in the instructors' layout block ("What lives
           where"), also the names indented under a folder (`  bench.{h,cpp}`
           under harness/). Left alone: build/ and prebuilt/ (made by the
           build and the release), words with a placeholder (labN, labM, <...>,
           $x, ...) or naming the worked example's new lab 13, and the few
           files written elsewhere (CREATED below).
  targets  every `make TARGET` in backticks or at the start of a code block's
           line, looked up among the .PHONY targets of the Makefile and make/*.mk
           (labN: one per line of labs/catalog.txt).

A student release has no developers' map (the instructors' ARCHITECTURE.md; its README,
docs/ and handouts are checked by the instructors' release test): then it says so and exits 77.
Run from anywhere, in about a tenth of a second; prints one FAIL line per missing
path or target, exits 1 if any.
"""
import glob
import re
import sys
from pathlib import Path

import phony  # noqa: E402  (beside this file)

REPO = Path(__file__).resolve().parent.parent.parent
# the instructors' (and the pages README.md links, docs/*.md)
DOCS = ["ARCHITECTURE.md", "README.md", "handouts/grading.md"] + sorted(
    p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md"))
TOP = sorted(p.name for p in REPO.iterdir() if p.is_dir() and p.name != ".git")
PATH = re.compile(r"(?<![\w./$~-])((?:%s)/[\w./+*{},-]*)" % "|".join(re.escape(t) for t in TOP))
PLACEHOLDER = re.compile(r"lab[NM]\b|labN|lab13|<|\$|\.\.\.")
MADE = ("build/", "prebuilt/")
# Written by a tool, not kept in the repository: make student-release LAB=N's
# workflow; the weights file the instructors' grading.md shows as an example.
CREATED = {".github/workflows/classroom.yml", "tools/grading/lab1.weights"}
MAKE = re.compile(r"^make((?:\s+\S+)+)")
WORD = re.compile(r"^[a-z][\w.-]*$")


def expand(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [x for alt in m.group(1).split(",") for x in expand(path[:m.start()] + alt + path[m.end():])]


def exists(path):
    path = path.rstrip("/")
    return bool(glob.glob(str(REPO / path))) if "*" in path else (REPO / path).exists()


def missing(path):
    """The expansions of `path` that do not exist ([] when all do, or it is left alone)."""
    if PLACEHOLDER.search(path):
        return []
    path = path.rstrip(".,:;)'\"` ]#")  # (a markdown link's "](" and "#anchor" end it too)
    if path.startswith(MADE) or path in CREATED:
        return []
    out = [p for p in expand(path) if not exists(p)]
    # two folder names ("cpu or gpu", a catalog kind) are a choice, not a path
    return [p for p in out if not all(part in TOP for part in p.strip("/").split("/"))]


def layout_paths(lines):
    """(line number, path) for the names of the fenced layout block under "What lives where"."""
    out, inside, seen_heading, folder = [], False, False, ""
    for n, line in enumerate(lines, 1):
        if line.startswith("## What lives where"):
            seen_heading = True
        elif seen_heading and line.startswith("```"):
            if inside:
                break
            inside = True
        elif inside:
            top = re.match(r"^(\S+)\s", line + " ")
            sub = re.match(r"^  (\S+)\s{2,}", line)
            if top:
                folder = top.group(1) if top.group(1).endswith("/") else ""
                out.append((n, top.group(1)))
            elif sub and folder:
                out.append((n, folder + sub.group(1)))
    return out


def phony_targets():
    def unreadable(word):
        raise SystemExit(f"FAIL doc_paths.py cannot read .PHONY's {word}: teach phony.phony_targets() its value")
    return phony.phony_targets(REPO, unreadable)


def make_targets(line, in_code):
    """The targets of every `make ...` in backticks on the line (in a code block: the line itself)."""
    spans = re.findall(r"`([^`]+)`", line)
    if in_code:
        spans.append(line.strip())
    out = []
    for s in spans:
        m = MAKE.match(s)
        if not m:
            continue
        for word in m.group(1).split():
            if word.startswith("-") or "=" in word:
                continue
            if not WORD.match(word):
                break  # a comment, [OPTIONAL], ...
            out.append(word)
    return out


def main():
    # the instructors' document, left out of a student release:
    if not (REPO / "ARCHITECTURE.md").exists():
        print("doc paths: no instructors' ARCHITECTURE.md here (a student release): nothing to check")
        return 77  # could not run here (tests/script_test.h)
    targets = phony_targets()
    bad = checked = 0
    for doc in DOCS:
        lines = (REPO / doc).read_text().splitlines()
        # (the character after the match too: tests/grading/test_<module>.py is a placeholder)
        found = [(n, m.group(1) + line[m.end():m.end() + 1]) for n, line in enumerate(lines, 1)
                 for m in PATH.finditer(line)]
        # the instructors' layout block:
        if doc == "ARCHITECTURE.md":
            found += layout_paths(lines)
        for n, path in found:
            checked += 1
            for p in missing(path):
                bad += 1
                print(f"FAIL {doc}:{n}: names {p}, which does not exist")
        in_code = False
        for n, line in enumerate(lines, 1):
            if line.startswith("```"):
                in_code = not in_code
                continue
            for t in make_targets(line, in_code):
                checked += 1
                if t not in targets and not PLACEHOLDER.search(t) and not t.startswith(MADE):
                    bad += 1
                    print(f"FAIL {doc}:{n}: names `make {t}`, which the Makefile and make/*.mk do not have")
    print(f"doc paths: {checked} paths and make targets in {', '.join(DOCS)}; {bad} missing")
    if bad:
        return 1
    print("doc paths tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
