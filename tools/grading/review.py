"""Review flags: things in a student's files worth a human look (calling the
reference solution, starting processes, opening files...). They never change
a score, since legitimate code can match them (a debugging fopen); they are
listed for the instructor only (grades.csv's review column, summary.txt),
never in the student's feedback. What the starter's own version of the same
file already contains (some labs give helpers from solutions/) is not flagged.
"""

import re

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


def matches(text, pattern):
    """The distinct matches of pattern in C++ source text, comments removed, whitespace collapsed."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)  # comments do not count
    return {" ".join(m.group("show" if "show" in m.re.groupindex else 0).split())
            for m in re.finditer(pattern, text)}


def review_flags(student_dir, starter_dir, used):
    """One line per file and kind of finding ("<file>: <what> (<up to three matches>)") for the student's
    files (names in `used`) in student_dir, counting only what the starter's file in starter_dir lacks."""
    def found(path, pattern):
        return matches(path.read_text("utf-8", "replace"), pattern)

    flags = []
    for n in used:
        for pattern, what in SUSPICIOUS:
            new = found(student_dir / n, pattern) - found(starter_dir / n, pattern)
            if new:
                shown = ", ".join(sorted(new)[:3]) + (", ..." if len(new) > 3 else "")
                flags.append(f"{n}: {what} ({shown})")
    return flags
