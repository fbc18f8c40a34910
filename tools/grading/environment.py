"""The environment and working folder of every program the grader starts: the
one place that decides what a program inherits from the grader (issue 24).

Two kinds of program:

  trusted    our own programs outside the sandbox: the checker, the reference
             runner (started by the checker), and tools such as bash, bwrap,
             git and Slurm's commands (slurm_commands.py). They run as the
             grader (often root), so nothing a student
             wrote may reach them: they start in TRUSTED_CWD (never a student's
             tree), with trusted_env(): PATH is the system's folders only,
             LD_LIBRARY_PATH only absolute folders that exist and that no
             other user can write (or none), and no loader, shell or
             interpreter variable (LD_PRELOAD, LD_AUDIT, GCONV_PATH, PYTHON*,
             BASH_ENV, ENV, IFS, ...: those are simply never copied). An empty
             or relative entry of PATH or LD_LIBRARY_PATH means "the current
             folder": with a student's tree as the current folder, a library
             or a `bash` planted there would run as the grader. Their TMPDIR
             is private_tmp(), never in a student's tree (checker.run_trusted).
             A program they need from the instructor's environment (an MPI
             lab's mpirun, a module's) is found once, checked_program(), and
             passed by absolute path (pin_mpirun), never through a PATH.
  sandboxed  builds and tests of a student's code (sandbox.py): clean_env(),
             the toolchain's variables too, PATH and LD_LIBRARY_PATH likewise
             without empty or relative entries.

Descriptors: Python's subprocess closes every one above 2 (close_fds=True, the
default, passed on purpose at each Popen); the checker closes its own before it
starts a runner (harness/runner/runner_process.cpp).
"""

import contextlib
import os
import shutil
import stat
import tempfile

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


def nobody_else_writes(folder):
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
    return ":".join(p for p in absolute_folders(value).split(":") if p and nobody_else_writes(p))


def system_program(name):
    """The absolute path of a system program (bash, bwrap, setpriv), found in SYSTEM_PATH only, never
    through the inherited PATH; None when it is not installed."""
    for d in SYSTEM_PATH_DIRS:
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


# Programs whose checked absolute path the grader took once at its start (pin_mpirun), passed to every
# program it starts, trusted or sandboxed, instead of a PATH to search.
_PINNED = {}


def find_mpirun():
    """(absolute path, '') of the mpirun an MPI lab's programs must use, or (None, one line naming the fix): the
    instructor's MML_MPIRUN, else the first mpirun of the instructor's PATH (a cluster's module puts it
    there; only absolute entries), else of the system's folders; checked (checked_program), since the
    reference runner, as the grader, starts it."""
    chosen = os.environ.get("MML_MPIRUN")
    if chosen:
        if not os.path.isabs(chosen):
            return None, f"MML_MPIRUN={chosen} is not an absolute path: name the mpirun to use by its full path"
        candidates = [chosen]
    else:
        folders = absolute_folders(os.environ.get("PATH", "")).split(":") + list(SYSTEM_PATH_DIRS)
        candidates = [os.path.join(d, "mpirun") for d in folders if d]
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            why = checked_program(path)
            return (None, f"mpirun {path} cannot be trusted: {why}") if why else (path, "")
    if chosen:
        return None, f"MML_MPIRUN={chosen} is not an executable file: name the mpirun to use by its full path"
    return None, ("this lab needs mpirun and none is on PATH or in the system's folders: load your MPI module "
                  "(module load openmpi), set MML_MPIRUN=/full/path/to/mpirun, or sudo apt-get install openmpi-bin")


def pin_mpirun(path):
    """Every program started from now on gets MML_MPIRUN=path: the harness's MPI launcher (find_mpirun)
    uses it instead of searching PATH, which for a trusted program has only the system's folders."""
    _PINNED["MML_MPIRUN"] = path


def clean_env(extra=None):
    """The environment for builds and tests of a student's code: only _KEPT_VARIABLES of the caller's (their
    folder lists without empty or relative entries), LC_ALL=C (compiler messages in English), the pinned
    programs (pin_mpirun), and `extra`.
    run_limited sets HOME to the build tree."""
    env = {k: v for k, v in os.environ.items() if k in _KEPT_VARIABLES or k.startswith(_KEPT_PREFIXES)}
    for k in _FOLDER_LISTS:
        if k in env:
            env[k] = absolute_folders(env[k])
            if not env[k]:
                del env[k]
    env["LC_ALL"] = "C"
    env.update(_PINNED)
    if extra:
        env.update(extra)
    return env


def trusted_env(extra=None):
    """The environment of a trusted program: PATH=SYSTEM_PATH, trusted_library_path(), HOME=TRUSTED_CWD,
    the locale and the GPU/MPI/NCCL selection of the caller's, LC_ALL=C, the pinned programs (pin_mpirun),
    and `extra` (the caller's own,
    such as the checker's MML_* variables)."""
    env = {k: v for k, v in os.environ.items() if k in _TRUSTED_VARIABLES or k.startswith(_TRUSTED_PREFIXES)}
    env.update(PATH=SYSTEM_PATH, HOME=TRUSTED_CWD, LC_ALL="C")
    libs = trusted_library_path()
    if libs:
        env["LD_LIBRARY_PATH"] = libs
    env.update(_PINNED)
    if extra:
        env.update(extra)
    return env


def checked_program(path):
    """Why the program at `path` (an absolute path) must not run as the grader ('' when it may): it must be
    a file owned by root or the grader that no other user can write, in folders likewise (a module's mpirun,
    a cluster's sbatch: taken from the instructor's environment, so checked)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError as e:
        return f"cannot read it ({e.strerror})"
    if not stat.S_ISREG(st.st_mode):
        return "it is not a file"
    if st.st_uid not in (0, os.geteuid()):
        return f"it is owned by uid {st.st_uid}, neither root nor the grader: install it as root, or name another"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) or not nobody_else_writes(os.path.dirname(real)):
        return f"other users can change it or its folders ({real}): chmod go-w them, or name another"
    return ""


# Variables through which a program's start can be subverted (the loader's, an interpreter's, a shell's).
_HOOK_NAMES = {"GCONV_PATH", "BASH_ENV", "ENV", "IFS", "CDPATH", "LOCPATH", "NLSPATH", "HOSTALIASES", "GLIBC_TUNABLES"}
_HOOK_PREFIXES = ("LD_", "PYTHON", "PERL5", "RUBY", "MALLOC_")


def job_env():
    """The environment of a Slurm job this grader submits (sbatch passes its own on to the job, which is the
    grader on a node and needs the instructor's tools: a loaded module's compilers, CUDA, MPI): the caller's,
    without the loader, interpreter and shell hooks (LD_LIBRARY_PATH kept) and without empty or relative
    entries in its folder lists."""
    env = {k: v for k, v in os.environ.items()
           if k == "LD_LIBRARY_PATH" or not (k in _HOOK_NAMES or k.startswith(_HOOK_PREFIXES))}
    for k in _FOLDER_LISTS:
        if k in env:
            env[k] = absolute_folders(env[k])
            if not env[k]:
                del env[k]
    env["PATH"] = env.get("PATH") or SYSTEM_PATH
    return env


@contextlib.contextmanager
def private_tmp(prefix="mmlab-trusted-"):
    """A temporary folder for trusted programs (TMPDIR): made 0700 by the grader (mkdtemp) in the grader's own
    temporary folder, never in a student's tree, so that no student process can plant or read files there;
    removed afterwards."""
    folder = tempfile.mkdtemp(prefix=prefix)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
