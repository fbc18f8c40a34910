"""Who student code runs as: when the grader is root, an unprivileged user
(MMLAB_GRADER_USER, default nobody), never root (the process limit is not
enforced for root, and root reads everything); the build trees such a command
writes are handed over to that user before it starts (hand_over)."""

import os
import pwd
import stat
from dataclasses import dataclass

from .common import UsageError


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
