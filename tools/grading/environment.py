"""The environment and working folder of every program the grader starts: the
one place that decides what a program inherits from the grader (issue 24).

Two kinds of program:

  trusted    our own programs outside the sandbox: the checker, the reference
             runner (started by the checker), and tools such as bash, bwrap and
             git. They run as the grader (often root), so nothing a student
             wrote may reach them: they start in TRUSTED_CWD (never a student's
             tree), with trusted_env(): PATH is the system's folders only,
             LD_LIBRARY_PATH only absolute folders that exist and that no
             other user can write (or none), and no loader, shell or
             interpreter variable (LD_PRELOAD, LD_AUDIT, GCONV_PATH, PYTHON*,
             BASH_ENV, ENV, IFS, ...: those are simply never copied). An empty
             or relative entry of PATH or LD_LIBRARY_PATH means "the current
             folder": with a student's tree as the current folder, a library
             or a `bash` planted there would run as the grader.
  sandboxed  builds and tests of a student's code (sandbox.py): clean_env(),
             the toolchain's variables too, PATH and LD_LIBRARY_PATH likewise
             without empty or relative entries.

Descriptors: Python's subprocess closes every one above 2 (close_fds=True, the
default, passed on purpose at each Popen); the checker closes its own before it
starts a runner (harness/runner/runner_process.cpp).
"""

import os
import stat

# The folders programs are taken from: the system's, in the usual order.
SYSTEM_PATH_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
SYSTEM_PATH = ":".join(SYSTEM_PATH_DIRS)
# Where trusted programs start: a folder that exists everywhere and that no
# student can write (the checker writes its report by absolute path).
TRUSTED_CWD = "/"

# Of the caller's environment, what a build or test may see: the tool and
# library paths the build needs, the locale, the GPU's selection (Slurm sets
# CUDA_VISIBLE_DEVICES), and the machine's MPI and NCCL settings (lab 12's
# programs: an image's OMPI_MCA_plm_rsh_agent where no ssh is installed; a
# shared GPU host's NCCL_NVLS_ENABLE=0, which must reach every program that
# may use NCCL). Everything else stays out: make variables and compiler flags
# would change how a student's code is built or which code the tests run
# (MML_IMPL), and the grader's own variables (tokens, paths to the
# submissions) are none of the student's code's business.
_KEPT_VARIABLES = {"PATH", "LANG", "LANGUAGE", "TZ", "CXX", "CC", "NVCC", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH",
                   "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "PKG_CONFIG_PATH"}
_KEPT_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "OMPI_MCA_", "PMIX_MCA_", "NCCL_")
# What a trusted program keeps: the locale, the GPU's selection and the MPI
# and NCCL settings (the checker passes its environment on to the runners).
_TRUSTED_VARIABLES = {"LANG", "LANGUAGE", "TZ"}
_TRUSTED_PREFIXES = ("LC_", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "OMPI_MCA_", "PMIX_MCA_", "NCCL_")
# Lists of folders: an entry that is empty or relative is dropped.
_FOLDER_LISTS = ("PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
                 "PKG_CONFIG_PATH")


def absolute_folders(value):
    """A colon-separated list of folders without its empty or relative entries and those that are not
    folders here (the loader and the shell read an empty entry as the current folder)."""
    kept = []
    for p in (value or "").split(":"):
        if p.startswith("/") and os.path.isdir(p) and p not in kept:
            kept.append(p)
    return ":".join(kept)


def _nobody_else_writes(folder):
    """Neither `folder` nor any folder above it can be written by a user other than root or this one."""
    folder = path = os.path.realpath(folder)
    while True:
        try:
            st = os.stat(path)
        except OSError:
            return False
        if st.st_uid not in (0, os.geteuid()):
            return False
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not (path != folder and st.st_mode & stat.S_ISVTX):
            return False  # a sticky folder above (/tmp) lets no one replace what is in it
        if path == "/":
            return True
        path = os.path.dirname(path)


def trusted_library_path(value=None):
    """LD_LIBRARY_PATH for a trusted program: the caller's absolute entries that exist and that no other user
    can write (a CUDA image's /usr/local/nvidia/lib64, a cluster's toolchain), '' when none."""
    value = os.environ.get("LD_LIBRARY_PATH", "") if value is None else value
    return ":".join(p for p in absolute_folders(value).split(":") if p and _nobody_else_writes(p))


def system_program(name):
    """The absolute path of a system program (bash, bwrap, setpriv), found in SYSTEM_PATH only, never
    through the inherited PATH; None when it is not installed."""
    for d in SYSTEM_PATH_DIRS:
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def clean_env(extra=None):
    """The environment for builds and tests of a student's code: only _KEPT_VARIABLES of the caller's (their
    folder lists without empty or relative entries), LC_ALL=C (compiler messages in English), and `extra`.
    run_limited sets HOME to the build tree."""
    env = {k: v for k, v in os.environ.items() if k in _KEPT_VARIABLES or k.startswith(_KEPT_PREFIXES)}
    for k in _FOLDER_LISTS:
        if k in env:
            env[k] = absolute_folders(env[k])
            if not env[k]:
                del env[k]
    env["LC_ALL"] = "C"
    if extra:
        env.update(extra)
    return env


def trusted_env(extra=None):
    """The environment of a trusted program: PATH=SYSTEM_PATH, trusted_library_path(), HOME=TRUSTED_CWD,
    the locale and the GPU/MPI/NCCL selection of the caller's, LC_ALL=C, and `extra` (the caller's own,
    such as the checker's MML_* variables)."""
    env = {k: v for k, v in os.environ.items() if k in _TRUSTED_VARIABLES or k.startswith(_TRUSTED_PREFIXES)}
    env.update(PATH=SYSTEM_PATH, HOME=TRUSTED_CWD, LC_ALL="C")
    libs = trusted_library_path()
    if libs:
        env["LD_LIBRARY_PATH"] = libs
    if extra:
        env.update(extra)
    return env
