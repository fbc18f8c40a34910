"""Running one command on a student's code (a build, a test case, mmlab) under
tools/grading/sandbox.sh, with a wall-clock limit and per-process limits;
finding the strongest containment this machine allows; stopping every
running command when the grader is interrupted; and reading what a command
wrote, capped (a student's program may print for ever).

The containment levels, strongest first (handouts/grading.md, "Containment",
says what each protects and what none of them does):

  bwrap    bubblewrap: the command sees only its own build tree (writable) and
           the system's read-only folders (/usr, /etc, /opt, /sys, /lib*), a
           private empty /tmp and /dev, its own /proc; never the submissions,
           the other students' trees, OUT, this checkout, /home or /root. It
           runs as an unprivileged user (see grading_user), no network, its
           own PID namespace (every process it starts dies with it).
  unshare  sandbox.sh's own namespaces (util-linux unshare): every file system
           read-only except the build tree, but readable; no network; own PID
           namespace.
  net      no network only.      none     limits only.

Every level keeps the same limits (CPU seconds, address space, file size,
processes, no core files; the wall clock here) and a cleaned environment.

When the grader runs as root, every sandboxed command runs as an unprivileged
user (MMLAB_GRADER_USER, default nobody), never as root: the process limit is
not enforced for root, and root reads everything. The build trees such a
command writes are handed over to that user before it starts (hand_over).

sandbox.sh applies the limits and, below bwrap, the namespaces; this module
builds bubblewrap's mount list, starts the command, times it and kills what is
left of it.
"""

import os
import pwd
import re
import shutil
import stat
import subprocess
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from .common import REPO, UsageError

SANDBOX = REPO / "tools" / "grading" / "sandbox.sh"

# Strongest first; --sandbox auto takes the first that works here.
LEVELS = ("bwrap", "unshare", "net", "none")
LEVEL_TEXT = {
    "bwrap": "bubblewrap: only the build tree and the system's read-only folders are visible, unprivileged user, "
             "no network, own PID namespace",
    "unshare": "unshare: all file systems read-only but the build tree (readable, not hidden), no network, "
               "own PID namespace",
    "net": "no network only (files readable and writable as the grading user, processes not contained)",
    "none": "limits only (no namespaces)",
}

# How much of a log is ever read (the feedback quotes less of it).
LOG_READ_BYTES = 256 * 1024

# The system's folders a bwrap sandbox shows, read-only (a symbolic link, as
# /bin -> usr/bin on merged-/usr systems, is recreated as the same link).
# /opt holds toolchains (CUDA, compilers) on some machines; /sys the CPU's
# cache sizes and the GPU's description, which the harness and CUDA read.
SYSTEM_DIRS = ("/usr", "/etc", "/opt", "/sys", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Size of the private /tmp and /dev/shm of a bwrap sandbox (memory: a student
# must not fill the machine's RAM through them; TMPDIR is in the build tree).
PRIVATE_TMP_BYTES = 64 * 1024 * 1024

# Folders of a student's build tree (a copy of this checkout) that student
# code must not read: the reference solutions, the tests of the reference's
# internals, the grader and its tests. Each
# is replaced, in the sandbox, by a copy whose files are empty but keep their
# names and modification times, so that make still finds every prerequisite
# up to date; the files a rebuild of the student's code needs (the given
# headers of labs 3 and 4, found from the starter build's dependency files)
# keep their content. See masks_for_lab.
MASKED_FOLDERS = ("solutions", "tests/reference", "tools", "tests/grading")


@dataclass(frozen=True)
class User:
    """Who sandboxed commands run as. switch: the grader is root and runs them as this other user."""
    uid: int
    gid: int
    name: str
    switch: bool


def grading_user():
    """The user of every sandboxed command: this one, or, when the grader runs as root, MMLAB_GRADER_USER
    (default nobody). Raises UsageError when that user does not exist or is root."""
    if os.geteuid() != 0:
        try:
            name = pwd.getpwuid(os.getuid()).pw_name
        except KeyError:
            name = str(os.getuid())
        return User(os.getuid(), os.getgid(), name, False)
    name = os.environ.get("MMLAB_GRADER_USER") or "nobody"
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        raise UsageError(f"the grader runs as root and student code must not: the user '{name}' to run it as does "
                         "not exist here; set MMLAB_GRADER_USER to an unprivileged user (or run as one)")
    if pw.pw_uid == 0:
        raise UsageError(f"MMLAB_GRADER_USER={name} is root: name an unprivileged user (default nobody)")
    return User(pw.pw_uid, pw.pw_gid, name, True)


@dataclass(frozen=True)
class Limits:
    """How every command on a student's code runs.
    mode: the containment level (LEVELS); mem_kb 0: no address-space limit; nproc: processes the command may
    add; user: User (None: this process's own, no switch); masks: ((stub folder, folder relative to the build
    tree), ...) hidden by bwrap; gpu: show the NVIDIA devices; script: sandbox.sh's path (a copy the grading
    user can read); tmp_size: bwrap supports --size for its /tmp; no_userns: bwrap supports --disable-userns;
    extra_dirs: more folders bwrap shows read-only (the toolchain outside the system's folders: toolchain_dirs)."""
    mode: str
    mem_kb: int
    fsize_kb: int
    nproc: int
    user: object = None
    masks: tuple = ()
    gpu: bool = False
    script: object = SANDBOX
    tmp_size: bool = False
    no_userns: bool = False
    extra_dirs: tuple = ()


    def with_masks(self, masks):
        return replace(self, masks=tuple(masks))


# Process groups of the commands running now, so that an interrupted grader
# (Ctrl-C, SIGTERM, SIGHUP) takes them with it instead of leaving them to run.
# Once STOPPING is set no new command starts: the students still queued or
# being graded by other threads end at once instead of being graded to the end.
RUNNING = set()
RUNNING_LOCK = threading.Lock()
STOPPING = threading.Event()


class Stopped(BaseException):
    """The grader is being interrupted: a BaseException, so that no 'except Exception' turns it into a grade."""


def kill_running(stop=True):
    with RUNNING_LOCK:
        if stop:
            STOPPING.set()
        for pgid in list(RUNNING):
            try:
                os.killpg(pgid, 9)
            except (ProcessLookupError, PermissionError):
                pass


def user_process_count(uid=None):
    """The processes of `uid` (default: this process's user) on the machine: RLIMIT_NPROC counts them all."""
    uid, n = os.getuid() if uid is None else uid, 0
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.stat(f"/proc/{d}").st_uid == uid:
                    n += 1
            except OSError:
                pass
    return n


def chown_tree(folder, uid, gid):
    """Makes everything under `folder` belong to uid:gid. Walks with os.fwalk (file descriptors, never
    following a symbolic link: a link a student planted cannot send this root-owned chown elsewhere) and
    leaves alone any file with more than one hard link (it could be another file of the machine)."""
    try:
        os.chown(folder, uid, gid, follow_symlinks=False)
    except OSError:
        return
    for _root, dirs, files, dir_fd in os.fwalk(folder, follow_symlinks=False):
        for name in dirs + files:
            try:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if (st.st_uid != uid or st.st_gid != gid) and (stat.S_ISDIR(st.st_mode) or st.st_nlink == 1):
                    os.chown(name, uid, gid, dir_fd=dir_fd, follow_symlinks=False)
            except OSError:
                pass


def hand_over(folder, user):
    """Before a command runs as the grading user (the grader being root): everything under `folder`, the
    tree it may write, becomes that user's (the grader copied it, its files are root's)."""
    if user and user.switch:
        chown_tree(folder, user.uid, user.gid)


def take_back(folder, user):
    """The reverse of hand_over, for a tree no student code may change any more (the starter)."""
    if user and user.switch:
        chown_tree(folder, os.getuid(), os.getgid())


def describe(limits):
    """How student code runs, as the run, summary.txt and every feedback.txt name it."""
    who = f", as user '{limits.user.name}'" if limits.user else ""
    return f"{limits.mode} ({LEVEL_TEXT[limits.mode]}{who})"


def _bwrap_command(work, cwd, limits):
    """bubblewrap's command line for a command that may write only under `work` (its build tree)."""
    args = ["bwrap", "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "mmlab-sandbox"]
    if limits.no_userns:
        args.append("--disable-userns")  # no user namespace inside: less of the kernel within reach
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for d in limits.extra_dirs:
        args += ["--ro-bind", str(d), str(d)]
    args += ["--proc", "/proc", "--dev", "/dev"]
    size = ["--size", str(PRIVATE_TMP_BYTES)] if limits.tmp_size else []
    args += size + ["--tmpfs", "/tmp"] + size + ["--tmpfs", "/dev/shm"]
    if limits.gpu:
        for dev in sorted(Path("/dev").glob("nvidia*")):
            args += ["--dev-bind", str(dev), str(dev)]
    args += ["--bind", str(work), str(work)]
    for stub, rel in limits.masks:
        if (Path(work) / rel).is_dir():
            args += ["--ro-bind", str(stub), str(Path(work) / rel)]
    return args + ["--chdir", str(cwd)]


def sandbox_command(cmd, work, cwd, limits, cpu_seconds, fsize_kb=None):
    """cmd's command line under sandbox.sh at limits' level, writing under `work` only (the user switch, when
    the grader is root, is the caller's: run_limited's, or the checker's for a runner, checker.py)."""
    user = limits.user
    # RLIMIT_NPROC counts all of the user's processes, so the limit is what runs now plus what it may add.
    nproc = user_process_count(user.uid if user else None) + limits.nproc
    full = ["bash", str(limits.script), limits.mode, str(work), str(int(cpu_seconds)), str(limits.mem_kb),
            str(fsize_kb or limits.fsize_kb), str(nproc), "--"]
    if limits.mode == "bwrap":
        full += _bwrap_command(work, cwd, limits) + ["--"]
    return full + [str(c) for c in cmd]


def run_limited(cmd, work, cwd, log_path, timeout, limits, cpu_seconds, env, fsize_kb=None):
    """Runs cmd in the sandbox; it may write under `work` only. stdout+stderr go to log_path.
    Returns (exit code, timed out, seconds)."""
    user = limits.user
    hand_over(work, user)
    full = sandbox_command(cmd, work, cwd, limits, cpu_seconds, fsize_kb)
    env = dict(env, HOME=str(work))  # never the grader's home (hidden, or not the student's to write)
    as_user = {"user": user.uid, "group": user.gid, "extra_groups": []} if user and user.switch else {}
    return run_in_group(full, cwd, env, log_path, timeout, **as_user)


def run_in_group(cmd, cwd, env, log_path, timeout, **popen_args):
    """Runs cmd in a process group of its own, stdout+stderr to log_path, with a wall-clock limit; at the
    limit, or when it ends, whatever is left of the group is killed. Registered in RUNNING so that a stopped
    grader kills it (kill_running). Returns (exit code, timed out, seconds). The one way the grader starts a
    program: sandboxed (run_limited) or its own (checker.run_trusted)."""
    start = time.monotonic()
    with open(log_path, "wb") as log:
        with RUNNING_LOCK:  # started and registered together: kill_running() sees it or it never starts
            if STOPPING.is_set():
                raise Stopped()
            proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True, **popen_args)
            RUNNING.add(proc.pid)
        timed_out = False
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            rc = None
        # Whatever is left of the process group goes (a PID namespace already
        # took its processes with it in the bwrap and unshare modes: bwrap's
        # --die-with-parent kills the namespace when bwrap itself is killed).
        try:
            os.killpg(proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        if rc is None:
            rc = proc.wait()
        with RUNNING_LOCK:
            RUNNING.discard(proc.pid)
    return rc, timed_out, time.monotonic() - start


def _bwrap_features():
    """(--size, --disable-userns) supported by this bubblewrap (0.5+ and 0.8+: Ubuntu 22.04 has 0.6)."""
    try:
        text = subprocess.run(["bwrap", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False, False
    return "--size" in text, "--disable-userns" in text


def probe_sandbox(requested, work, limits=None):
    """The strongest level that works here (or the one asked for, if it works), as Limits (`limits` with the
    level and the bubblewrap features set). A level works when a command in it can write inside its tree
    and, from unshare up, cannot write outside it; bwrap must also hide what lies outside the tree and run
    as a user other than root."""
    limits = limits or Limits("none", 0, 1024, 1000, user=grading_user())
    order = list(LEVELS) if requested == "auto" else [requested]
    tmp_size, no_userns = _bwrap_features() if shutil.which("bwrap") else (False, False)
    probe = work / "probe"
    probe.mkdir(parents=True)
    os.chmod(probe, 0o755)
    outside = work / "outside-probe"
    sentinel = work / "probe-sentinel"
    sentinel.write_text("the sandbox must not show this\n")
    os.chmod(sentinel, 0o644)
    # bwrap: the sentinel beside the tree must be invisible, and the user not root (a write to ../ lands in
    # the sandbox's own empty /tmp, gone with it: only the check on this side, outside.exists(), tells).
    tests = {
        "bwrap": "echo x > ok && ! test -e ../probe-sentinel && [ \"$(id -u)\" != 0 ]",
        "unshare": "echo x > ok && ! (echo x > ../outside-probe) 2>/dev/null",
        "net": "echo x > ok",
        "none": "echo x > ok",
    }
    try:
        for mode in order:
            if mode == "bwrap" and not shutil.which("bwrap"):
                continue
            candidate = replace(limits, mode=mode, tmp_size=tmp_size, no_userns=no_userns)
            try:
                rc, timed_out, _ = run_limited(["bash", "-c", tests[mode]], probe, probe, work / "probe.log", 30,
                                               candidate, 10, clean_env())
                ok = rc == 0 and not timed_out and (probe / "ok").exists() and not outside.exists()
            except OSError:
                ok = False
            for f in (probe / "ok", outside):
                if f.exists():
                    f.unlink()
            if ok:
                return candidate
    finally:
        sentinel.unlink()
    if requested != "auto":
        why = "bubblewrap (bwrap) is missing or cannot create its namespaces" if requested == "bwrap" else \
            "unshare or user namespaces missing"
        raise UsageError(f"--sandbox {requested} does not work on this machine ({why}): use --sandbox auto")
    return replace(limits, mode="none")


def check_reachable(folder, user):
    """The grading user must be able to reach `folder` (a build tree's parent): every folder above it must
    let others through (x) when that user is not this one. Raises UsageError naming the first that does not."""
    if not user or not user.switch:
        return
    for p in [folder] + list(folder.parents):
        st = p.stat()
        if not st.st_mode & stat.S_IXOTH and st.st_uid != user.uid:
            raise UsageError(f"student code runs as '{user.name}', who cannot enter {p} (mode "
                             f"{stat.filemode(st.st_mode)}), where the build trees are: pick --work under /tmp "
                             "or another folder anyone may enter")


def _under(path, folders):
    return any(path == Path(f) or Path(f) in path.parents for f in folders)


def _reachable_by_all(path):
    """Every folder down to `path` lets others through, and `path` lets them read: the grading user (any)
    can see it, so bubblewrap, running as that user, can show it."""
    try:
        if not path.stat().st_mode & stat.S_IROTH:
            return False
        return all(p.stat().st_mode & stat.S_IXOTH for p in [path] + list(path.parents))
    except OSError:
        return False


def toolchain_dirs(config_mk=None, private=()):
    """Folders outside SYSTEM_DIRS that builds and tests need, for bwrap to show read-only: the compilers'
    installations (g++, nvcc, $CXX, $CC, $NVCC: where a cluster's module system puts them), CUDA_HOME (the
    environment's, or build/config.mk's), the library, include and pkg-config paths of the environment, and
    MMLAB_SANDBOX_DIRS (colon-separated, for what the rest misses). Left out: what lies in `private` (the
    submissions, OUT, this checkout) and what not every user may read (a folder under /root)."""
    wanted = []
    for tool in {"g++", "nvcc", os.environ.get("CXX"), os.environ.get("CC"), os.environ.get("NVCC")} - {None, ""}:
        found = shutil.which(tool)
        if found:
            wanted.append(Path(os.path.realpath(found)).parent.parent)  # .../bin/g++ -> its installation
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    if config_mk and Path(config_mk).is_file():
        m = re.search(r"^CUDA_HOME\s*:?=\s*(\S+)", Path(config_mk).read_text(errors="replace"), re.M)
        homes.append(m.group(1) if m else None)
    wanted += [Path(h) for h in homes if h]
    for var in ("LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "PKG_CONFIG_PATH",
                "MMLAB_SANDBOX_DIRS"):
        wanted += [Path(p) for p in os.environ.get(var, "").split(":") if p]
    shown = []
    for d in wanted:
        d = Path(os.path.realpath(d))
        if not d.is_absolute() or not d.is_dir() or d == Path("/") or _under(d, SYSTEM_DIRS) or \
                _under(d, [Path(p).resolve() for p in private]) or any(p in d.parents for p in private) or \
                not _reachable_by_all(d) or any(d == s or s in d.parents for s in shown):
            continue
        shown = [s for s in shown if d not in s.parents] + [d]
    return tuple(sorted(shown))


def masks_for_lab(base, lab_folder, dest):
    """The stubs of MASKED_FOLDERS for a student's tree (a copy of the starter tree `base`), written under
    `dest`: [(stub, relative folder)]. Every file keeps its name and modification time; only those the build
    of a student's code may read keep their content: the prerequisites (from the starter build's -MMD
    dependency files) of every object that depends on a file of the lab's folder."""
    needed = set()
    prefix = lab_folder.rstrip("/") + "/"
    for d in (base / "build" / "obj").rglob("*.d"):
        try:
            text = d.read_text("utf-8", "replace")
        except OSError:
            continue
        first_rule = text.replace("\\\n", " ").split("\n", 1)[0]
        deps = first_rule.split(":", 1)[1].split() if ":" in first_rule else []
        if any(p.startswith(prefix) for p in deps):
            needed.update(os.path.normpath(p) for p in deps)
    masks = []
    for rel in MASKED_FOLDERS:
        src = base / rel
        if not src.is_dir() or src.is_symlink():
            continue
        stub = dest / rel
        for root, dirs, files in os.walk(src):
            r = Path(root).relative_to(base)
            (dest / r).mkdir(parents=True, exist_ok=True)
            for name in files:
                f, s = Path(root) / name, dest / r / name
                if f.is_symlink() or not f.is_file():
                    continue
                if str(r / name) in needed:
                    shutil.copyfile(f, s)
                else:
                    s.touch()
                os.chmod(s, 0o644)
                st = f.stat()
                os.utime(s, ns=(st.st_atime_ns, st.st_mtime_ns))
        for root, dirs, files in os.walk(src, topdown=False):  # folders last: writing into them changed their times
            r = Path(root).relative_to(base)
            os.chmod(dest / r, 0o755)
            st = Path(root).stat()
            os.utime(dest / r, ns=(st.st_atime_ns, st.st_mtime_ns))
        masks.append((stub, rel))
    return masks


# The caller's environment that builds and tests may see: the tool and
# library paths the build needs, the locale, the GPU's selection (Slurm sets
# CUDA_VISIBLE_DEVICES), and the machine's MPI and NCCL settings (lab 12's
# programs: an image's OMPI_MCA_plm_rsh_agent where no ssh is installed; a
# shared GPU host's NCCL_NVLS_ENABLE=0, which must reach every program that
# may use NCCL). Everything else stays out: make variables and
# compiler flags would change how a student's code is built or which code the
# tests run (MML_IMPL), and the grader's own variables (tokens, paths to the
# submissions) are none of the student's code's business.
_KEPT_VARIABLES = {"PATH", "LANG", "LANGUAGE", "TZ", "CXX", "CC", "NVCC", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH",
                   "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "PKG_CONFIG_PATH"}
_KEPT_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "OMPI_MCA_", "PMIX_MCA_", "NCCL_")


def clean_env(extra=None):
    """The environment for builds and tests: only _KEPT_VARIABLES of the caller's, LC_ALL=C (compiler messages
    in English), and `extra`. run_limited sets HOME to the build tree."""
    env = {k: v for k, v in os.environ.items() if k in _KEPT_VARIABLES or k.startswith(_KEPT_PREFIXES)}
    env["LC_ALL"] = "C"
    if extra:
        env.update(extra)
    return env


def read_head(path, limit=LOG_READ_BYTES):
    """The first `limit` bytes of a log as text ('' when there is none), saying so when it was cut."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit)
            more = f.read(1) != b""
    except OSError:
        return ""
    text = data.decode("utf-8", "replace")
    return text + ("\n[... output cut: it was longer than %d KiB ...]" % (limit // 1024) if more else "")


def tail_lines(text, n):
    return "\n".join(text.splitlines()[-n:])
