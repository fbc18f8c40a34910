#!/usr/bin/env python3
"""Unit test of the grader as the reaper of its sandboxes' orphans
(sandbox.become_subreaper, reap_orphans): a command whose sandbox init
outlives it (here a stand-in named bwrap, in a session of its own, as
bwrap's inner process is) leaves no zombie once the grader has run it; the
control shows the orphan really came to the grader. A second."""
import sys
sys.dont_write_bytecode = True
import os
import shutil
import subprocess
import time

import checks
from checks import Scratch, check
from grading import sandbox


def zombie_children(alive_too=False):
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = dict(l.split(":", 1) for l in open(f"/proc/{entry}/status") if ":" in l)
            except OSError:
                continue
            if int(fields["PPid"]) == me and (alive_too or fields["State"].strip().startswith("Z")):
                found.append((int(entry), fields["Name"].strip()))
    return found


def main():
    with Scratch() as tmp:
        fake = tmp / "bwrap"  # the stand-in for a sandbox's init: a sleep whose name is bwrap's
        shutil.copy(shutil.which("sleep"), fake)
        sandbox.become_subreaper()
        # A command that starts its init in a session of its own and ends first, as bwrap's outer process
        # does when the grader kills it: the init is orphaned, and ends 0.3 s later.
        orphan = [sys.executable, "-c", "import os, sys\nif os.fork() == 0:\n    os.setsid()\n"
                  f"    os.execv({str(fake)!r}, [{str(fake)!r}, '0.3'])\n"]
        # Control: without the reaping, the orphan ends as this process's zombie (it came to us, not to PID 1).
        p = subprocess.Popen(orphan, start_new_session=True)
        p.wait()
        time.sleep(0.8)
        before = zombie_children()
        check(any(name == "bwrap" for _, name in before),
              "(control) a sandbox init orphaned by its command comes to the grader, a zombie until reaped", before)
        sandbox.reap_orphans()
        check(zombie_children() == [], "reap_orphans ends the zombies the sandboxes left", zombie_children())
        rc, timed_out, secs = sandbox.run_in_group(orphan, str(tmp), dict(os.environ),
                                                   tmp / "log.txt", 10)
        left = zombie_children(alive_too=True)
        check(rc == 0 and left == [],
              "a command whose sandbox init outlives it: run_in_group returns once that init has ended, reaped",
              f"rc {rc}, {secs:.2f} s, children left {left}")
    checks.finish("reaper")


if __name__ == "__main__":
    main()
