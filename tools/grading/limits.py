"""Limits the kernel counts for a whole sandbox, not per process: memory (with
shared memory and tmpfs: an anonymous memfd is not counted by the address-space
rlimit, issue 24) and processes, by a control group made for each command.

Where the grader can make one:
  cgroup2  a cgroup2 hierarchy whose memory and pids controllers this process
           may enable: root on a host with the unified hierarchy (Debian 12,
           Ubuntu 22.04/24.04), or a delegated folder named by MMLAB_CGROUP
           (systemd's Delegate=yes, a container given a writable cgroup). The
           groups go in a folder of their own (mmlab-grade-PID) beside this
           process's group (the "no internal processes" rule forbids them
           under it); memory.max and memory.swap.max=0, pids.max.
  cgroup1  the legacy (v1) memory and pids hierarchies of a hybrid host, as
           root: the groups go under this process's own groups there (so any
           limit above it still holds); memory.limit_in_bytes and
           memory.memsw.limit_in_bytes (memory with swap), pids.max.
  none     neither: memory is limited per process only (address space, which
           a memfd escapes), processes per user (RLIMIT_NPROC), and probe()
           says why in one line for summary.txt.

A command joins its group before it drops root (the process writes 0, itself,
into cgroup.procs: a process of the unprivileged grading user may not move
itself there): sandbox.run_in_group through join_prefix, the checker through
MML_RUNNER_CGROUP (harness/runner/runner_process.cpp). When the command ends,
what is left in the group is killed and the group removed.
"""

import itertools
import os
import shlex
import time
from dataclasses import dataclass

from .environment import system_program

CGROUP_ROOT = "/sys/fs/cgroup"
# The controllers this module needs, v1 name -> the file that limits it.
_V1 = ("memory", "pids")


@dataclass(frozen=True)
class Cgroups:
    """What this machine allows. how: 'cgroup2', 'cgroup1' or 'none'; parents: the folder(s) new groups go
    in (cgroup2: one; cgroup1: memory's and pids'); why: for 'none', the reason in a few words."""
    how: str
    parents: tuple = ()
    why: str = ""


def _own_group(controller):
    """This process's group in the hierarchy of `controller` ('' for cgroup2), from /proc/self/cgroup."""
    try:
        for line in open("/proc/self/cgroup"):
            _, names, path = line.rstrip("\n").split(":", 2)
            if controller in names.split(","):
                return path
    except (OSError, ValueError):
        pass
    return None


def _unified_mount():
    """Where the cgroup2 hierarchy is mounted ('' when it is not)."""
    try:
        for line in open("/proc/self/mounts"):
            f = line.split()
            if len(f) > 2 and f[2] == "cgroup2":
                return f[1]
    except OSError:
        pass
    return ""


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _try_cgroup2():
    """(parent folder, '') where this process can make limited cgroup2 groups, else (None, why)."""
    mount = _unified_mount()
    if not mount:
        return None, "no cgroup2 hierarchy is mounted"
    given = os.environ.get("MMLAB_CGROUP")
    if given:
        base = given
    else:
        own = _own_group("")
        base = os.path.dirname(os.path.join(mount, (own or "/").lstrip("/")).rstrip("/")) if own not in (None, "/") \
            else mount
    try:
        controllers = open(os.path.join(base, "cgroup.controllers")).read().split()
    except OSError as e:
        return None, f"cgroup2 at {base} is not readable ({e.strerror})"
    missing = [c for c in _V1 if c not in controllers]
    if missing:
        return None, f"cgroup2 at {base} has no {' and '.join(missing)} controller (they are in a v1 hierarchy " \
                     "or not delegated to this user)"
    parent = os.path.join(base, f"mmlab-grade-{os.getpid()}")
    try:
        _write(os.path.join(base, "cgroup.subtree_control"), "+memory +pids")
        os.mkdir(parent)
        _write(os.path.join(parent, "cgroup.subtree_control"), "+memory +pids")
    except OSError as e:
        _remove(parent)
        return None, f"cannot make a group under {base} ({e.strerror}: run as root, or name a delegated " \
                     "cgroup in MMLAB_CGROUP)"
    return parent, ""


def _try_cgroup1():
    """(memory parent, pids parent) where this process can make v1 groups, else (None, why)."""
    parents = []
    for c in _V1:
        own = _own_group(c)
        base = os.path.join(CGROUP_ROOT, c)
        if own is None or not os.path.isfile(os.path.join(base, "cgroup.procs")):
            return None, f"no v1 {c} hierarchy"
        parent = os.path.join(base, own.lstrip("/"), f"mmlab-grade-{os.getpid()}")
        try:
            os.mkdir(parent)
        except OSError as e:
            for p in parents:
                _remove(p)
            return None, f"cannot make a v1 {c} group ({e.strerror})"
        parents.append(parent)
    return tuple(parents), ""


def probe():
    """The strongest way to count a sandbox's memory and processes here: Cgroups (made now: call release()
    at the end of the run)."""
    if not system_program("setpriv") and os.geteuid() == 0:
        return Cgroups("none", why="setpriv (util-linux) is missing, needed to drop root after joining a group")
    parent, why2 = _try_cgroup2()
    if parent:
        return Cgroups("cgroup2", (parent,))
    parents, why1 = _try_cgroup1()
    if parents:
        return Cgroups("cgroup1", parents)
    return Cgroups("none", why=f"{why2}; {why1}")


def _kill_all(group):
    """Kills every process of a group until it is empty (cgroup.kill where the kernel has it, 5.14+)."""
    kill = os.path.join(group, "cgroup.kill")
    for _ in range(100):
        try:
            pids = [int(p) for p in open(os.path.join(group, "cgroup.procs")).read().split()]
        except OSError:
            return
        if not pids:
            return
        if os.path.exists(kill):
            _write(kill, "1")
        else:
            for p in pids:
                try:
                    os.kill(p, 9)
                except OSError:
                    pass
        time.sleep(0.01)


def _remove(group):
    if not os.path.isdir(group):
        return
    for sub in os.listdir(group):  # the groups made in it (cgroup files cannot be removed, only folders)
        if os.path.isdir(os.path.join(group, sub)):
            _remove(os.path.join(group, sub))
    _kill_all(group)
    for _ in range(50):
        try:
            os.rmdir(group)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)  # the last process is still being reaped


def release(cgroups):
    """Removes the run's folder(s) of groups (and kills whatever is still in them)."""
    if cgroups:
        for p in cgroups.parents:
            _remove(p)


class Group:
    """One command's group (a context manager): procs, the cgroup.procs files the command's first process
    writes 0 into (join_prefix, MML_RUNNER_CGROUP); on exit, what is left is killed and the group removed."""
    _numbers = itertools.count(1)  # next() is atomic: graders' threads (-j) make groups at once

    def __init__(self, cgroups, memory_mb, pids):
        self.folders, self.procs = [], []
        if not cgroups or cgroups.how == "none":
            return
        name = f"c{os.getpid()}-{next(Group._numbers)}"
        mem = str(memory_mb * 1024 * 1024) if memory_mb else None
        if cgroups.how == "cgroup2":
            g = os.path.join(cgroups.parents[0], name)
            os.mkdir(g)
            self.folders.append(g)
            for f, v in (("memory.max", mem or "max"), ("memory.swap.max", "0"), ("pids.max", str(pids))):
                if os.path.exists(os.path.join(g, f)) or f != "memory.swap.max":  # no swap accounting: no file
                    _write(os.path.join(g, f), v)
        else:
            mg, pg = (os.path.join(p, name) for p in cgroups.parents)
            for g in (mg, pg):
                os.mkdir(g)
                self.folders.append(g)
            _write(os.path.join(mg, "memory.limit_in_bytes"), mem or "-1")
            if os.path.exists(os.path.join(mg, "memory.memsw.limit_in_bytes")):  # swap accounting on
                _write(os.path.join(mg, "memory.memsw.limit_in_bytes"), mem or "-1")
            _write(os.path.join(pg, "pids.max"), str(pids))
        self.procs = [os.path.join(g, "cgroup.procs") for g in self.folders]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for g in self.folders:
            _remove(g)
        return False


def join_prefix(procs, user):
    """The command line that, put before a command, makes its process join the groups (`procs`: their
    cgroup.procs files) and then, when `user` switches (the grader is root), become that user with no
    supplementary groups; [] when there is nothing to join."""
    if not procs:
        return []
    switch = [system_program("setpriv"), f"--reuid={user.uid}", f"--regid={user.gid}", "--clear-groups", "--"] \
        if user and user.switch else []
    script = "for f in " + " ".join(shlex.quote(p) for p in procs) + "; do echo 0 > \"$f\" || exit 125; done; " \
        "exec \"$@\""
    return [system_program("bash"), "-c", script, "mmlab-join"] + switch


def describe(cgroups, memory_mb, pids):
    """One line for the run: how memory and processes are counted per sandbox, or which limit is missing."""
    if cgroups.how == "none":
        return f"memory and processes per sandbox: NOT limited ({cgroups.why}); memory is limited per process " \
               "by address space only (shared memory such as a memfd is not counted), processes per user"
    return f"memory and processes per sandbox: {cgroups.how} group for each command ({memory_mb} MiB with " \
           f"shared memory and tmpfs, no swap; {pids} processes and threads)"
