#!/usr/bin/env python3
"""Unit tests of tools/grading/sandbox.py: commands run under
tools/grading/sandbox.sh with a wall-clock limit (the whole process group
killed at it), a file-size limit, their output in a log read back capped;
no command started once the grader is stopping; the environment cleaned to
what builds need; the containment probe, and the refusal below bwrap (its
line names the fix); at the bwrap and unshare levels (each where it works
here): only the tree readable, no network, nothing left running, and at bwrap
the user not root; what unshare hides (hidden_dirs, sandbox.sh's options);
the masks of a student's tree; handing a tree to the grading user.
Short shell commands only (a few seconds)."""
import sys
sys.dont_write_bytecode = True
import os
import socket
import time
from pathlib import Path

import checks
from checks import Scratch, check
from grading import install, sandbox
from grading.common import SetupError, UsageError

LIMITS = sandbox.Limits("none", 0, 1024, 1000)  # no memory limit, 1 MiB files; as this user (root too)


def run(tmp, script, timeout=20, cpu=60, fsize_kb=None):
    log = tmp / "log.txt"
    rc, timed_out, secs = sandbox.run_limited(["bash", "-c", script], tmp, tmp, log, timeout, LIMITS, cpu,
                                              sandbox.clean_env(), fsize_kb=fsize_kb)
    return rc, timed_out, secs, log.read_text(errors="replace")


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie is dead, only not yet reaped
    except OSError:
        return False


def running_commands(tmp):
    rc, timed_out, secs, log = run(tmp, "echo out; echo err >&2; exit 7")
    check(rc == 7 and not timed_out and log == "out\nerr\n", "exit status kept; stdout and stderr go to the log",
          f"{rc} {timed_out} {log!r}")
    rc, timed_out, secs, log = run(tmp, "sleep 100 & echo $! > child.pid; sleep 100", timeout=0.5)
    child = int((tmp / "child.pid").read_text())
    time.sleep(0.2)
    check(timed_out and secs < 5 and not alive(child),
          "at the time limit the command and everything it started are killed", f"{timed_out} {secs:.1f} s")
    rc, timed_out, secs, log = run(tmp, "head -c 3000000 /dev/zero > big.bin")
    check(rc == 128 + 25 and (tmp / "big.bin").stat().st_size <= 1024 * 1024,
          "a file past the size limit: stopped by SIGXFSZ at the limit", f"exit {rc}")
    rc, *_ = run(tmp, "head -c 3000000 /dev/zero > big.bin", fsize_kb=4096)
    check(rc == 0, "a build's own, larger file-size limit (fsize_kb) replaces the default", f"exit {rc}")
    # 1 CPU second, 30 s of wall clock: stopped by the CPU limit, not by the clock (on a busy machine 1 CPU
    # second can take many seconds of wall clock, so the wall time itself is not asserted).
    rc, timed_out, secs, log = run(tmp, "while :; do :; done", timeout=30, cpu=1)
    check(not timed_out and rc in (128 + 24, 128 + 9), "CPU seconds are limited per process",
          f"exit {rc} after {secs:.1f} s")
    check(not sandbox.RUNNING, "no process group is left registered after the commands")


def stopping(tmp):
    sandbox.STOPPING.set()
    try:
        try:
            run(tmp, "echo should not run > ran.txt")
            started = True
        except sandbox.Stopped:
            started = False
        check(not started and not (tmp / "ran.txt").exists(), "once the grader is stopping, no command starts (Stopped)")
        check(not isinstance(sandbox.Stopped(), Exception),
              "Stopped is no Exception: the grader's per-student 'except Exception' cannot make it a grade")
    finally:
        sandbox.STOPPING.clear()


def environment():
    saved = dict(os.environ)
    os.environ.update({"MAKEFLAGS": "-j99", "OPT": "-O0", "MML_IMPL": "reference", "OMP_NUM_THREADS": "64",
                       "MMLAB_SECRET_TOKEN": "x", "CUDA_VISIBLE_DEVICES": "1", "LC_MESSAGES": "C", "CXX": "g++",
                       "OMPI_MCA_plm_rsh_agent": "false", "NCCL_NVLS_ENABLE": "0", "OMPI_ALLOW_RUN_AS_ROOT": "1"})
    try:
        env = sandbox.clean_env({"TMPDIR": "/x"})
    finally:
        os.environ.clear()
        os.environ.update(saved)
    check(not {"MAKEFLAGS", "OPT", "MML_IMPL", "OMP_NUM_THREADS", "MMLAB_SECRET_TOKEN"} & set(env),
          "the caller's make flags, OPT, MML_IMPL, thread count and any other variable do not reach builds and tests")
    check(env.get("CUDA_VISIBLE_DEVICES") == "1" and env.get("CXX") == "g++" and "PATH" in env,
          "what a build needs is kept: PATH, CXX, the GPU's selection", str(sorted(env)))
    check(env.get("OMPI_MCA_plm_rsh_agent") == "false" and env.get("NCCL_NVLS_ENABLE") == "0"
          and "OMPI_ALLOW_RUN_AS_ROOT" not in env,
          "the machine's MPI and NCCL settings (OMPI_MCA_*, NCCL_*) are kept; running MPI as root is not",
          str(sorted(env)))
    check(env["LC_ALL"] == "C" and env["TMPDIR"] == "/x", "LC_ALL=C (compiler messages in English); extras added")


def logs(tmp):
    f = tmp / "long.log"
    f.write_bytes(b"x" * 5000 + "é".encode() + b"\xff")
    text = sandbox.read_head(f, 1024)
    check(text.startswith("x" * 1024) and text.endswith("[... output cut: it was longer than 1 KiB ...]"),
          "a log longer than the cap: its head, and a line saying it was cut", text[-60:])
    whole = sandbox.read_head(f)
    check("é" in whole and "\ufffd" in whole and "cut" not in whole, "a short log whole; bytes that are not UTF-8 replaced")
    check(sandbox.read_head(tmp / "missing.log") == "", "a missing log reads as empty")
    check(sandbox.tail_lines("a\nb\nc\nd", 2) == "c\nd" and sandbox.tail_lines("", 3) == "", "tail_lines")


def probe(tmp):
    work = tmp / "probe-none"
    work.mkdir()
    check(sandbox.probe_sandbox("none", work).mode == "none", "--sandbox none works everywhere")
    work = tmp / "probe-auto"
    work.mkdir()
    try:
        limits = sandbox.probe_sandbox("auto", work)
        check(limits.mode == "bwrap" and not (work / "outside-probe").exists(),
              "--sandbox auto is bwrap, which works here, and leaves no probe file outside", limits.mode)
    except SetupError as e:
        check("--sandbox " in str(e) and ("install" in str(e) or "namespaces" in str(e)) and "\n" not in str(e),
              "--sandbox auto where bwrap does not work: a one-line refusal naming the fix and a weaker level", str(e))
    limits = sandbox.strongest_level(tmp / "probe-strongest")
    check(limits.mode in sandbox.LEVELS, f"the strongest level that works here: {limits.mode}")
    return limits


def refusal():
    missing = sandbox.refusal(None, "unshare")
    check("not installed" in missing and install.install_line() in missing and "--sandbox unshare" in missing,
          "the refusal without bubblewrap: says it is missing, the line that installs it, the level to name instead",
          missing)
    broken = sandbox.refusal("bwrap: setting up uid map: Permission denied", "net")
    check("installed but cannot" in broken and "uid map" in broken and "user namespaces" in broken
          and "--sandbox net" in broken, "the refusal where bwrap cannot run: what it said, user namespaces, the "
          "level to name instead", broken)
    check(install.install_line().endswith("bubblewrap"), "the install line names the package", install.install_line())


def hiding(tmp):
    """What the unshare level is told to hide: existing folders, never /, a system folder or one above one."""
    kept = sandbox.hidden_dirs(["/", "/usr", str(tmp), str(tmp / "missing"), str(tmp) + "/", "/opt"])
    check(kept == (os.path.realpath(tmp),), "hidden_dirs: existing folders only, once, not /, nor a system folder "
          "or one above it (a folder inside one, a checkout in /opt, is hidden)", str(kept))
    tree = tmp / "hide-tree"
    (tree / "solutions").mkdir(parents=True)
    lim = sandbox.Limits("unshare", 0, 1024, 1000, masks=((tmp / "stub", "solutions"), (tmp / "stub2", "absent")),
                         hidden=(str(tmp),), extra_dirs=(Path("/opt/tool"),))
    cmd = sandbox.sandbox_command(["true"], tree, tree, lim, 10)
    opts = cmd[8:cmd.index("--")]  # after bash, the script, the level, the tree and the four limits
    want = [a for d in sandbox.HIDDEN_ALWAYS if os.path.isdir(d) for a in ("--hide", d)] + \
        ["--hide", os.path.realpath(tmp), "--show", "/opt/tool", "--mask", str(tmp / "stub"), str(tree / "solutions")]
    check(opts == want, "unshare: sandbox.sh hides /home, /root and Limits.hidden, shows the toolchain, masks the "
          "tree's folders that exist", str(opts))
    check("--hide" not in sandbox.sandbox_command(["true"], tree, tree, sandbox.replace(lim, mode="net"), 10),
          "net: nothing to hide (no mount namespace)")


LOOPBACK_PROBE = ("import socket\n"
                  "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
                  "socket.create_connection(s.getsockname(), timeout=2); print('loopback: up')\n"
                  "try:\n    socket.create_connection(('192.0.2.1', 80), timeout=2); print('outside: reached')\n"
                  "except OSError:\n    print('outside: unreachable')\n")


def loopback(tmp):
    """Every level with a network namespace of its own: no network, but the loopback interface is up (MPI's
    mpirun and ranks, lab 12, and NCCL's bootstrap talk over it; a new namespace starts with it down: seen on
    the H100 machine, where the unshare level failed every lab 12 test with 'opal_ifinit: unable to find
    network interfaces')."""
    for mode in ("unshare", "net", "bwrap"):
        work = tmp / f"loopback-{mode}"
        work.mkdir()
        try:  # a level that does not work here: UsageError, or SetupError (the refusal) for bwrap
            works = sandbox.probe_sandbox(mode, work).mode == mode
        except (UsageError, SetupError):
            works = False
        if not works:
            print(f"note - the {mode} level does not work here: its loopback is not checked")
            continue
        limits = sandbox.Limits(mode, 0, 1024, 1000)
        log = work / "log.txt"
        sandbox.run_limited(["python3", "-c", LOOPBACK_PROBE], work, work, log, 20, limits, 20, sandbox.clean_env())
        text = log.read_text(errors="replace")
        check("loopback: up" in text and "outside: unreachable" in text,
              f"the {mode} level: loopback up, nothing outside reachable", text[-300:])


def contained_level(tmp, mode):
    """The bwrap and unshare levels, each where it works here: run as the run's own folder layout (a tree in a
    folder that also holds a file it must not see)."""
    try:
        limits = sandbox.probe_sandbox(mode, tmp / f"probe-{mode}")
    except (SetupError, UsageError) as e:
        print(f"skip - the {mode} level does not work here, its checks are not made: {e}")
        return
    run_dir = tmp / f"run-{mode}"
    run_dir.mkdir()
    os.chmod(run_dir, 0o711)
    tree = run_dir / "student0000"
    (tree / "solutions").mkdir(parents=True)
    (tree / "solutions" / "answer.cpp").write_text("the answer\n")
    (run_dir / "other-student.txt").write_text("secret\n")
    stub = run_dir / "masks" / "solutions"
    stub.mkdir(parents=True)
    (stub / "answer.cpp").touch()
    script = run_dir / "sandbox.sh"
    script.write_bytes(sandbox.SANDBOX.read_bytes())
    os.chmod(script, 0o755)
    lim = sandbox.replace(limits, script=script, masks=((stub, "solutions"),), hidden=(str(run_dir),))
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.1)
    port = server.getsockname()[1]

    def run_in(script_text, timeout=20):
        log = run_dir / "log.txt"
        rc, timed_out, secs = sandbox.run_limited(["bash", "-c", script_text], tree, tree, log, timeout, lim, 60,
                                                  sandbox.clean_env())
        return rc, timed_out, secs, log.read_text(errors="replace")

    rc, _, _, log = run_in("echo x > mine.txt && id -u && cat solutions/answer.cpp | wc -c")
    # (unshare maps its unprivileged user to root inside its own user namespace: id -u is 0 there)
    check(rc == 0 and (tree / "mine.txt").exists() and (log.split()[0] != "0" or mode == "unshare")
          and log.split()[1] == "0", f"{mode}: the tree is writable, the user is not root, a masked file reads as "
          "empty", log)
    # (a write beside the tree lands in the sandbox's own /tmp, gone with it)
    rc, _, _, log = run_in(f"cat {run_dir}/other-student.txt; ls /root /home 2>&1; ls -A {run_dir} | tr '\\n' ' ';"
                           f" echo x > {run_dir}/x; echo")
    # (unshare binds back, read-only, the sandbox.sh it runs: the grader's own script, no secret)
    beside = set(log.split("\n")[-2].split()) - ({"sandbox.sh"} if mode == "unshare" else set())
    check("secret" not in log and not (run_dir / "x").exists() and beside == {"student0000"},
          f"{mode}: what lies beside the tree, /root, /home and /tmp are not visible; nothing is written outside",
          log)
    rc, _, _, log = run_in(f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected")
    try:
        accepted = server.accept() is not None
    except OSError:
        accepted = False
    server.close()
    check(rc != 0 and "connected" not in log and not accepted, f"{mode}: no network (not even this machine's loopback)",
          log)
    rc, timed_out, secs, log = run_in("(setsid sleep 4321 &) ; sleep 4322", timeout=1)
    time.sleep(0.5)
    left = [d for d in Path("/proc").iterdir() if d.name.isdigit() and b"432" in _cmdline(d)]
    check(timed_out and not left, f"{mode}: at the time limit every process of the sandbox goes, a detached one too",
          str(left))
    rc, *_ = run_in("kill -SEGV $$")
    check(rc == 128 + 11, f"{mode}: a signal that ends the command is its exit status, as bash reports it", f"exit {rc}")


def _cmdline(d):
    try:
        return (d / "cmdline").read_bytes()
    except OSError:
        return b""


def masks(tmp):
    base = tmp / "base"
    for f, text in [("solutions/lab3/strassen.h", "given\n"), ("solutions/lab3/strassen.cpp", "answer\n"),
                    ("solutions/lab1/loop_orders.cpp", "answer\n"), ("tools/grading/cli.py", "grader\n"),
                    ("labs/lab3/strassen.cpp", "starter\n")]:
        (base / f).parent.mkdir(parents=True, exist_ok=True)
        (base / f).write_text(text)
    os.utime(base / "solutions/lab3/strassen.cpp", (1000000000, 1000000000))
    (base / "build/obj/labs/lab3").mkdir(parents=True)
    (base / "build/obj/labs/lab3/strassen.cpp.d").write_text(
        "build/obj/labs/lab3/strassen.cpp.o: labs/lab3/strassen.cpp \\\n solutions/lab3/strassen.h\n"
        "solutions/lab3/strassen.h:\n")
    got = sandbox.masks_for_lab(base, "labs/lab3", tmp / "masks")
    stub = tmp / "masks"
    check(sorted(rel for _, rel in got) == ["solutions", "tools"], "masks: solutions/ and tools/ (those present)",
          str(got))
    check((stub / "solutions/lab3/strassen.h").read_text() == "given\n"
          and (stub / "solutions/lab3/strassen.cpp").read_text() == ""
          and (stub / "solutions/lab1/loop_orders.cpp").read_text() == ""
          and (stub / "tools/grading/cli.py").read_text() == "",
          "masks: a header the lab's own code includes keeps its content; every other file is empty")
    check((stub / "solutions/lab3/strassen.cpp").stat().st_mtime == 1000000000,
          "masks: each file keeps its modification time (make finds it up to date)")


def toolchain(tmp):
    shared = tmp / "apps" / "gcc-13"
    (shared / "bin").mkdir(parents=True)
    os.chmod(tmp / "apps", 0o755)
    os.chmod(shared, 0o755)
    os.chmod(shared / "bin", 0o755)
    (shared / "bin" / "g++").write_text("#!/bin/sh\n")
    os.chmod(shared / "bin" / "g++", 0o755)
    private = tmp / "private"
    private.mkdir(mode=0o700)
    secret_lib = tmp / "checkout" / "lib"
    secret_lib.mkdir(parents=True)
    saved = dict(os.environ)
    os.environ.update({"CXX": str(shared / "bin" / "g++"), "LD_LIBRARY_PATH": f"/usr/lib:{private}:{secret_lib}",
                       "MMLAB_SANDBOX_DIRS": "/etc/ssl:/"})
    try:
        dirs = sandbox.toolchain_dirs(None, [tmp / "checkout"])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    check(shared in dirs, "toolchain: a compiler installed outside the system's folders is shown (its prefix)",
          str(dirs))
    check(not any(d in (private, secret_lib, Path("/"), Path("/usr/lib"), Path("/etc/ssl")) for d in dirs),
          "toolchain: not the system's folders (shown anyway), /, a folder others may not read, or the checkout",
          str(dirs))


def ownership(tmp):
    if os.geteuid() != 0:
        print("note - not root: handing a tree to another user is not checked")
        return
    user = sandbox.grading_user()
    tree = tmp / "own"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "f").write_text("x")
    outside = tmp / "outside-file"
    outside.write_text("root's")
    os.link(outside, tree / "hardlink")
    os.symlink(outside, tree / "link")
    sandbox.hand_over(tree, user)
    check((tree / "sub" / "f").stat().st_uid == user.uid and (tree / "sub").stat().st_uid == user.uid,
          f"hand_over: the tree becomes {user.name}'s")
    check(outside.stat().st_uid == 0, "hand_over: a hard link or a symbolic link to a file outside changes nothing there")
    sandbox.take_back(tree, user)
    check((tree / "sub" / "f").stat().st_uid == 0, "take_back: the tree is the grader's again")


with Scratch() as tmp:
    os.chmod(tmp, 0o711)  # as the grader's work folder: the grading user (root: nobody) reaches the trees in it
    running_commands(tmp)
    stopping(tmp)
    environment()
    logs(tmp)
    probe(tmp)
    refusal()
    hiding(tmp)
    for level in ("bwrap", "unshare"):
        contained_level(tmp, level)
    loopback(tmp)
    masks(tmp)
    toolchain(tmp)
    ownership(tmp)
checks.finish("sandbox")
