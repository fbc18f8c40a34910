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
           read-only except the build tree; the submissions, OUT, this
           checkout, the run's other build trees, /home and /root covered by
           empty folders, /tmp and /dev/shm private (HIDDEN_ALWAYS, hidden_dirs);
           the masks of bwrap; no network; own PID namespace. Left readable:
           the rest of the system, as its user may read it.
  net      no network only.      none     limits only.

The grader runs at bwrap unless the instructor names a weaker level
(probe_sandbox refuses otherwise, saying why and what to do; install.py puts
bubblewrap in place where it can).

Every level keeps the same limits (CPU seconds, address space, file size,
open files, processes, no core files; the wall clock here) and a cleaned
environment (environment.py); memory with shared memory, and processes, are
also counted per command by a cgroup where this machine lets the grader make
one (limits.py), and the run says so, or says which limit is missing.

When the grader runs as root, every sandboxed command runs as an unprivileged
user (users.py says who and why). sandbox.sh applies the limits and, below
bwrap, the namespaces; visible.py says what bubblewrap shows; this module
builds bubblewrap's mount list, starts the command, times it and kills what is
left of it.
"""

import ctypes
import os
import subprocess
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from . import install, limits as cgroup_limits
from .common import REPO, SetupError, UsageError
from .environment import TRUSTED_CWD, clean_env, system_program, trusted_env
from .users import User, check_reachable, grading_user, hand_over, take_back, user_process_count  # noqa: F401
from .visible import SYSTEM_DIRS, masks_for_lab, toolchain_dirs  # noqa: F401 (used by class_run and tests)

SANDBOX = REPO / "tools" / "grading" / "sandbox.sh"

# Strongest first; --sandbox auto takes bwrap, and only bwrap: a weaker level must be asked for by name.
LEVELS = ("bwrap", "unshare", "net", "none")
LEVEL_TEXT = {
    "bwrap": "bubblewrap: only the build tree and the system's read-only folders are visible, unprivileged user, "
             "no network, own PID namespace",
    "unshare": "unshare: all file systems read-only but the build tree; the submissions, OUT, this checkout, the "
               "other build trees, /home, /root and /tmp hidden, the rest of the system readable; no network, "
               "own PID namespace",
    "net": "no network only (files readable and writable as the grading user, processes not contained)",
    "none": "limits only (no namespaces)",
}

# How much of a log is ever read (the feedback quotes less of it).
LOG_READ_BYTES = 256 * 1024

# Size of the private /tmp and /dev/shm of a bwrap sandbox (memory: a student
# must not fill the machine's RAM through them; TMPDIR is in the build tree).
PRIVATE_TMP_BYTES = 64 * 1024 * 1024

# What the unshare level hides on every machine besides Limits.hidden (sandbox.sh covers /tmp and /dev/shm
# with private ones itself): the users' homes, where checkouts, submissions and grades usually are.
HIDDEN_ALWAYS = ("/home", "/root")


@dataclass(frozen=True)
class Limits:
    """How every command on a student's code runs.
    mode: the containment level (LEVELS); mem_kb 0: no address-space limit; nproc: processes the command may
    add; user: User (None: this process's own, no switch); masks: ((stub folder, folder relative to the build
    tree), ...) hidden by bwrap; gpu: show the NVIDIA devices; script: sandbox.sh's path (a copy the grading
    user can read); tmp_size: bwrap supports --size for its /tmp; no_userns: bwrap supports --disable-userns;
    extra_dirs: more folders bwrap shows read-only (the toolchain outside the system's folders: toolchain_dirs);
    cgroups: limits.Cgroups, how each command's memory (memory_mb, with shared memory) and processes (nproc)
    are counted as a whole (None: not at all); hidden: the folders student code must not read (the
    submissions, OUT and its folder, this checkout, the run's work folder), covered at the unshare level, and
    by bwrap where one lies in a folder it shows."""
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
    cgroups: object = None
    memory_mb: int = 0
    hidden: tuple = ()

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


def describe(limits):
    """How student code runs, as the run and summary.txt name it (the instructor's: never in a student's feedback)."""
    who = f", as user '{limits.user.name}'" if limits.user else ""
    cg = limits.cgroups
    counted = f"; {cgroup_limits.describe(cg, limits.memory_mb, limits.nproc)}" if cg else ""
    return f"{limits.mode} ({LEVEL_TEXT[limits.mode]}{who}){counted}"


def hidden_dirs(folders):
    """The folders of `folders` that can be covered: absolute, existing, and neither / nor a folder that holds a
    system folder (covering those would hide the toolchain; they are never where submissions are)."""
    kept = []
    for f in folders:
        f = os.path.realpath(f)
        if os.path.isdir(f) and f not in kept and not any(s == f or s.startswith(f.rstrip("/") + "/")
                                                          for s in SYSTEM_DIRS):
            kept.append(f)
    return tuple(kept)


def _unshare_options(work, limits):
    """sandbox.sh's --hide, --show and --mask options for the unshare level (its header says what they do)."""
    opts = []
    for d in hidden_dirs(HIDDEN_ALWAYS + tuple(limits.hidden)):
        opts += ["--hide", d]
    for d in limits.extra_dirs:
        opts += ["--show", str(d)]
    for stub, rel in limits.masks:
        if (Path(work) / rel).is_dir():
            opts += ["--mask", str(stub), str(Path(work) / rel)]
    return opts


def _bwrap_command(work, cwd, limits):
    """bubblewrap's command line for a command that may write only under `work` (its build tree)."""
    args = [system_program("bwrap"), "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net",
            "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname",
            "mmlab-sandbox"]
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
    # A folder to hide that lies in one shown above (a checkout under /opt, say) is covered by an empty one.
    for d in hidden_dirs(limits.hidden):
        if any(Path(d) == Path(s) or Path(s) in Path(d).parents for s in SYSTEM_DIRS + tuple(limits.extra_dirs)):
            args += ["--tmpfs", d]
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
    full = [system_program("bash"), str(limits.script), limits.mode, str(work), str(int(cpu_seconds)),
            str(limits.mem_kb), str(fsize_kb or limits.fsize_kb), str(nproc)]
    full += (_unshare_options(work, limits) if limits.mode == "unshare" else []) + ["--"]
    if limits.mode == "bwrap":
        full += _bwrap_command(work, cwd, limits) + ["--"]
    return full + [str(c) for c in cmd]


def run_limited(cmd, work, cwd, log_path, timeout, limits, cpu_seconds, env, fsize_kb=None, memory_mb=None):
    """Runs cmd in the sandbox; it may write under `work` only. stdout+stderr go to log_path.
    Returns (exit code, timed out, seconds). With limits.cgroups, the command runs in a group of its own
    (limits.py), joined before it becomes the grading user, with memory_mb (default limits.memory_mb)."""
    user = limits.user
    hand_over(work, user)
    full = sandbox_command(cmd, work, cwd, limits, cpu_seconds, fsize_kb)
    env = dict(env, HOME=str(work))  # never the grader's home (hidden, or not the student's to write)
    with cgroup_limits.Group(limits.cgroups, memory_mb or limits.memory_mb, limits.nproc) as group:
        if group.procs:
            return run_in_group(cgroup_limits.join_prefix(group.procs, user) + full, cwd, env, log_path, timeout)
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
            # close_fds: no descriptor of the grader's (another student's log, say) reaches the program.
            proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True, close_fds=True, **popen_args)
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
    reap_orphans()
    return rc, timed_out, time.monotonic() - start


def become_subreaper():
    """Makes this process the reaper of its orphaned descendants (Linux's PR_SET_CHILD_SUBREAPER). A sandbox's
    namespace init (bwrap's inner process, which calls setsid, or unshare's child) outlives the command the
    grader killed for a moment and is orphaned; without this it goes to the machine's PID 1, which in a
    container often reaps nothing: its zombies stayed ('[bwrap] <defunct>', owned by the grading user) and,
    counted against that user's process limit, would in a large class keep later students' code from
    starting processes. As their reaper, reap_orphans() ends them after every command."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER = 36
    except (OSError, AttributeError):
        pass  # not Linux: the zombies are PID 1's, as before


def reap_orphans():
    """Reaps the zombies that were orphaned to this process (become_subreaper): its children in state Z that no
    Popen of ours waits for (RUNNING) and that are not this process's own programs - the grading user's, when
    that is another user, else a sandbox's init (bwrap, unshare). Other children (git, nvidia-smi run by
    subprocess.run in other threads) are theirs to wait for: reaping them would hide their exit status."""
    me, my_uid = os.getpid(), os.getuid()
    for _ in range(20):  # a killed namespace init takes a moment to become a zombie
        zombies, waiting = [], False
        for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/status") as f:
                    fields = dict(line.split(":", 1) for line in f if ":" in line)
            except OSError:
                continue
            if int(fields.get("PPid", "0").strip() or 0) != me:
                continue
            pid, uid = int(entry), int(fields.get("Uid", "0").split()[0])
            with RUNNING_LOCK:
                tracked = pid in RUNNING
            ours = uid == my_uid and fields.get("Name", "").strip() not in ("bwrap", "unshare")
            if tracked or ours:
                continue
            if fields.get("State", "").strip().startswith("Z"):
                zombies.append(pid)
            elif fields.get("Name", "").strip() in ("bwrap", "unshare"):
                waiting = True  # a sandbox's init, still dying
        for pid in zombies:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        if not waiting:
            return
        time.sleep(0.05)


def _bwrap_features():
    """(--size, --disable-userns) supported by this bubblewrap (0.5+ and 0.8+: Ubuntu 22.04 has 0.6)."""
    try:
        text = subprocess.run([system_program("bwrap"), "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=10, cwd=TRUSTED_CWD, env=trusted_env(), close_fds=True).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False, False
    return "--size" in text, "--disable-userns" in text


def _check_cgroups(limits, probe, work):
    """`limits`, without its cgroups (and saying why) when a command cannot join one here."""
    if not limits.cgroups or limits.cgroups.how == "none":
        return limits
    try:
        rc, timed_out, _ = run_limited([system_program("bash"), "-c", "grep -q mmlab-grade /proc/self/cgroup"], probe,
                                       probe, work / "probe.log", 30, replace(limits, mode="none"), 10, clean_env())
    except OSError as e:
        rc, timed_out = str(e), False
    if rc == 0 and not timed_out:
        return limits
    why = f"a command could not join a {limits.cgroups.how} group (exit {rc}; see {work / 'probe.log'})"
    return replace(limits, cgroups=cgroup_limits.Cgroups("none", why=why))


def probe_sandbox(requested, work, limits=None):
    """The level asked for as Limits (`limits` with the level and the bubblewrap features set), when it works
    here. auto means bwrap: where bwrap does not work the grader refuses (SetupError: why, and the fix, naming
    the strongest weaker level that works here, which the instructor may then ask for by name); a weaker level
    named that does not work is a UsageError. A level works when a command in it can write inside its tree
    and, from unshare up, can neither write outside it nor see what lies beside it; bwrap must also run as a
    user other than root."""
    mode = "bwrap" if requested == "auto" else requested
    with _Probe(work, limits) as probe:
        found = probe.works(mode)
        if found:
            return found
        if mode == "bwrap":
            weaker = next((m for m in LEVELS[1:] if probe.works(m)), "none")
            raise SetupError(refusal(probe.bwrap_error, weaker))
    raise UsageError(f"--sandbox {requested} does not work on this machine (unshare or user namespaces missing, "
                     "see handouts/grading.md, 'Containment'): name another level (bwrap, unshare, net or none)")


def strongest_level(work, limits=None):
    """The strongest level that works here, as Limits (the tests' choice where bwrap does not work)."""
    with _Probe(work, limits) as probe:
        return next(found for found in map(probe.works, LEVELS) if found)


def refusal(bwrap_error, weaker):
    """The one line of a run refused because bubblewrap does not work here (bwrap_error: None when it is not
    installed, else what it said), with the fix, and the weaker level that does work here to name instead."""
    name_it = f"or accept weaker containment by naming it: --sandbox {weaker} (handouts/grading.md, 'Containment')"
    if bwrap_error is None:
        return (f"bubblewrap (bwrap) is not installed{install.why_not_installed()}, and below it student code could "
                f"read more of this machine: install it ({install.install_line()}), {name_it}")
    return (f"bubblewrap is installed but cannot create its sandbox here ({bwrap_error}): allow unprivileged user "
            "namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; in a container, "
            f"start it with them allowed), {name_it}")


class _Probe:
    """Tries levels in the folder `work` (a probe tree, and a sentinel file beside it that must stay unseen)."""
    # bwrap and unshare: the sentinel beside the tree must be invisible (bwrap's user also not root); a write to
    # ../ fails or lands in the sandbox's own empty /tmp, gone with it: only the check on this side,
    # outside.exists(), tells.
    TESTS = {
        "bwrap": "echo x > ok && ! test -e ../probe-sentinel && [ \"$(id -u)\" != 0 ]",
        "unshare": "echo x > ok && { echo x > ../outside-probe; } 2>/dev/null; ! test -e ../probe-sentinel",
        "net": "echo x > ok",
        "none": "echo x > ok",
    }

    def __init__(self, work, limits):
        self.work, self.limits = Path(work), limits or Limits("none", 0, 1024, 1000, user=grading_user())
        self.bwrap_error = None  # what bwrap said when it failed (None: not installed, or not tried)

    def __enter__(self):
        self.tree = self.work / "probe"
        self.tree.mkdir(parents=True)
        os.chmod(self.tree, 0o755)
        self.outside = self.work / "outside-probe"
        self.sentinel = self.work / "probe-sentinel"
        self.sentinel.write_text("the sandbox must not show this\n")
        os.chmod(self.sentinel, 0o644)
        self.features = _bwrap_features() if system_program("bwrap") else (False, False)
        self.limits = _check_cgroups(self.limits, self.tree, self.work)
        return self

    def __exit__(self, *exc):
        self.sentinel.unlink()

    def works(self, mode):
        """`limits` at `mode` when a command runs there as it must, else None."""
        if mode == "bwrap" and not system_program("bwrap"):
            return None
        candidate = replace(self.limits, mode=mode, tmp_size=self.features[0], no_userns=self.features[1])
        # The probe hides its own folder, as a run hides its work folder (class_run.open_work).
        trial = replace(candidate, hidden=candidate.hidden + (str(self.work),))
        log = self.work / "probe.log"
        try:
            rc, timed_out, _ = run_limited([system_program("bash"), "-c", self.TESTS[mode]], self.tree, self.tree,
                                           log, 30, trial, 10, clean_env())
            ok = rc == 0 and not timed_out and (self.tree / "ok").exists() and not self.outside.exists()
        except OSError as e:
            ok, rc = False, str(e)
        for f in (self.tree / "ok", self.outside):
            if f.exists():
                f.unlink()
        if not ok and mode == "bwrap":
            said = [line.strip() for line in read_head(log, 4096).splitlines() if line.strip()]
            self.bwrap_error = said[0][:200] if said else f"exit {rc}"
        return candidate if ok else None


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
