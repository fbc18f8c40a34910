"""bubblewrap, which the grader's default containment (bwrap) needs, put in
place by the grader itself: only instructors grade, so it is the grader's
set-up, not tools/configure.sh's (which every student runs).

As root with apt-get, and unless NO_INSTALL=1, a missing bubblewrap is
installed the way tools/configure.sh installs its optional packages: one line
per step (apt-get install; where that fails, apt-get update, then install
again), apt-get's own output only when a step fails. Elsewhere nothing is
installed and the refusal (sandbox.refusal) names the one command to run
(install_line). Only where the grader would use bwrap: a weaker level named
with --sandbox installs nothing.
"""

import os
import subprocess
import sys
import tempfile

from .common import PROG
from .environment import TRUSTED_CWD, system_program, trusted_env

PACKAGE = "bubblewrap"
# Why the last try here did not install it (None: none was made), for the refusal's line.
_failed = None


def install_line():
    """The one command that installs bubblewrap on this machine, for a person to run."""
    for tool, command in (("apt-get", "apt-get install"), ("dnf", "dnf install"), ("pacman", "pacman -S")):
        if system_program(tool):
            return f"sudo {command} {PACKAGE}"
    return f"your distribution's {PACKAGE} package"


def why_not_installed():
    """' (apt-get failed: above)' after a failed try here, else ''."""
    return f" ({_failed})" if _failed else ""


def _step(what, cmd, quietly=False):
    """One line saying what runs; the command's output kept aside and printed only when it fails (not even
    then with quietly: a failure the caller handles). True when it succeeded."""
    print(f"{PROG}: {what}", file=sys.stderr, flush=True)
    env = dict(trusted_env(), DEBIAN_FRONTEND="noninteractive")
    with tempfile.TemporaryFile() as log:
        try:
            rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=TRUSTED_CWD,
                                env=env, close_fds=True, timeout=1800).returncode
        except (OSError, subprocess.TimeoutExpired) as e:
            log.write(f"{e}\n".encode())
            rc = "not run"
        if rc == 0 or quietly:
            return rc == 0
        log.seek(0)
        text = log.read().decode("utf-8", "replace")
    print(f"{PROG}: {what} failed (exit {rc}); its output:", file=sys.stderr)
    print("\n".join("  | " + line for line in text.splitlines()), file=sys.stderr, flush=True)
    return False


def ensure_bubblewrap(level):
    """Installs bubblewrap where the grader would use it (--sandbox `level`: auto or bwrap) and may: as root
    with apt-get, without NO_INSTALL=1. Says nothing where it is installed already or may not install."""
    global _failed
    apt = system_program("apt-get")
    if level not in ("auto", "bwrap") or system_program("bwrap") or os.geteuid() != 0 or not apt or \
            os.environ.get("NO_INSTALL") == "1":
        return
    # Without an update first where the package lists are fresh enough; where they are not, that try's
    # failure is expected and stays quiet.
    what = f"apt-get install {PACKAGE} (the sandbox student code runs in)"
    install = [apt, "install", "-y", "-q", PACKAGE]
    if _step(what, install, quietly=True) or \
            (_step("apt-get update (the package lists)", [apt, "update", "-q"]) and _step(what, install)):
        _failed = None if system_program("bwrap") else "apt-get installed no bwrap"
        return
    _failed = "apt-get failed: above"
