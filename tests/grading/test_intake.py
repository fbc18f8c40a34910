#!/usr/bin/env python3
"""Unit tests of tools/grading/intake.py on made-up submission folders: the
student folders of a submissions folder, the lab's files found in each layout
(labs/labN/, labN/, the folder itself, nested below, two copies, archives,
links out of the folder, names in other scripts), and the files copied over
the starter (refused links, big files, folders; ignored extras). No build."""
import sys
sys.dont_write_bytecode = True
import os
import time

import checks
from checks import Scratch, check, raises
from grading import intake
from grading.common import UsageError

LAB = 7  # any number: intake knows lab numbers only as folder names
FILES = ["kernel.cu", "kernel.h"]


def put(folder, names=FILES, text="// student\n"):
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        (folder / n).write_text(text)
    return folder


def student_folders(tmp):
    sub = tmp / "subs"
    e = raises(UsageError, intake.student_folders, sub)
    check(e is not None and "does not exist" in str(e), "no submissions folder: a usage error saying so", str(e))
    sub.mkdir()
    (sub / "notes.txt").write_text("x")
    (sub / ".hidden").mkdir()
    e = raises(UsageError, intake.student_folders, sub)
    check(e is not None and "no student folders" in str(e), "only a file and a dot folder: no student folders", str(e))
    for name in ("bob", "alice", "张三", "=cmd", "with space"):
        (sub / name).mkdir()
    os.symlink(sub / "alice", sub / "link-to-alice")
    students, stray = intake.student_folders(sub)
    check([s.name for s in students] == sorted(["alice", "bob", "张三", "=cmd", "with space"]),
          "student folders in name order; links, dot folders and files are not students",
          str([s.name for s in students]))
    check(sorted(stray) == ["link-to-alice", "notes.txt"], "the entries that are not students are named (not dot ones)",
          str(stray))
    e = raises(UsageError, intake.student_folders, sub / "notes.txt")
    check(e is not None and "is not a folder" in str(e), "a file given as the submissions folder: usage error")


def find(tmp, what, build, expect, notes_have=()):
    folder = tmp / f"student{len(list(tmp.iterdir())):02d}"
    folder.mkdir()
    build(folder)
    got, notes = intake.find_lab_files(folder, LAB, FILES)
    want = None if expect is None else folder / expect
    ok = got == want and all(any(n in note for note in notes) for n in notes_have)
    check(ok, f"layout, {what}: {'found in ' + (expect or 'the folder itself') if expect is not None else 'none'}",
          f"got {got}, notes {notes}")


def layouts(tmp):
    find(tmp, "the repository's layout", lambda f: put(f / "labs" / f"lab{LAB}"), f"labs/lab{LAB}")
    find(tmp, "the lab folder", lambda f: put(f / f"lab{LAB}"), f"lab{LAB}")
    find(tmp, "the files themselves", lambda f: put(f), "")
    find(tmp, "one file of two", lambda f: put(f, ["kernel.h"]), "")
    find(tmp, "the layouts' order: labs/labN/ first", lambda f: (put(f / f"lab{LAB}"), put(f / "labs" / f"lab{LAB}")),
         f"labs/lab{LAB}")
    find(tmp, "a folder of another name (labN+1/)", lambda f: put(f / f"lab{LAB + 1}"), f"lab{LAB + 1}")
    find(tmp, "nested one folder deeper", lambda f: put(f / "submission"), "submission")
    find(tmp, "nested four folders deep", lambda f: put(f / "a" / "b" / "c" / "d"), "a/b/c/d")
    find(tmp, "nested five folders deep", lambda f: put(f / "a" / "b" / "c" / "d" / "e"), None)
    find(tmp, "two nested copies", lambda f: (put(f / "v1"), put(f / "v2")), None, ["in 2 folders", "v1", "v2"])
    find(tmp, "a copy in __MACOSX beside the real one", lambda f: (put(f / "__MACOSX" / "x"), put(f / "real")), "real")
    find(tmp, "a dot folder only", lambda f: put(f / ".git" / "x"), None)
    find(tmp, "an archive only", lambda f: (f / "lab.tar.gz").write_bytes(b"\x1f\x8b"), None, ["lab.tar.gz", "not unpacked"])
    find(tmp, "an archive two folders down", lambda f: put(f / "x" / "y", ["Lab.ZIP"]), None, ["Lab.ZIP"])
    find(tmp, "files in a folder named in Chinese", lambda f: put(f / "作业"), "作业")
    find(tmp, "nothing", lambda f: None, None)

    # A link must not lead the grader out of the student's folder.
    outside = put(tmp / "someone-else" / "labs" / f"lab{LAB}")
    find(tmp, "labs/ a link to another student's folder", lambda f: os.symlink(outside.parent, f / "labs"), None)
    find(tmp, "a lab file that is a link, the layouts' only one",
         lambda f: os.symlink(outside / "kernel.h", f / "kernel.h"), "")
    find(tmp, "a nested folder with only a linked lab file", lambda f: (f / "sub").mkdir() or
         os.symlink(outside / "kernel.h", f / "sub" / "kernel.h"), None)


def copying(tmp):
    starter = put(tmp / "tree" / "labs" / f"lab{LAB}", FILES + ["helper.cpp"], "// starter\n")
    build_dir = tmp / "tree" / "build"
    (build_dir / "obj").mkdir(parents=True)
    (build_dir / "obj" / "x.o").write_text("o")
    future = time.time() + 1000  # an object newer than now: the student's file must be newer still
    os.utime(build_dir / "obj" / "x.o", (future, future))
    os.utime(starter / "kernel.h", (1000, 1000))
    lab_files = sorted(FILES + ["helper.cpp", "big.cpp", "dir.cpp", "linked.cpp"])
    for n in ("big.cpp", "dir.cpp", "linked.cpp"):
        (starter / n).write_text("// starter\n")

    folder = tmp / "alice"
    src = put(folder, ["kernel.cu"], "// alice's kernel\n")
    (src / "kernel.h").write_text("// starter\n")                # identical to the starter's
    (src / "big.cpp").write_bytes(b"/" * (intake.MAX_SUBMITTED_FILE_BYTES + 1))
    (src / "dir.cpp").mkdir()
    os.symlink("/etc/passwd", src / "linked.cpp")
    (src / "README.md").write_text("notes")
    (src / "build").mkdir()
    (src / ".DS_Store").write_text("x")
    (src / f"lab{LAB}").mkdir()                                  # an empty labN/ beside the files: no news
    used, starter_used, refused, problems = intake.copy_submission_files(src, folder, LAB, lab_files, starter,
                                                                         build_dir)
    check(used == ["kernel.cu", "kernel.h"], "the lab's regular files are used", str(used))
    check(starter_used == ["helper.cpp"], "a lab file not handed in is taken from the starter", str(starter_used))
    check(len(refused) == 3 and any("big.cpp: larger than 1024 KiB" in r for r in refused)
          and any("dir.cpp: not a regular file" in r for r in refused)
          and any("linked.cpp: a symbolic link" in r for r in refused),
          "refused: a file over 1 MiB, a folder, a link (each named as refused, not as missing)", str(refused))
    check((starter / "kernel.cu").read_text() == "// alice's kernel\n"
          and (starter / "big.cpp").read_text() == "// starter\n" and (starter / "linked.cpp").read_text() == "// starter\n",
          "the student's file replaces the starter's; a refused one leaves the starter's")
    check((starter / "kernel.cu").stat().st_mtime > future, "a changed file is newer than every object (make rebuilds it)")
    check((starter / "kernel.h").stat().st_mtime == 1000, "an unchanged file keeps its time (its objects are reused)")
    ignored = [p for p in problems if p.startswith("Ignored")]
    check(len(ignored) == 1 and "README.md" in ignored[0] and "build/" in ignored[0] and ".DS_Store" not in ignored[0]
          and f"lab{LAB}/" not in ignored[0] and f"not part of lab {LAB}" in ignored[0],
          "extras are listed as ignored (folders with a /; dot files and an empty labN/ left out)", str(ignored))
    check(problems[:3] == refused, "the feedback lines start with the refused files", str(problems))

    many = put(tmp / "bob", [f"extra{i:02d}.txt" for i in range(25)] + ["kernel.h"])
    _, _, _, problems = intake.copy_submission_files(many, many, LAB, FILES, starter, build_dir)
    check(any("and 5 more" in p for p in problems), "25 extras: 20 named, 'and 5 more'", str(problems))


with Scratch() as tmp:
    student_folders(tmp)
    (tmp / "layouts").mkdir()
    layouts(tmp / "layouts")
    copying(tmp)
checks.finish("intake")
