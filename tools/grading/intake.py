"""Taking in submissions: the student folders of a submissions folder, where
in a student's folder the lab's files are (labs/labN/, labN/, the folder
itself, or the one folder below that holds them, as a course platform's
download or an unpacked archive nests them), and copying them over the
starter, refusing what is not a plain file of a sensible size.

Only the names of the starter's own files are taken (the lab's files); the
rest of a submission is listed as ignored, never built. A file that includes
anything from solutions/ (the reference solution) is refused, with a line
that says so (build.py also checks, after the build, every header the
compiler read).
"""

import os
import re
import time
from pathlib import Path

from .common import UsageError
from .escape import line  # a name in a note stays one line of it, whatever its bytes
from .review import strip_comments

# A handed-in file larger than this is refused (the starter's is used).
MAX_SUBMITTED_FILE_BYTES = 1024 * 1024
# How deep below a student's folder the lab's files are looked for when they
# are not in one of the three layouts, and what counts as an archive.
NESTED_DEPTH = 4
ARCHIVES = r"\.(zip|tar|tgz|tar\.gz|tar\.bz2|tar\.xz|7z|rar|gz)$"


def student_folders(sub):
    """The student folders, in name order, and the names of the other entries (files: not students).
    Raises UsageError when there is no student folder."""
    if not sub.exists():
        raise UsageError(f"submissions folder {sub} does not exist: give SUBMISSIONS=<folder with one sub-folder per student>")
    if not sub.is_dir():
        raise UsageError(f"{sub} is not a folder: SUBMISSIONS must be a folder with one sub-folder per student")
    try:
        entries = sorted(sub.iterdir(), key=lambda e: e.name)
    except OSError as e:
        raise UsageError(f"cannot read {sub}: {e.strerror}")
    students = [e for e in entries if e.is_dir() and not e.is_symlink() and not e.name.startswith(".")]
    if not students:
        raise UsageError(f"{sub} has no student folders: put each student's files in a sub-folder named after the student")
    return students, [e.name for e in entries if e not in students and not e.name.startswith(".")]


def standard_layouts(folder, lab_number):
    """The three places the lab's files may be, in the order they are tried."""
    return [folder / "labs" / f"lab{lab_number}", folder / f"lab{lab_number}", folder]


def find_lab_files(folder, lab_number, lab_files):
    """Which folder of the submission holds the lab's files: labs/labN/, labN/ or the folder itself; else
    the one folder below (at most NESTED_DEPTH deep) that holds any of them. Returns (folder or None, notes
    for when it is None: the several folders or the archives found instead)."""
    names = set(lab_files)
    for cand in standard_layouts(folder, lab_number):
        # A symbolic link must not lead the grader out of the student's folder.
        inside = folder.resolve() == cand.resolve() or folder.resolve() in cand.resolve().parents
        if inside and cand.is_dir() and not cand.is_symlink() and any((cand / n).exists() or (cand / n).is_symlink()
                                                                      for n in names):
            return cand, []
    found, archives = [], []
    for root, dirs, files in os.walk(folder):  # os.walk does not follow symbolic links to folders
        depth = len(Path(root).relative_to(folder).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__MACOSX" and depth < NESTED_DEPTH)
        if Path(root) != folder and any(n in names and not os.path.islink(os.path.join(root, n)) for n in files):
            found.append(Path(root))
        archives += [os.path.join(root, f) for f in files if re.search(ARCHIVES, f, re.I)]
    if len(found) == 1:
        return found[0], []
    notes = []
    if found:
        notes.append(f"lab {lab_number} files in {len(found)} folders ("
                     + ", ".join(line(f.relative_to(folder.parent)) for f in found[:5])
                     + "), so none was graded: hand in one copy")
    if archives:
        notes.append("an archive (" + ", ".join(line(Path(f).relative_to(folder.parent)) for f in archives[:5])
                     + "), which is not unpacked: hand in the files themselves (or unpack it and grade again)")
    return None, notes


def solutions_includes(text):
    """The paths of the #include lines of C++ source text (comments removed) that name something in solutions/."""
    text = strip_comments(text)  # in one pass: a regular expression takes quadratic time on many /*
    paths = re.findall(r'(?m)^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]*)[>"]', text)
    return [p for p in paths if re.search(r"(?:^|/)solutions(?:/|$)", p.strip())]


def new_solutions_include(submitted, starter):
    """The first solutions/ include of the submitted file that the starter's own file (if any) does not have
    (an include the starter has is the course's choice, not the student's), or None."""
    given = solutions_includes(starter.read_text("utf-8", "replace")) if starter.is_file() else []
    new = [p for p in solutions_includes(submitted.read_text("utf-8", "replace")) if p not in given]
    return new[0] if new else None


def copy_submission_files(src, folder, lab_number, lab_files, dest, build_dir):
    """Copies the student's lab files from src (found in their folder) over the starter's in dest.
    A changed file gets a modification time newer than anything in build_dir, so that make rebuilds it;
    an unchanged one keeps the starter's objects.
    Returns (used, starter, refused, problems): the names taken, the names not handed in (the starter's
    version stays), the refused files (one line each, handed in but not used), and the feedback lines
    (the refused ones and the files ignored)."""
    used, starter, refused, extra = [], [], [], []
    newest = max((p.stat().st_mtime for p in build_dir.rglob("*") if p.is_file()), default=time.time())
    stamp = max(time.time(), newest + 1)
    for n in sorted(lab_files):
        f = src / n
        # A refused file is named as refused (not as missing: it was handed in).
        if f.is_symlink():
            refused.append(f"{n}: a symbolic link, not a file: refused, the starter version was used")
        elif not f.exists():
            starter.append(n)
        elif not f.is_file():
            refused.append(f"{n}: not a regular file: refused, the starter version was used")
        elif f.stat().st_size > MAX_SUBMITTED_FILE_BYTES:
            refused.append(f"{n}: larger than {MAX_SUBMITTED_FILE_BYTES // 1024} KiB: refused, "
                           "the starter version was used")
        elif (bad := new_solutions_include(f, dest / n)):
            refused.append(f"{n}: includes {bad}: files from solutions/ (the reference "
                           "solution) are not available to submissions: refused, the starter version was used")
        else:
            data = f.read_bytes()
            used.append(n)
            if data != (dest / n).read_bytes():  # unchanged files keep the starter's objects
                (dest / n).write_bytes(data)
                os.utime(dest / n, (stamp, stamp))
    # The student's folder itself holds the files: its labs/ or labN/ (empty of lab files) is no news.
    skip = {"labs", f"lab{lab_number}"} if src == folder else set()
    for e in sorted(src.iterdir(), key=lambda e: e.name):
        if e.name not in lab_files and e.name not in skip and not e.name.startswith("."):
            extra.append(line(e.name) + ("/" if e.is_dir() else ""))
    problems = list(refused)
    if extra:
        shown = ", ".join(extra[:20]) + (f" and {len(extra) - 20} more" if len(extra) > 20 else "")
        problems.append(f"Ignored (not part of lab {lab_number}; only its own files are graded): {shown}")
    return used, starter, refused, problems
