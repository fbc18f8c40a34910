"""Review flags: things in a student's files worth a human look (calling the
reference solution, starting processes, opening files...). They never change
a score, since legitimate code can match them (a debugging fopen); they are
listed for the instructor only (grades.csv's review column, summary.txt),
never in the student's feedback. What the starter's own version of the same
file already contains (some labs give helpers from solutions/) is not flagged.

A submission controls the text reviewed, so the review must not stall a
class: comments are removed in one pass (strip_comments; a regular
expression for /* ... */ takes time quadratic in the number of /* without a
*/), every pattern below runs in time linear in the file, and the review of
one student runs as a child process (this file run as a script) that is
stopped after REVIEW_SECONDS: a review that did not finish is a flag of its
own, never a stalled run, and -j reviews run on several cores at once.
"""

import json
import re
import subprocess
import sys

# Seconds for the review of one student's files (at most 1 MiB each; the review takes well under a second).
REVIEW_SECONDS = 30

# (pattern, what it means). A pattern with a group named "show" flags that
# group's text; otherwise the whole match is shown.
SUSPICIOUS = [
    (r"\breference\s*::\s*\w+(?:\s*::\s*\w+)*|solutions/[\w./]+", "uses the reference solution"),
    (r"\b(system|popen|fork|vfork|execl|execlp|execle|execv|execvp|execve|posix_spawn)\s*\(", "starts processes"),
    (r"\b(_exit|_Exit|quick_exit|exit|abort)\s*\(", "ends the program itself"),
    (r"/proc/|/dev/|\bgetenv\s*\(|MML_IMPL|doctest", "looks at the test environment"),
    (r"\b(fopen|open|creat|unlink|remove|rename)\s*\(|\b[io]?fstream(?=\s*[\w({])", "opens or removes files"),
    (r"(?m)^(?![ \t]*#[ \t]*include)[^\n]*?(?P<show>\"/[\w.-]+/[^\"\n]*\")", "names an absolute path"),
    (r"\b(socket|connect|getaddrinfo)\s*\(", "uses the network"),
    (r"#\s*include\s*[\"<]\s*(/|\.\.)", "includes a file by absolute or parent path"),
    (r"\b(asm|__asm__)\b", "inline assembly"),
]


_COMMENT_START = re.compile(r"/[/*]")
_LINE_COMMENT_START = re.compile(r"//")


def strip_comments(text):
    """C++ source text with each // and /* */ comment replaced by a space, in one pass. As before it (and as
    the review has always done) string literals are not special; a /* without a */ after it is text, and so
    is every later /*, which can have no */ either."""
    out, i, start = [], 0, _COMMENT_START
    while True:
        m = start.search(text, i)
        if m is None:
            break
        j = m.start()
        if text.startswith("//", j):
            end = text.find("\n", j)
            end = len(text) if end < 0 else end
        else:
            end = text.find("*/", j + 2)
            if end < 0:  # no */ anywhere after this one: from here on only // starts a comment
                out.append(text[i:j + 2])
                i, start = j + 2, _LINE_COMMENT_START
                continue
            end += 2
        out.append(text[i:j])
        out.append(" ")
        i = end
    out.append(text[i:])
    return "".join(out)


def matches(text, pattern):
    """The distinct matches of pattern in C++ source text, comments removed, whitespace collapsed."""
    return _matches(strip_comments(text), pattern)


def _matches(code, pattern):
    return {" ".join(m.group("show" if "show" in m.re.groupindex else 0).split())
            for m in re.finditer(pattern, code)}


def clip(match, most=80):
    """A match as a flag quotes it: at most `most` characters (a string can be a whole file long)."""
    return match if len(match) <= most else match[:most] + "..."


def flags_in_process(student_dir, starter_dir, used):
    """review_flags' work, in this process (without its time limit)."""
    def code(path):
        return strip_comments(path.read_text("utf-8", "replace")) if path.is_file() else ""

    flags = []
    for n in used:
        mine, given = code(student_dir / n), code(starter_dir / n)
        for pattern, what in SUSPICIOUS:
            new = _matches(mine, pattern) - _matches(given, pattern)
            if new:
                shown = ", ".join(clip(m) for m in sorted(new)[:3]) + (", ..." if len(new) > 3 else "")
                flags.append(f"{n}: {what} ({shown})")
    return flags


def review_flags(student_dir, starter_dir, used, seconds=REVIEW_SECONDS):
    """One line per file and kind of finding ("<file>: <what> (<up to three matches>)") for the student's
    files (names in `used`) in student_dir, counting only what the starter's file in starter_dir lacks.
    Runs as a child process, stopped after `seconds` (then the one flag says so)."""
    # The child: the same interpreter, isolated from the environment (-I), in a folder no student can write,
    # reading the file names from its command line (any bytes: they pass as they are).
    cmd = [sys.executable, "-I", "-B", __file__, str(student_dir), str(starter_dir)] + list(used)
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/", timeout=seconds,
                           env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    except subprocess.TimeoutExpired:
        return [f"review not finished in {seconds:g} s (the files are unusual): review {', '.join(used)} by hand"]
    if r.returncode != 0:
        last = (r.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
        return [f"review failed ({last}): review {', '.join(used)} by hand"]
    return json.loads(r.stdout)


if __name__ == "__main__":  # review_flags' child: student folder, starter folder, file names -> JSON list
    from pathlib import Path
    print(json.dumps(flags_in_process(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:])))
