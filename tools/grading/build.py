"""Building: the snapshot of this checkout that every student's build starts
from (the starter's lab folder taken from git HEAD, so that an instructor's
own solution in the checkout is never graded as "the starter"), its build
folder seeded from the checkout's build/ (so that make compiles only what
differs), the starter tree built once, and one student's tree built under the
sandbox, with the compiler's first error quoted for the feedback."""

import os
import re
import shutil
import subprocess
from pathlib import Path

from .common import REPO, SetupError
from .sandbox import clean_env, read_head, run_limited, tail_lines

# The targets every build makes: the tests and the harness (for --perf and the tests that run it).
TARGETS = ["build/bin/mmlab-tests", "build/bin/mmlab"]
# How much of a failed build the feedback quotes.
BUILD_ERROR_LINES = 40
# Largest file a build may write (the linked test program is tens of MiB);
# --max-output-mb limits the files written when the student's code runs.
BUILD_FILE_KB = 1024 * 1024


def git(*args, binary=False):
    """git in this checkout: its output, or None when git fails (or this is not a git checkout)."""
    r = subprocess.run(["git", "-C", str(REPO)] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
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
                    "cpu", "gpu", "Makefile")
        if dirty and dirty.strip():
            notes.append("tests/, harness/, cpu/, gpu/ or the Makefile have uncommitted changes: they ARE used "
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
    for name in ("config.mk", "flags.txt", "toolchain.txt"):
        if (src / name).is_file():
            shutil.copy2(src / name, dest_build / name)
    shutil.copytree(src / "obj", dest_build / "obj", symlinks=True)
    if (src / "cc").is_dir():  # compile_commands.json's entries: an object without one is compiled again
        shutil.copytree(src / "cc", dest_build / "cc", symlinks=True)
    if (src / "bin").is_dir():
        shutil.copytree(src / "bin", dest_build / "bin", symlinks=True)
    return True


def build_starter(base, log, limits, jobs, without_cuda):
    """Builds the starter tree once (an hour at most); raises SetupError with the build's last lines
    when it fails. without_cuda: configure with CUDA=0 (a CPU lab built from scratch: much shorter)."""
    env = {"TMPDIR": str(base / ".tmp")}
    (base / ".tmp").mkdir()
    if without_cuda:
        env["CUDA"] = "0"
    rc, timed_out, _ = run_limited(["make", f"-j{jobs}", "--no-print-directory"] + TARGETS, base, base, log, 3600,
                                   limits, 7200, clean_env(env), fsize_kb=BUILD_FILE_KB)
    if rc != 0 or timed_out:
        raise SetupError(f"the starter tree does not build here:\n{tail_lines(read_head(log), 20)}")


def build_submission(tree, logs, jobs, timeout, limits):
    """Builds one student's tree. Returns (status: ok | build-timeout | build-failed, feedback text)."""
    log = logs / "build.log"
    cmd = ["make", f"-j{jobs}", "--no-print-directory"] + TARGETS
    env = clean_env({"TMPDIR": str(tree / ".tmp")})
    rc, timed_out, secs = run_limited(cmd, tree, tree, log, timeout, limits, timeout + 10, env,
                                      fsize_kb=BUILD_FILE_KB)
    if timed_out:
        return "build-timeout", (f"BUILD: did not finish in {timeout:g} s; nothing could be tested.")
    if rc == 0 and all((tree / t).is_file() for t in TARGETS):
        return "ok", ""
    return "build-failed", compiler_errors(read_head(log), tree)


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
