"""Building: the snapshot of this checkout that every student's build starts
from (the starter's lab folder taken from git HEAD, so that an instructor's
own solution in the checkout is never graded as "the starter"), its build
folder seeded from the checkout's build/ (so that make compiles only what
differs), the starter tree built once - with the grader's checker, the
starter's runner and the reference runner (make checker runner
reference-runner student-tests LAB=N, checker.py) - and one student's tree
built under the sandbox: a copy of the starter tree without any reference
code (no solutions/, no program or object built from them), in which only the
runner is built from the student's files. The compiler's first error is
quoted for the feedback; a call to a reference function (it does not link)
and an included file from solutions/ are named as such.

A student's build is untrusted code too (handouts/grading.md, "Build-time
attacks"): it runs in the sandbox like the tests, with a file size limit of
its own (STUDENT_BUILD_FILE_KB: an object or program that would be larger is
cut by SIGXFSZ), an address-space limit per process in every lab (GPU labs
included: the compiler reserves no GPU address space), and its clock; a build
stopped by one of them says which (build_limit_reason), and one that read a
file outside its tree and the system's folders is refused (read_outside)."""

import os
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

from .common import BUILD_FAILED, BUILD_TIMEOUT, BUILT, REPO, SetupError
from .environment import TRUSTED_CWD, clean_env, system_program, trusted_env
from .sandbox import read_head, run_limited, tail_lines
from .visible import SYSTEM_DIRS, lab_object_prerequisites

# The targets every build makes: the tests and the harness (for --perf and the tests that run it).
TARGETS = ["build/bin/mmlab-tests", "build/bin/mmlab"]
# How much of a failed build the feedback quotes.
BUILD_ERROR_LINES = 40
# Largest file a build may write (the linked test program is tens of MiB);
# --max-output-mb limits the files written when the student's code runs.
BUILD_FILE_KB = 1024 * 1024
# Largest file a student's build may write: an object, the runner, the compiler's temporaries, the build's log.
# A lab 1 runner is about 2 MiB, the tests linked with a student's code (student-tests) about 20 MiB, a GPU
# lab's with every architecture's code under 100 MiB; `static char x[1 << 30] = {1};` would be a 1 GiB object
# and a 1 GiB runner, written in seconds, for every such student.
STUDENT_BUILD_FILE_KB = 256 * 1024


def build_memory(limits, jobs):
    """The memory of a whole build's sandbox (limits.py): --memory-mb for each of its parallel compilers."""
    return limits.memory_mb * max(1, int(jobs))


def git(*args, binary=False):
    """git in this checkout: its output, or None when git fails (or this is not a git checkout)."""
    # Our tool: from the system's folders only (never the inherited PATH; none there: as without git), started
    # in a folder no student writes, with a trusted environment (no GIT_DIR or loader hooks inherited) but the
    # caller's HOME: the instructor's git settings (safe.directory for a checkout owned by another user).
    program = system_program("git")
    if not program:
        return None
    r = subprocess.run([program, "-C", str(REPO)] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       cwd=TRUSTED_CWD, close_fds=True, env=trusted_env({"HOME": os.environ.get("HOME", TRUSTED_CWD)}))
    if r.returncode != 0:
        return None
    return r.stdout if binary else r.stdout.decode("utf-8", "replace")


def _source_files():
    """This checkout's files, relative to it: tracked and untracked-but-not-ignored ones (without git: every
    file but build/ and .git/). Returns (commit or None, files)."""
    commit = git("rev-parse", "HEAD")
    commit = commit.strip() if commit else None
    listing = git("ls-files", "-z", "--cached", "--others", "--exclude-standard") if commit else None
    if listing is not None:
        return commit, [f for f in listing.split("\0") if f]
    files = []
    for root, dirs, names in os.walk(REPO):
        rel_root = Path(root).relative_to(REPO)
        dirs[:] = [d for d in dirs if not (rel_root == Path(".") and d in ("build", ".git"))]
        files += [str(rel_root / n) for n in names]
    return commit, files


def snapshot_sources(dest, lab_folder, skip):
    """Copies this checkout (sources only, modification times kept) to dest, leaving out the folders in skip
    (the submissions, OUT, the work folder); lab_folder (labs/labN) comes from git HEAD.
    Returns (commit or None, warnings)."""
    notes = []
    commit, files = _source_files()
    for rel in files:
        src = REPO / rel
        if any(s == src or s in src.parents for s in skip) or rel.startswith(".carry/"):
            continue
        if not src.is_file() or src.is_symlink():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    if commit:
        notes += _starter_from_head(dest, lab_folder, commit)
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", "tests", ":(exclude)tests/grading", "harness",
                    "cpu", "gpu", "Makefile", "make")
        if dirty and dirty.strip():
            notes.append("tests/, harness/, cpu/, gpu/ or the Makefile (make/) have uncommitted changes: they ARE used "
                         "(this checkout is graded as it is, not as committed)")
    return commit, notes


def _starter_from_head(dest, lab_folder, commit):
    """Makes dest's lab_folder exactly git HEAD's; returns a note per file that differed."""
    notes = []
    head = git("ls-tree", "-r", "--name-only", "HEAD", lab_folder + "/")
    head_files = set(head.split()) if head else set()
    for rel in sorted(head_files):
        blob = git("show", f"HEAD:{rel}", binary=True)
        if blob is not None and (not (dest / rel).exists() or (dest / rel).read_bytes() != blob):
            (dest / rel).write_bytes(blob)
            notes.append(f"{rel} differs from git HEAD here: the starter from HEAD ({commit[:10]}) is used")
    for f in sorted((dest / lab_folder).glob("*")):
        rel = f"{lab_folder}/{f.name}"
        if f.is_file() and rel not in head_files:
            f.unlink()
            notes.append(f"{rel} is not in git HEAD: left out of the starter")
    return notes


def seed_build(dest_build, fresh, need_cuda):
    """Starts from this checkout's build/ (objects, configuration), so that make rebuilds only what differs."""
    src = REPO / "build"
    if fresh or not (src / "config.mk").is_file() or not (src / "obj").is_dir():
        return False
    if need_cuda and re.search(r"^HAVE_CUDA := 1$", (src / "config.mk").read_text(), re.M) is None:
        return False  # configured without CUDA: the GPU tests are not in it
    dest_build.mkdir(parents=True, exist_ok=True)
    for name in ("config.mk", "flags.txt", "toolchain.txt", "nvcc.txt"):
        if (src / name).is_file():
            shutil.copy2(src / name, dest_build / name)
    shutil.copytree(src / "obj", dest_build / "obj", symlinks=True)
    if (src / "cc").is_dir():  # compile_commands.json's entries: an object without one is compiled again
        shutil.copytree(src / "cc", dest_build / "cc", symlinks=True)
    if (src / "bin").is_dir():
        shutil.copytree(src / "bin", dest_build / "bin", symlinks=True)
    return True


# The grader's programs of lab N, built in the starter tree (checker.Programs says where they are).
STARTER_GRADING_GOALS = ("checker", "runner", "reference-runner", "student-tests")


def build_starter(base, log, limits, jobs, without_cuda, programs=None):
    """Builds the starter tree once (an hour at most): the tests and the harness, and with programs
    (checker.Programs) the grader's checker, the starter's runner, the reference runner and the tests
    linked with the starter; raises SetupError with the build's last lines when it fails.
    without_cuda: configure with CUDA=0 (a CPU lab built from scratch: much shorter)."""
    env = {"TMPDIR": str(base / ".tmp")}
    (base / ".tmp").mkdir()
    if without_cuda:
        env["CUDA"] = "0"
    goals = TARGETS + (programs.make_goals(*STARTER_GRADING_GOALS) if programs else [])
    rc, timed_out, _ = run_limited(["make", f"-j{jobs}", "--no-print-directory"] + goals, base, base, log, 3600,
                                   limits, 7200, clean_env(env), fsize_kb=BUILD_FILE_KB,
                                   memory_mb=build_memory(limits, jobs))
    if rc != 0 or timed_out:
        what = "the starter tree does not build here"
        if programs and rc != 0 and "LINK  build/bin/lab" in read_head(log):
            what = (f"the grader's checker or runner of lab {programs.lab} does not build (each lab's harness must "
                    f"bind its references in harness/stages/lab{programs.lab}/references.cpp, never in stages.cpp, "
                    f"and its tests must not call a reference function)")
        raise SetupError(f"{what}:\n{tail_lines(read_head(log), 20)}")


def student_tree_ignore(base, programs):
    """For shutil.copytree(base, student tree): leaves out every reference source and everything built from
    one, so that no program or object with reference code is where the student's code runs: solutions/,
    the reference tests, the reference bindings' and solutions' objects, the reference libraries, the
    normal programs (linked with the references), and the grader's programs of the starter tree (the
    student's runner is built afresh; the checker and the reference runner are used from the starter tree).
    Kept: the library of the code given compiled to this lab (build/lib/libmmlab-given-labN.a, the
    Makefile's GIVEN_COMPILED: lab 4's is lab 3's recursion), which the runner links as it is."""
    base = Path(base)
    lab_bin = Path("build", "bin", f"lab{programs.lab}")

    def ignore(folder, names):
        rel = Path(folder).relative_to(base)
        if rel == Path("."):
            return {n for n in names if n in ("solutions", "prebuilt", ".grade-calibration")}
        if rel == Path("tests"):
            return {"reference"} & set(names)
        if rel == Path("build", "lib"):
            return {n for n in names if n != f"libmmlab-given-lab{programs.lab}.a"}
        if rel == Path("build", "bin"):
            return {n for n in names if n != lab_bin.name}
        if rel == lab_bin:
            return set(names)
        if rel == Path("build", "obj"):
            return {"solutions"} & set(names)
        if rel.parts[:4] == ("build", "obj", "harness", "stages"):
            return {n for n in names if n.startswith("references")}
        return set()

    return ignore


def build_submission(tree, logs, jobs, timeout, limits, programs=None, student_tests=False):
    """Builds one student's tree: with programs (checker.Programs) only their runner (make runner LAB=N) and,
    when the lab has tests the checker cannot run, the tests linked with their code; else the tests and the
    harness. Returns (status: BUILT | BUILD_TIMEOUT | BUILD_FAILED, feedback text)."""
    log = logs / "build.log"
    if programs:
        goals = programs.make_goals("runner", *(["student-tests"] if student_tests else []))
        made = [programs.runner(tree)] + ([programs.student_tests(tree)] if student_tests else [])
        for f in made:  # nothing left from the starter tree can pass for the student's build
            f.unlink(missing_ok=True)
    else:
        goals, made = TARGETS, [tree / t for t in TARGETS]
    cmd = ["make", f"-j{jobs}", "--no-print-directory"] + goals
    env = clean_env({"TMPDIR": str(tree / ".tmp")})
    limits = build_limits(limits)
    rc, timed_out, secs = run_limited(cmd, tree, tree, log, timeout, limits, timeout + 10, env,
                                      fsize_kb=STUDENT_BUILD_FILE_KB, memory_mb=build_memory(limits, jobs))
    if timed_out:
        return BUILD_TIMEOUT, (f"BUILD: did not finish in {timeout:g} s (the grader's time limit for a build: "
                                 "the compiler was stopped); nothing could be tested.")
    if rc == 0 and all(f.is_file() for f in made):
        included = solutions_included(tree, programs.lab) if programs else None
        if included:
            return BUILD_FAILED, (f"REFUSED: your code includes {included}: files from solutions/ are not "
                                    "available to submissions; nothing was tested.")
        outside = read_outside(tree, programs.lab if programs else None, limits.extra_dirs)
        if outside:
            return BUILD_FAILED, (f"REFUSED: the build read a file outside the submission ({outside}): "
                                    "a build may read only its own tree and the system's headers; nothing was "
                                    "tested.")
        return BUILT, ""
    text = read_head(log)
    stopped = build_limit_reason(text, limits)
    if stopped:
        return BUILD_FAILED, f"BUILD FAILED: {stopped}; nothing could be tested.\n" + compiler_errors(text, tree)
    symbol = reference_called(text)
    if symbol:
        why = ("code given compiled to a later lab: it is this lab's answer" if re.match(r"common::|_ZN6common", symbol)
               else "the reference solution is not part of it")
        return BUILD_FAILED, (f"BUILD FAILED: reference functions are not available to submissions: your code "
                                f"calls {symbol}, which the grader's build does not have ({why}); nothing could be "
                                "tested.")
    return BUILD_FAILED, compiler_errors(text, tree)


def build_limits(limits):
    """The limits of a student's build: the tests' (limits), with an address-space limit per process of
    --memory-mb in every lab. GPU labs run their tests without one (CUDA reserves far more address space than
    it uses), but their build runs no CUDA program, and without it a compiler reading `#include "/dev/zero"`
    would take the machine's memory wherever no cgroup counts the sandbox's (limits.py)."""
    if limits.mem_kb or not limits.memory_mb:
        return limits
    return replace(limits, mem_kb=limits.memory_mb * 1024)


# What a build stopped by one of its limits leaves in its log (gcc and collect2 name the signal that ended
# cc1plus, as or ld; make names it for a recipe; cc1plus says so itself when an allocation fails), and what
# the feedback says then.
_LIMIT_SIGNS = (
    (r"File size limit exceeded|signal 25\b|SIGXFSZ",
     "build output too large: a file the build wrote (an object, the program or the compiler's temporary) "
     "reached the build's size limit of {fsize} MiB"),
    (r"out of memory allocating|virtual memory exhausted|memory exhausted|std::bad_alloc|Cannot allocate memory|"
     r"Killed signal terminated program|terminated with signal 9\b",
     "the compiler ran out of memory (the build's limit: {memory} MiB a process)"),
    (r"CPU time limit exceeded|signal 24\b|SIGXCPU", "the compiler ran out of CPU time"),
)


def build_limit_reason(log_text, limits):
    """Why a failed build stopped, when a limit stopped it (build output too large, out of memory, CPU time),
    in words for the feedback; None for an ordinary compile error."""
    for pattern, words in _LIMIT_SIGNS:
        if re.search(pattern, log_text):
            return words.format(fsize=STUDENT_BUILD_FILE_KB // 1024, memory=limits.mem_kb // 1024 or "no")
    return None


def read_outside(tree, lab_number, extra_dirs=()):
    """A file outside the student's tree, the system's folders and the toolchain's (extra_dirs) that the
    compiler read for an object built from the lab's folder (its -MMD dependency file lists every header,
    however it was included: an absolute path, `../../` out of the tree), or None. Inside the sandbox such a
    file is not there to read (bwrap, unshare: the class, the checkout, the other trees are hidden); this
    check also holds where it is (the `net` and `none` levels). Files assembled with `.incbin` are not in the
    dependency files: only the sandbox keeps those out."""
    if lab_number is None:
        return None
    tree = Path(tree)
    allowed = [Path(d) for d in SYSTEM_DIRS] + [Path(d) for d in extra_dirs] + [tree]
    for deps in lab_object_prerequisites(tree, f"labs/lab{lab_number}"):
        for p in deps:
            full = Path(os.path.normpath(tree / p))  # an absolute p stays itself
            if not any(full == a or a in full.parents for a in allowed):
                return p
    return None


def reference_called(log_text):
    """The reference function a failed link names as undefined (the student's code calls one), or None.
    Given code (namespace common::) is always linked, but for the part given compiled to later labs only
    (the Makefile's GIVEN_COMPILED: lab 3's recursion, for lab 4 on), which is an earlier lab's answer."""
    m = re.search(r"undefined reference to [`'\"]?((?:reference::|_ZN9reference|common::|_ZN6common)[^'`\"\n]*)",
                  log_text)
    return m.group(1) if m else None


def solutions_included(tree, lab_number):
    """A file under a solutions/ folder that the compiler read for the student's objects (their dependency
    files, build/obj/labs/labN/*.d, list every header included, however the #include was written), or None."""
    for d in sorted((tree / "build" / "obj" / "labs" / f"lab{lab_number}").glob("*.d")):
        try:
            text = d.read_text("utf-8", "replace")
        except OSError:
            continue
        m = re.search(r"(?:^|[\s/])(solutions/[^\s:\\]+)", text)
        if m:
            return m.group(1)
    return None


def compiler_errors(log_text, tree):
    """The feedback for a failed build: BUILD_ERROR_LINES lines of the log from a little before its first
    error, the make progress lines left out and the temporary tree's path taken off the file names."""
    text = log_text.replace(str(tree) + "/", "")
    lines = [l for l in text.splitlines() if not re.match(r"\s*(CXX|NVCC|LINK)\s", l)]
    first = next((i for i, l in enumerate(lines) if re.search(r"\berror\b|Error \d+", l)), 0)
    start = max(0, first - 2)
    shown = lines[start:start + BUILD_ERROR_LINES]
    more = len(lines) - start - len(shown)
    return ("BUILD FAILED: your code did not compile, so no test could run. The compiler said "
            f"(first {len(shown)} lines from the first error):\n" + "\n".join("  " + l for l in shown)
            + (f"\n  [... {more} more lines ...]" if more > 0 else ""))
