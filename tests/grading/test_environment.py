#!/usr/bin/env python3
"""Unit tests of what trusted programs get from environment.py besides their
environment's variables (issue 24): a private temporary folder (0700, the
grader's, outside every student tree, gone afterwards) for the checker while
the student's runner keeps its own in its tree; the mpirun of an MPI lab taken
once from the instructor's environment, checked, and passed by absolute path
(MML_MPIRUN) to trusted and sandboxed programs alike; the environment a Slurm
job is submitted with; git by the system's path with a trusted environment. Seconds, no build."""
import sys
sys.dont_write_bytecode = True
import os
import shlex
import stat

import checks
from checks import Scratch, check
from grading import build, checker, environment, sandbox

FAKE_MPIRUN = "#!/bin/sh\necho fake mpirun\n"


def trusted_tmp(tmp):
    tree = tmp / "student"
    (tree / ".tmp").mkdir(parents=True)
    log = tmp / "checker.log"
    script = tmp / "checker.sh"  # stands in for the checker: says where its TMPDIR is and what it is like
    script.write_text('#!/bin/sh\necho "$TMPDIR"\nstat -c "%a %u" "$TMPDIR"\n')
    os.chmod(script, 0o755)
    rc, timed_out, _ = checker.run_trusted([script], log, 30, environment.trusted_env({"TMPDIR": str(tree / ".tmp")}))
    lines = log.read_text().split("\n")
    folder = lines[0]
    check(rc == 0 and not timed_out, "the trusted stand-in ran", log.read_text())
    check(folder and not folder.startswith(str(tree)), "the checker's TMPDIR is not in the student's tree "
          "(even when the caller passed one there)", folder)
    check(lines[1] == f"700 {os.geteuid()}", "it is the grader's, mode 0700 (no other user can list or write it)",
          lines[1])
    check(not os.path.exists(folder), "and it is removed when the checker ends", folder)
    programs = checker.Programs(tmp / "base", 1)
    line = checker.runner_line(programs, tree, sandbox.Limits("none", 0, 1024, 10), 5)
    check(f"TMPDIR={tree / '.tmp'}" in shlex.split(line),
          "the student's runner (untrusted) gets its own TMPDIR, in its tree, not the checker's", line)


def mpirun(tmp):
    saved, saved_dirs = dict(os.environ), environment.SYSTEM_PATH_DIRS
    module = tmp / "modules" / "openmpi" / "bin"  # where a cluster's `module load openmpi` puts it
    module.mkdir(parents=True)
    (module / "mpirun").write_text(FAKE_MPIRUN)
    os.chmod(module / "mpirun", 0o755)
    planted = tmp / "cwd-entry"
    planted.mkdir()
    (planted / "mpirun").write_text(FAKE_MPIRUN)
    os.chmod(planted / "mpirun", 0o755)
    try:
        environment.SYSTEM_PATH_DIRS = ()  # as on a machine without a system MPI
        os.environ.pop("MML_MPIRUN", None)
        os.environ["PATH"] = f":cwd-entry:{module}:/usr/bin"
        os.chdir(tmp)
        path, why = environment.find_mpirun()
        check(path == str(module / "mpirun") and not why,
              "mpirun from the instructor's PATH (a loaded module), by absolute path; an empty or relative "
              "entry (the current folder) never counts", f"{path} {why}")
        environment.pin_mpirun(path)
        t, c = environment.trusted_env(), environment.clean_env()
        check(t["MML_MPIRUN"] == path and c["MML_MPIRUN"] == path and t["PATH"] == environment.SYSTEM_PATH,
              "pinned: trusted programs (the reference runner) and sandboxed ones get MML_MPIRUN, never that "
              "PATH", str(t))
        os.chmod(module, 0o777)
        path, why = environment.find_mpirun()
        check(path is None and "chmod go-w" in why, "an mpirun in a folder others can write: refused, naming the fix",
              why)
        os.chmod(module, 0o755)
        os.chmod(module / "mpirun", 0o775)
        path, why = environment.find_mpirun()
        check(path is None and "other users can change" in why, "an mpirun its group can write: refused", why)
        os.chmod(module / "mpirun", 0o755)
        if os.geteuid() == 0:  # only root can give a file away
            os.chown(module / "mpirun", 65534, 65534)
            path, why = environment.find_mpirun()
            check(path is None and "owned by uid 65534" in why, "an mpirun of another user's: refused", why)
        os.environ["PATH"] = "/nowhere"
        path, why = environment.find_mpirun()
        check(path is None and "module load openmpi" in why and "MML_MPIRUN=" in why and "\n" not in why,
              "no mpirun at all: one line naming the fixes", why)
        os.environ["MML_MPIRUN"] = "mpirun"
        path, why = environment.find_mpirun()
        check(path is None and "absolute" in why, "MML_MPIRUN relative: refused", why)
    finally:
        environment.SYSTEM_PATH_DIRS = saved_dirs
        environment._PINNED.clear()
        os.chdir("/")
        os.environ.clear()
        os.environ.update(saved)


def job_env(tmp):
    saved = dict(os.environ)
    try:
        os.environ.update(LD_PRELOAD="/x.so", LD_AUDIT="/y.so", PYTHONPATH="p", BASH_ENV="/b", CUDA_HOME="/c",
                          PATH=f":rel:{tmp}:/usr/bin", LD_LIBRARY_PATH=f"{tmp}::")
        env = environment.job_env()
        check(not {"LD_PRELOAD", "LD_AUDIT", "PYTHONPATH", "BASH_ENV"} & set(env),
              "a Slurm job's environment: no loader, interpreter or shell hooks", str(sorted(env)))
        check(env["PATH"] == f"{tmp}:/usr/bin" and env["LD_LIBRARY_PATH"] == str(tmp) and env["CUDA_HOME"] == "/c",
              "but the instructor's tools (PATH, LD_LIBRARY_PATH without empty or relative entries, CUDA_HOME)",
              f"{env['PATH']} {env.get('LD_LIBRARY_PATH')}")
    finally:
        os.environ.clear()
        os.environ.update(saved)


def grader_tools(tmp):
    """git (the checkout's commit and files): from the system's folders, not PATH, and no GIT_DIR inherited."""
    if not environment.system_program("git") or build.git("rev-parse", "HEAD") is None:
        print("skip - git in a trusted environment: no git checkout or no git in the system's folders", flush=True)
        return
    head = build.git("rev-parse", "HEAD")
    planted = tmp / "planted-git"
    planted.mkdir()
    (planted / "git").write_text(f"#!/bin/sh\ntouch {tmp / 'git-ran'}\necho 0000\n")
    os.chmod(planted / "git", 0o755)
    saved = dict(os.environ)
    try:
        os.environ.update(PATH=f"{planted}:{os.environ['PATH']}", GIT_DIR=str(tmp / "nowhere"))
        check(build.git("rev-parse", "HEAD") == head and not (tmp / "git-ran").exists(),
              "git: the system's, never one planted on PATH, and GIT_DIR of the caller's ignored")
    finally:
        os.environ.clear()
        os.environ.update(saved)


def private_tmp_alone():
    with environment.private_tmp() as folder:
        st = os.stat(folder)
        check(stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.geteuid(), "private_tmp: 0700, the grader's")
        open(os.path.join(folder, "f"), "w").close()
    check(not os.path.exists(folder), "private_tmp: removed with what is in it")


with Scratch() as tmp:
    trusted_tmp(tmp)
    mpirun(tmp)
    job_env(tmp)
    grader_tools(tmp)
private_tmp_alone()
checks.finish("environment")
