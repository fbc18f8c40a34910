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

Beside paths, the same texts (outside the same instructors' lines) are searched for
  targets   every `make TARGET` (in backticks, on a code block's line, or in a string
            literal: "make lab1 ..."), looked up among the release's .PHONY targets
            (labN: the catalog's labs); the instructors' targets a release cannot run
            (grade, checker, runner, gradescope, student-release: their tools are left
            out) count as dead there
  sections  every section a text names by its file and title (`README.md, "Plots"`,
            `handouts/lab5.md ("Feeding the tile ...")`, `README, "Plots"`), looked up
            among the headings, bold run-in titles and hint summaries of that file in
            the release: a student sent to a section the release's README lacks
            (the repository's README is not the release's) is stuck
and `make help` in the release (help_findings) names only targets and paths it has.
  python3 tests/release/release_paths.py RELEASE_DIR   one line per dead path, target or section, exit 1 if any
test_release.py runs it on the release it builds.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "structure"))
import phony  # noqa: E402

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


MAKE_USE = re.compile(r"(?:`|^\s*|')make((?:\s+[^\s`\"']+)+)")
TARGET_WORD = re.compile(r"^[a-z][\w.-]*$")
# Targets whose tools a release leaves out (tools/grade.py, tools/release/, tools/gradescope/).
RELEASE_CANNOT = {"grade", "checker", "runner", "gradescope", "student-release"}
SECTION_REF = re.compile(r"((?:[\w./-]+/)?[\w.-]+\.md|\bREADME\b)\)?(?:,\s*|\s+\()\\?[\"“](?=\S)([^\"”\\]{2,})")


def phony_targets(rel):
    """The .PHONY targets of a tree's Makefile and make/*.mk (tests/structure/phony.py)."""
    return phony.phony_targets(rel)


def named_targets(line, in_code, targets_seen=frozenset()):
    """The targets of every `make ...` the line names (a code block's line: the line itself)."""
    out = []
    for m in MAKE_USE.finditer(line):
        start = m.group(0).lstrip()[:1]
        if not in_code and start not in ("`", "'"):
            continue  # prose: "make sure", "make the table"
        words = m.group(1).split()
        if start == "'" and (not words or words[0] not in targets_seen):
            continue  # a quoted sentence that starts with "make", not a command
        for word in words:
            if word.startswith("-") or "=" in word:
                continue
            if not TARGET_WORD.match(word) or "/" in word:
                break  # a comment, [OPTIONAL], a file target ...
            out.append(word)
    return out


def sections_of(path):
    """The titles a text can name as a section of a markdown file: headings, bold run-in titles, hint summaries."""
    titles = []
    for line in path.read_text(errors="replace").splitlines():
        for m in (re.match(r"^#{1,6}\s+(.*)", line), re.match(r"^\s*\*\*(.+?)\*\*", line),
                  re.search(r"<summary>(.*?)</summary>", line)):
            if m:
                titles.append(norm(m.group(1)))
    return titles


def norm(text):
    return " ".join(re.sub(r"[`*_]", "", text).lower().split())


def dead_references(rel):
    """[(file, line number, what)] for every make target and section the release's texts name and it lacks."""
    rel = Path(rel)
    targets = phony_targets(rel)
    out, cache = [], {}
    for f in sorted(rel.rglob("*")):
        r = f.relative_to(rel).as_posix()
        if not f.is_file() or r in SKIP_FILES or r.startswith(SKIP_FOLDERS) or not is_text(f):
            continue
        lines = f.read_text(errors="replace").splitlines()
        out += text_findings(rel, r, lines, targets, cache, markdown=f.suffix == ".md")
    return out


def text_findings(rel, r, lines, targets, cache, markdown):
    rel, out, in_code = Path(rel), [], False
    for n, line in enumerate(lines, 1):
        if markdown and line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if "instructor" in line.lower() or n > 1 and "instructor" in lines[n - 2].lower():
            continue
        for t in named_targets(line, in_code, targets | RELEASE_CANNOT):
            if PLACEHOLDER.search(t) or re.fullmatch(r"lab[NM]", t):
                continue
            if t in RELEASE_CANNOT:
                out.append((r, n, f"make {t}, which needs the instructors' tools (not in the release)"))
            elif t not in targets:
                out.append((r, n, f"make {t}, which the release's Makefile does not have"))
        for m in SECTION_REF.finditer(line):
            name, title = m.group(1), norm(m.group(2).rstrip(" .,;:…").rstrip("."))
            if not title or "labN" in name or "$" in name:
                continue
            path = rel / ("README.md" if name == "README" else name)
            if not path.is_file():
                path = rel / (Path(r).parent / name)
                if not path.is_file():
                    continue  # a path the path check reports (or one outside the release's reach)
            if path not in cache:
                cache[path] = sections_of(path)
            if not any(title in t or t.startswith(title) for t in cache[path]):
                out.append((r, n, f"section \"{m.group(2).strip()}\" of {name}, which the release's "
                                  f"{path.relative_to(rel).as_posix()} does not have"))
    return out


def help_findings(rel, text):
    """`make help`'s list in a release: [(\"make help\", line, what)] for targets and paths it lacks."""
    rel = Path(rel)
    lines = text.splitlines()
    out = text_findings(rel, "make help", lines, phony_targets(rel), {}, markdown=False)
    targets = phony_targets(rel)
    for n, line in enumerate(lines, 1):
        m = re.match(r"^#\s+make\s+(.*)", line)
        if m:
            for t in named_targets("`make " + m.group(1).split("  ")[0] + "`", False):
                if PLACEHOLDER.search(t) or re.fullmatch(r"lab[NM]", t):
                    continue
                if t in RELEASE_CANNOT or t not in targets and t not in ("all",):
                    out.append(("make help", n, f"lists make {t}, which the release cannot run"))
        for p in PATH.finditer(line):
            path = p.group(1).rstrip(".,:;)'\"`/")
            if not PLACEHOLDER.search(line[p.start():p.end() + 1]) and not (path.count("/") == 0 and path in TOP) \
                    and not path.startswith("build") and not (rel / path).exists():
                out.append(("make help", n, f"names {path}, which the release does not have"))
    return out


def main(argv):
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        print("usage: release_paths.py RELEASE_DIR (a tree written by make student-release)", file=sys.stderr)
        return 2
    found = dangling(argv[1])
    for r, n, path in found:
        print(f"{r}:{n}: names {path}, which the release does not have")
    refs = dead_references(argv[1])
    for r, n, what in refs:
        print(f"{r}:{n}: names {what}")
    return 1 if found or refs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
