#!/usr/bin/env python3
"""What a reader meets stays readable: the handouts teach, the documents lead somewhere.

  budget     every handouts/labN.md is at most 4,000 words (lab 12: 5,000), counted as
             `wc -w` counts them (runs of non-blank characters)
  tasks      its tasks heading (a "## " heading with the word "tasks": "## The tasks")
             is within its first 80 lines, so that a student reaches the work early
  notebook   no ISO date (2026-01-31), UTC time (20:21 UTC) or commit hash (7 to 40 hex
             digits, letters and digits mixed) in a handout, except on one line inside its
             "## What to expect" section: the provenance sentence of its one table
  seed       no "seed" + "00N" (the project's internal numbers for its sources; cite them by
             title and authors) in anything a user reads: README.md, docs/*.md,
             handouts/*.md, labs/catalog.txt (mmlab list), the test names students see
             in their feedback (TEST_CASE/SUBCASE strings under tests/), and the string
             literals of harness/ (mmlab's output)
  licence    LICENSE is at the top level (the release test checks that it ships)
  links      every relative markdown link in README.md, docs/*.md and handouts/*.md
             names a file or folder that exists, and its #anchor a heading of that file
             (GitHub's slugs) or an <a id/name> in it

It first checks itself on two made-up trees, a compliant one (must pass) and one that
breaks each rule once (each must be found), then the tree it lives in. It applies to a
student release as well (its README, handouts and docs ship); it exits 77 only where
there is nothing it reads (no handouts/ and no README.md).
Run from anywhere, in well under a second; one FAIL line per finding, exit 1 if any.
  python3 tests/structure/readers.py [TREE]   (default: this repository)
"""
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
BUDGET, BUDGET_LAB12 = 4000, 5000
TASKS_BY = 80
TASKS = re.compile(r"^##\s+.*\btasks\b", re.I)
EXPECT = re.compile(r"^##\s+What to expect\b", re.I)
DATE = re.compile(r"(?<![\w-])\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?![\w-])")
UTC = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\s*UTC\b")
HEX = re.compile(r"(?<![\w/.#-])[0-9a-f]{7,40}(?![\w-])")
# The project's internal numbers for its sources, spelt so that a grep for them finds no line here.
INTERNAL = "seed " + "00"
SEED = re.compile(INTERNAL, re.I)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
TEST_NAME = re.compile(r'\b(?:TEST_CASE|TEST_CASE_FIXTURE|SUBCASE|SCENARIO|TEST_SUITE)\s*\(\s*(?:\w+\s*,\s*)?'
                       r'((?:"(?:[^"\\\n]|\\.)*"\s*)+)')
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.I)


def is_hash(word):
    """A commit hash, not a number or an English word: hex letters and digits mixed."""
    return any(c.isdigit() for c in word) and any(c in "abcdef" for c in word)


def handouts(tree):
    return sorted((tree / "handouts").glob("lab*.md"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))


def lab_budget(path):
    return BUDGET_LAB12 if path.stem == "lab12" else BUDGET


def prose_lines(lines):
    """(number, line) outside fenced code blocks, with inline code spans blanked."""
    fence = None
    for n, line in enumerate(lines, 1):
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if m:
            if fence is None:
                fence = m.group(1)[0] * 3
            elif m.group(1).startswith(fence):
                fence = None
            continue
        if fence is None:
            yield n, re.sub(r"`[^`]*`", "", line)


def slug(heading):
    """GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading)                   # inline html
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)   # a link keeps its text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    out, seen = set(), {}
    lines = path.read_text(errors="replace").splitlines()
    for _, line in prose_lines(lines):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            out.add(s if s not in seen else f"{s}-{seen[s]}")
            seen[s] = seen.get(s, 0) + 1
    for line in lines:
        out.update(HTML_ANCHOR.findall(line))
    return out


def check_handout(tree, path):
    rel = path.relative_to(tree).as_posix()
    text = path.read_text(errors="replace")
    lines = text.splitlines()
    out = []
    words = len(text.split())
    if words > lab_budget(path):
        out.append(f"{rel}: {words} words, over its budget of {lab_budget(path)}")
    tasks = next((n for n, line in prose_lines(lines) if TASKS.match(line)), None)
    if tasks is None:
        out.append(f"{rel}: no tasks heading (\"## The tasks\")")
    elif tasks > TASKS_BY:
        out.append(f"{rel}:{tasks}: the tasks heading is at line {tasks}, after line {TASKS_BY}")
    section, provenance = None, None
    fence = False
    for n, line in enumerate(lines, 1):
        if re.match(r"^\s*(```|~~~)", line):
            fence = not fence
        if not fence and line.startswith("## "):
            section = "expect" if EXPECT.match(line) else "other"
        found = DATE.findall(line) + UTC.findall(line) + [w for w in HEX.findall(line) if is_hash(w)]
        if not found:
            continue
        if section == "expect" and provenance is None:
            provenance = n  # the one provenance sentence of its table
            continue
        where = ("a second dated line in \"What to expect\" (the first: line %d)" % provenance
                 if section == "expect" else "outside \"What to expect\"'s provenance sentence")
        out.append(f"{rel}:{n}: {', '.join(found[:3])}: {where} (dated runs belong in handouts/data/)")
    return out


def seed_findings(tree):
    out = []
    docs = [tree / "README.md", tree / "labs" / "catalog.txt"]
    docs += sorted((tree / "docs").glob("*.md")) + sorted((tree / "handouts").glob("*.md"))
    for path in docs:
        if path.is_file():
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if SEED.search(line):
                    out.append(f"{path.relative_to(tree).as_posix()}:{n}: {INTERNAL}N: cite the source by title "
                               f"and authors")
    sources = [p for folder in ("tests", "harness") if (tree / folder).is_dir()
               for p in sorted((tree / folder).rglob("*")) if p.suffix in (".cpp", ".cu", ".h", ".cuh")]
    for path in sources:
        text = path.read_text(errors="replace")
        rel = path.relative_to(tree).as_posix()
        if rel.startswith("tests/"):
            shown = [(m.start(), m.group(1)) for m in TEST_NAME.finditer(text)]
            what = "a test name"
        else:
            shown = [(m.start(), m.group(0)) for m in STRING.finditer(text)]
            what = "a string mmlab prints"
        for pos, s in shown:
            if SEED.search(s):
                out.append(f"{rel}:{text.count(chr(10), 0, pos) + 1}: {INTERNAL}N in {what}: cite the source "
                           f"by title and authors")
    return out


def link_findings(tree):
    out = []
    docs = [tree / "README.md"] + sorted((tree / "docs").glob("*.md")) + sorted((tree / "handouts").glob("*.md"))
    cache = {}
    for doc in docs:
        if not doc.is_file():
            continue
        rel = doc.relative_to(tree).as_posix()
        for n, line in prose_lines(doc.read_text(errors="replace").splitlines()):
            targets = LINK.findall(line) + REF_LINK.findall(line)
            for t in targets:
                if re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I) or t.startswith("//"):
                    continue  # a URL (http:, mailto:): not ours to resolve offline
                file_part, _, anchor = t.partition("#")
                target = (doc.parent / file_part).resolve() if file_part else doc
                if not target.exists():
                    out.append(f"{rel}:{n}: links to {t}, and {file_part} does not exist")
                    continue
                if anchor and target.is_file() and target.suffix == ".md":
                    if target not in cache:
                        cache[target] = anchors(target)
                    if anchor not in cache[target]:
                        out.append(f"{rel}:{n}: links to {t}, and {file_part or rel} has no heading "
                                   f"#{anchor}")
    return out


def check_tree(tree):
    """Every finding in the tree, one line each."""
    tree = Path(tree)
    out = []
    for path in handouts(tree):
        out += check_handout(tree, path)
    out += seed_findings(tree)
    if not (tree / "LICENSE").is_file():
        out.append("LICENSE: missing at the top level (a course cannot adopt material without a licence)")
    out += link_findings(tree)
    return out


# The made-up tree's sources (written so that no path checker takes them for files of this repository).
MADE_UP_TEST, MADE_UP_STRINGS = "/".join(("tests", "test_lab6.cpp")), "/".join(("harness", "lab.cpp"))


def fixture(root, broken):
    """A small tree that follows every rule (broken=False), or breaks each once (broken=True)."""
    (root / "handouts").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "labs").mkdir()
    (root / "tests").mkdir()
    (root / "harness").mkdir()
    if not broken:
        (root / "LICENSE").write_text("MIT License\n")
    handout = ["# Lab 1 - measuring", "", "Some background.", "", "## The tasks", "",
               "1. Write `ijk` (see [the hints](#hints) and [lab 2](lab2.md#the-tasks)).", "",
               "## Hints", "", "Open one at a time.", "",
               "## What to expect", "", "| stage | GFLOP/s |", "|---|---|", "| ijk | 1.9 |", "",
               "Measured on an Intel Xeon on 2026-11-22 with make lab1 SOLUTION=1 (tree 9a1faac).", "",
               "```", "$ date", "ok", "```", ""]
    if broken:
        handout = handout[:4] + ["filler"] * 80 + handout[4:]          # tasks after line 80
        handout[2] = "Measured 2026-11-28 20:21 UTC at commit c124db1."   # notebook outside What to expect
        handout.append("A second run on 2026-11-29.")                      # a second dated line there
        handout.append(f"As {INTERNAL}3 says, see [the missing page](nowhere.md) and [x](#no-such-heading).")
    (root / "handouts" / "lab1.md").write_text("\n".join(handout) + "\n")
    lab2 = ["# Lab 2", "", "## The tasks", "", "Write it."]
    if broken:
        lab2 += ["word " * 4001]
    (root / "handouts" / "lab2.md").write_text("\n".join(lab2) + "\n")
    (root / "handouts" / "lab12.md").write_text("# Lab 12\n\n## Tasks\n\n" + "word " * 4500 + "\n")
    (root / "README.md").write_text("# x\n\n[Lab 1](handouts/lab1.md#what-to-expect), [setup](docs/setup.md),"
                                    " [web](https://example.org/a), `[code](not/a/link.md)`\n")
    (root / "docs" / "setup.md").write_text("# Set-up\n\n## Your environment\n\nBack to [the README](../README.md)."
                                            + (" A [dead anchor](../README.md#start-here)." if broken else "")
                                            + "\n")
    (root / "labs" / "catalog.txt").write_text("10 | cpu | lab10 | - | performance models"
                                               + (f" ({INTERNAL}4)" if broken else "") + "\n")
    (root / MADE_UP_TEST).write_text(
        f'// {INTERNAL}3 in a comment is no test name\nTEST_CASE("lab6.block_reduce (64 threads'
        + (f", {INTERNAL}3's block" if broken else '') + ')") {\n    SUBCASE("n = 1") {}\n}\n')
    (root / MADE_UP_STRINGS).write_text(f'// {INTERNAL}1 in a comment is fine\nconst char* s = "ratio vs '
                                        + (f'{INTERNAL}1' if broken else 'the forum post') + '";\n')


SELF_TEST_EXPECTED = [  # (file, what) that the broken fixture must produce
    ("handouts/lab1.md", "after line 80"), ("handouts/lab1.md:3", "outside"), ("handouts/lab1.md", "second dated"),
    ("handouts/lab2.md", "over its budget"), ("handouts/lab1.md", INTERNAL), ("labs/catalog.txt", INTERNAL),
    (MADE_UP_TEST + ":2", "test name"), (MADE_UP_STRINGS + ":2", "mmlab prints"), ("LICENSE", "missing"),
    ("handouts/lab1.md", "nowhere.md does not exist"), ("handouts/lab1.md", "#no-such-heading"),
    ("docs/setup.md", "#start-here"),
]


def self_test():
    """The rules on the two made-up trees; returns the FAIL lines (none when the checker works)."""
    fails = []
    with tempfile.TemporaryDirectory(prefix="mmlab-readers-") as tmp:
        good, bad = Path(tmp) / "good", Path(tmp) / "bad"
        fixture(good, broken=False)
        fixture(bad, broken=True)
        for line in check_tree(good):
            fails.append(f"FAIL self-test: the compliant fixture was faulted: {line}")
        found = check_tree(bad)
        for where, what in SELF_TEST_EXPECTED:
            if not any(line.startswith(where) and what in line for line in found):
                fails.append(f"FAIL self-test: the broken fixture's {where} ({what}) was not found")
        expected_count = len(SELF_TEST_EXPECTED)
        if len(found) != expected_count:
            fails.append(f"FAIL self-test: {len(found)} findings in the broken fixture, expected {expected_count}: "
                         + " | ".join(found))
    return fails


def main(argv):
    tree = Path(argv[1]).resolve() if len(argv) > 1 else REPO
    if not (tree / "handouts").is_dir() and not (tree / "README.md").is_file():
        print(f"readers: no handouts/ and no README.md in {tree}: nothing a reader reads to check")
        return 77  # could not run here (tests/script_test.h)
    fails = self_test()
    for line in fails:
        print(line)
    found = check_tree(tree)
    for line in found:
        print("FAIL " + line)
    n = len(handouts(tree))
    print(f"readers: {n} handouts, README.md, docs/, the catalog, test names and mmlab's strings checked; "
          f"{len(found)} findings" + (f"; the self-test failed {len(fails)} times" if fails else ""))
    if fails or found:
        return 1
    print("readers tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
