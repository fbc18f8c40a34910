#!/usr/bin/env python3
"""Unit tests of tools/grading/environment.py and limits.py (issue 24): what a
trusted program and a sandboxed command inherit (no empty or relative PATH or
LD_LIBRARY_PATH entry, no loader variable, no descriptor of the grader's), and
each limit a student's command could try to exceed, exceeded: memory with
shared memory (a memfd hog), shared memory in tmpfs, processes, open files.
The limits counted by a cgroup need one this machine lets the grader make (as
root): where it cannot, those checks say 'skip' with the reason, never 'ok'.
Seconds in all."""
import sys
sys.dont_write_bytecode = True
import os
from dataclasses import replace

import checks
from checks import Scratch, check
from grading import environment, limits, sandbox

# A hog of anonymous shared memory: the address-space limit does not count it, and the file-size limit
# only each memfd's size (one per 16 MiB, as many as the open-file limit allows).
MEMFD_HOG = r'''
import os, sys
fds, chunk = [], b"x" * (16 << 20)
for i in range(int(sys.argv[1]) // 16):
    fds.append(os.memfd_create("hog"))
    os.write(fds[-1], chunk)
    print((i + 1) * 16, flush=True)
print("held all", flush=True)
'''


def skip(what, why):
    print(f"skip - {what}: {why}", flush=True)


def hostile_environment(tmp):
    saved = dict(os.environ)
    planted = tmp / "planted"
    planted.mkdir()
    os.chmod(planted, 0o777)
    os.environ.update({"PATH": ":/usr/bin:relative/bin:/bin:", "LD_LIBRARY_PATH": f"/usr/lib::{planted}:lib:",
                       "LD_PRELOAD": "/x.so", "LD_AUDIT": "/x.so", "GCONV_PATH": "/x", "PYTHONPATH": "/x",
                       "BASH_ENV": "/x", "ENV": "/x", "IFS": "/", "CUDA_VISIBLE_DEVICES": "1", "NCCL_NVLS_ENABLE": "0",
                       "LANG": "C.UTF-8"})
    try:
        trusted, clean = environment.trusted_env({"MML_IMPL": "student"}), environment.clean_env()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    check(trusted["PATH"] == environment.SYSTEM_PATH and trusted["HOME"] == environment.TRUSTED_CWD,
          "a trusted program's PATH is the system's folders only, its HOME /", str(trusted))
    check(trusted.get("LD_LIBRARY_PATH") == "/usr/lib", "its LD_LIBRARY_PATH: absolute folders no other user can "
          "write only (no empty entry, no relative one, no world-writable folder)", str(trusted))
    loaders = {"LD_PRELOAD", "LD_AUDIT", "GCONV_PATH", "PYTHONPATH", "BASH_ENV", "ENV", "IFS"}
    check(not loaders & set(trusted) and not loaders & set(clean), "no loader, shell or interpreter variable "
          "reaches a trusted program or a sandboxed command", f"{sorted(trusted)} {sorted(clean)}")
    check(trusted["CUDA_VISIBLE_DEVICES"] == "1" and trusted["NCCL_NVLS_ENABLE"] == "0" and
          trusted["MML_IMPL"] == "student", "the GPU's selection, NCCL settings and the caller's own are kept")
    check(clean["PATH"] == "/usr/bin:/bin" and clean["LD_LIBRARY_PATH"] == f"/usr/lib:{planted}",
          "a sandboxed command's PATH and LD_LIBRARY_PATH lose their empty and relative entries", str(clean))
    check(environment.system_program("bash") in ("/usr/bin/bash", "/bin/bash", "/usr/local/bin/bash"),
          "bash is found in the system's folders", str(environment.system_program("bash")))


def descriptors(tmp):
    with open(tmp / "grader-secret", "w") as secret:
        os.set_inheritable(secret.fileno(), True)
        log = tmp / "fds.log"
        sandbox.run_limited(["/bin/sh", "-c", "ls /proc/self/fd"], tmp, tmp, log, 20, LIMITS, 20,
                            environment.clean_env())
    fds = sorted(int(x) for x in log.read_text().split() if x.isdigit())
    # 0-2, and the descriptor ls opened to list the folder
    check(len([f for f in fds if f > 2]) <= 1, "a sandboxed command gets no descriptor of the grader's (an "
          "inheritable one too)", str(fds))


def run(tmp, limits_, script, args=(), timeout=60):
    log = tmp / "out.log"
    rc, timed_out, secs = sandbox.run_limited(["/usr/bin/python3", "-c", script] + list(args), tmp, tmp, log,
                                              timeout, limits_, 60, environment.clean_env())
    return rc, log.read_text(errors="replace")


def memory(tmp, lim):
    rc, out = run(tmp, replace(lim, fsize_kb=64 * 1024), MEMFD_HOG, ["1024"])
    held = [int(x) for x in out.split() if x.isdigit()]
    if lim.cgroups.how == "none":
        check("held all" in out, "no cgroup: a memfd hog of 1 GiB is not stopped by the address-space limit "
              "(which is why the run then says memory is NOT limited)", out[-300:])
        skip(f"memory per sandbox ({lim.memory_mb} MiB, shared memory included)", lim.cgroups.why)
        skip("processes per sandbox (pids)", lim.cgroups.why)
        return
    check("held all" not in out and rc == 128 + 9 and max(held or [0]) <= lim.memory_mb,
          f"{lim.cgroups.how}: a memfd hog of 1 GiB is killed at the sandbox's {lim.memory_mb} MiB "
          f"(it held {max(held or [0])} MiB)", f"exit {rc}: {out[-300:]}")
    rc, out = run(tmp, lim, "import os\nn = 0\ntry:\n    while n < 100:\n        if os.fork() == 0:\n"
                  "            import time; time.sleep(30); os._exit(0)\n        n += 1\nexcept OSError as e:\n"
                  "    print('refused after', n, e.errno, flush=True)\n", timeout=5)
    check("refused after" in out, f"{lim.cgroups.how}: processes past the sandbox's pids.max ({lim.nproc}) are "
          "refused", out[-300:])


def open_files(tmp):
    rc, out = run(tmp, LIMITS, "import os\nfds = []\ntry:\n    while len(fds) < 100000:\n"
                  "        fds.append(os.open('/dev/null', os.O_RDONLY))\nexcept OSError as e:\n"
                  "    print('refused at', len(fds) + 3)\n")
    n = int(out.split()[-1]) if "refused at" in out else None
    check(n is not None and n <= 4096, "open files are limited (RLIMIT_NOFILE, 4096 at most)", out[-200:])


def cgroup2_layout(tmp):
    """The cgroup2 path of limits.py on a made-up hierarchy (plain folders; this machine may have none): the
    run's folder made in the delegated one, the controllers enabled, each command's limits written."""
    fake = tmp / "fake-cgroup2"
    fake.mkdir()
    (fake / "cgroup.controllers").write_text("cpu memory pids\n")
    saved, mount = os.environ.get("MMLAB_CGROUP"), limits._unified_mount
    os.environ["MMLAB_CGROUP"] = str(fake)
    limits._unified_mount = lambda: str(fake)
    try:
        parent, why = limits._try_cgroup2()
    finally:
        limits._unified_mount = mount
        os.environ.pop("MMLAB_CGROUP") if saved is None else os.environ.update(MMLAB_CGROUP=saved)
    check(parent and os.path.dirname(parent) == str(fake) and (fake / "cgroup.subtree_control").read_text() ==
          "+memory +pids", "cgroup2: the run's group is made in the delegated folder, memory and pids enabled",
          f"{parent} {why}")
    group = limits.Group(limits.Cgroups("cgroup2", (parent,)), 512, 77)
    g = group.folders[0]
    check(open(os.path.join(g, "memory.max")).read() == str(512 << 20) and
          open(os.path.join(g, "pids.max")).read() == "77" and group.procs == [os.path.join(g, "cgroup.procs")],
          "cgroup2: each command's group gets memory.max and pids.max; it joins through cgroup.procs")
    prefix = limits.join_prefix(group.procs, sandbox.User(65534, 65534, "nobody", True))
    check(prefix[0].startswith("/") and "--reuid=65534" in prefix and "--clear-groups" in prefix,
          "joining: bash and setpriv by absolute path, the user switch after the join", str(prefix))


def private_tmpfs(tmp):
    """bwrap's private /tmp and /dev/shm: 64 MiB each (tmpfs --size), whatever the file-size limit."""
    if not environment.system_program("bwrap"):
        skip("private /tmp and /dev/shm of 64 MiB", "bubblewrap is not installed here (Debian package bubblewrap)")
        return
    try:
        lim = sandbox.probe_sandbox("bwrap", tmp / "probe-bwrap", LIMITS)
    except sandbox.UsageError as e:
        skip("private /tmp and /dev/shm of 64 MiB", str(e))
        return
    if not lim.tmp_size:
        skip("private /tmp and /dev/shm of 64 MiB", "this bubblewrap has no --size (0.5+)")
        return
    for d in ("/tmp", "/dev/shm"):
        rc, out = run(tmp, replace(lim, fsize_kb=1024 * 1024), "import os\nn = 0\ntry:\n    while n < 4096:\n"
                      f"        with open('{d}/f%d' % n, 'wb') as f:\n            f.write(b'x' * (1 << 20))\n"
                      "        n += 1\nexcept OSError as e:\n    print('refused at', n, 'MiB')\n")
        check("refused at" in out and int(out.split()[-2]) <= 64, f"bwrap: {d} is full at 64 MiB", out[-200:])


LIMITS = sandbox.Limits("none", 0, 1024, 40, user=sandbox.grading_user())

with Scratch() as tmp:
    os.chmod(tmp, 0o777)
    hostile_environment(tmp)
    descriptors(tmp)
    open_files(tmp)
    cgroup2_layout(tmp)
    private_tmpfs(tmp)
    cgroups = limits.probe()
    try:
        probed = sandbox.probe_sandbox("none", tmp / "probe", replace(LIMITS, cgroups=cgroups, memory_mb=256))
        print(f"note - {sandbox.describe(probed)}", flush=True)
        memory(tmp, probed)
    finally:
        limits.release(cgroups)
    check(not any(os.path.exists(p) for p in cgroups.parents), "the run's cgroup folders are removed")
checks.finish("limits")
