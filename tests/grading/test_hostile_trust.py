#!/usr/bin/env python3
"""A hostile class against the grader's trusted programs and limits (issue 24,
broken behaviours 1, 5 and 6), beside test_hostile.py: lab 1, graded twice by
tools/grade.py with a grader environment as CUDA images have it - an
LD_LIBRARY_PATH that ends in ':' and a PATH with an empty entry (both mean "the
current folder").

  planter    the reference; its first test (ijk) compiles, into its own tree,
             a libdl.so.2 (a stub with glibc's version names, as the real one
             is since glibc 2.34, and a constructor) and writes a `bash`
             script there: a checker started in that tree would load the one
             and run the other, as the grader (root). Its last test (kji)
             looks for the checker's report or log among its descriptors.  6/6
  memhog     the reference; its ikj test holds 5 GiB of anonymous shared
             memory (memfds of the file-size limit each, which the
             address-space limit does not count)   5/6 where a cgroup counts
             the sandbox's memory (--memory-mb 1024), else 6/6 and the run
             says memory is NOT limited
  reference  the control                                                   6/6

Outside the grader: neither the library's constructor nor the planted bash
leaves its mark (files in /tmp the planted code writes), in either run; both
runs give identical grades.csv files. Minutes (builds); run from the
repository root after `make checker runner LAB=1`, as make test does through
tests/test_grading_sandbox.cpp. Prints one line per check; exits 1 if any fails.
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
import checks  # noqa: E402 (after: no __pycache__ in the checkout)
from checks import check  # noqa: E402
MARKS = {"lib": Path("/tmp/mmlab-hostile-trust-lib"), "bash": Path("/tmp/mmlab-hostile-trust-bash")}


HEADERS = r'''
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>
'''
# Written into the tree by the planter's first test: the library and the program a trusted process would
# pick up from its current folder.
PLANT = r'''
    {
        std::FILE* f = std::fopen("planted.c", "w");
        std::fputs("#include <stdio.h>\n#include <unistd.h>\n"
                   "__attribute__((constructor)) static void planted(void) {\n"
                   "    FILE* f = fopen(\"MARK_LIB\", \"w\");\n"
                   "    if (f) { fprintf(f, \"uid %d\\n\", (int)getuid()); fclose(f); }\n}\n"
                   "void placeholder(void) {}\n", f);
        std::fclose(f);
        f = std::fopen("planted.map", "w");
        std::fputs("GLIBC_2.2.5 { global: placeholder; local: *; };\nGLIBC_2.3.3 { } GLIBC_2.2.5;\n"
                   "GLIBC_2.3.4 { } GLIBC_2.3.3;\nGLIBC_2.34 { } GLIBC_2.3.4;\n", f);
        std::fclose(f);
        if (std::system("/usr/bin/cc -shared -fPIC -o libdl.so.2 planted.c -Wl,-soname,libdl.so.2 "
                        "-Wl,--version-script=planted.map") != 0)
            throw std::runtime_error("could not build the planted library");
        f = std::fopen("bash", "w");
        std::fputs("#!/bin/sh\nid -u > MARK_BASH\nexec /bin/bash \"$@\"\n", f);
        std::fclose(f);
        chmod("bash", 0755);
    }
'''.replace("MARK_LIB", str(MARKS["lib"])).replace("MARK_BASH", str(MARKS["bash"]))
# The planter's last test: no descriptor of the checker's (its report, its log) is open in the runner.
FDS = r'''
    if (DIR* d = opendir("/proc/self/fd")) {
        while (dirent* e = readdir(d)) {
            char link[4096] = {};
            const std::string p = std::string("/proc/self/fd/") + e->d_name;
            if (readlink(p.c_str(), link, sizeof link - 1) > 0) {
                const std::string l = link;
                if (l.find(".xml") != std::string::npos || l.find(".log") != std::string::npos ||
                    l.find(".output") != std::string::npos)
                    throw std::runtime_error("escaped: the checker's " + l + " is open in the runner");
            }
        }
        closedir(d);
    }
'''
# memhog's ikj: 5 GiB in memfds of 64 MiB (the file-size limit of these runs, --max-output-mb 64).
HOG = r'''
    {
        const std::size_t chunk = std::size_t(64) << 20;
        std::string block(chunk, 'x');
        for (int i = 0; i < 80; ++i) {
            const int fd = memfd_create("hog", 0);
            if (fd < 0 || write(fd, block.data(), chunk) != ssize_t(chunk)) break;
        }
    }
'''


def student_files(bodies):
    """The reference solution as a student hands it in, with bodies[order] at the top of matmul_<order>."""
    files = checks.lab1_as_handed_in()
    text = files["loop_orders.cpp"].replace("#include <algorithm>", "#include <algorithm>\n" + HEADERS, 1)
    for order, body in bodies.items():
        m = re.search(r"void matmul_" + order + r"\([^)]*\)\s*\{", text)
        assert m, order
        text = text[:m.end()] + "\n" + body + "\n" + text[m.end():]
    files["loop_orders.cpp"] = text
    return files


def make_class(sub):
    for name, bodies in (("planter", {"ijk": PLANT, "kji": FDS}), ("memhog", {"ikj": HOG}), ("reference", {})):
        folder = sub / name / "labs" / "lab1"
        folder.mkdir(parents=True)
        for f, text in student_files(bodies).items():
            (folder / f).write_text(text)


def hostile_env():
    """The grader's environment as a CUDA image gives it: empty entries in LD_LIBRARY_PATH and PATH."""
    libs = os.environ.get("LD_LIBRARY_PATH", "")
    return dict(os.environ, LD_LIBRARY_PATH=(libs + ":" if libs else ":"), PATH=":" + os.environ["PATH"])


def check_run(out, run, printed):
    rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    summary = (out / "summary.txt").read_text(encoding="utf-8")
    counted = re.search(r"memory and processes per sandbox: (cgroup[12]) group", summary)
    missing = "memory and processes per sandbox: NOT limited (" in summary
    check(bool(counted) != missing, f"run {run}: summary.txt says how a sandbox's memory is counted, or that it is "
          "not and why", summary[:1500])
    for mark, path in MARKS.items():
        check(not path.exists(), f"run {run}: the planted {'library' if mark == 'lib' else 'bash'} never ran "
              "(no trusted program starts in a student's tree or takes its programs and libraries from there)",
              path.read_text() if path.exists() else "")
    fb = (out / "planter" / "feedback.txt").read_text(encoding="utf-8") if (out / "planter").is_dir() else ""
    check(rows.get("planter", {}).get("score") == "6", f"run {run}: planter 6/6 (no descriptor of the checker's in "
          "its runner; its planting costs it nothing)", fb[:1500])
    check(rows.get("reference", {}).get("score") == "6", f"run {run}: the control 6/6", str(rows.get("reference")))
    hog = rows.get("memhog", {}).get("score")
    fb = (out / "memhog" / "feedback.txt").read_text(encoding="utf-8") if (out / "memhog").is_dir() else ""
    if counted:
        check(hog == "5" and "SIGKILL" in fb, f"run {run}: memhog's 5 GiB of memfds are stopped at the sandbox's "
              f"1024 MiB ({counted.group(1)}): 5/6", fb[:1500])
    else:
        print(f"skip - run {run}: memory per sandbox is not limited here (summary.txt says why); memhog got {hog}/6",
              flush=True)


def main():
    for p in MARKS.values():
        p.unlink(missing_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-hostile-trust-"))
    os.chmod(tmp, 0o711)
    try:
        sub = tmp / "submissions"
        make_class(sub)
        subprocess.run(["chmod", "-R", "a+rX", str(sub)])
        work = tmp / "work"
        work.mkdir()
        os.chmod(work, 0o711)
        flags = ["--test-timeout", "20", "--build-timeout", "60", "--max-output-mb", "64", "--memory-mb", "1024"]
        checks.graded_twice(sub, tmp, work, flags, hostile_env(), check_run)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        for p in MARKS.values():
            p.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
    checks.finish("trusted hostile grading")
