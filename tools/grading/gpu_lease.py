"""The GPU as a graded resource: one student's GPU test at a time on each GPU.

A GPU is shared by every sandbox on the machine, and nothing in the sandbox
stops one process from taking all of its memory or all of its cycles. So the
grader leases the GPUs: every GPU test case and every performance run of a
GPU lab holds one GPU for its whole length, and no other student's GPU work
runs on that GPU meanwhile. Builds and CPU test cases still run -j at once;
only the GPU work waits, and the wait is not part of the student's time limit
(the test's clock starts once the lease is held).

A lease gives the test its GPU through CUDA_VISIBLE_DEVICES (the checker
passes it on to the student's runner). When the lease ends, the GPU must be
free of the test's processes: the sandbox's PID namespace already ends them
with the test, and the lease waits (at most RELEASE_WAIT_SECONDS) until the
GPU lists no compute process of the grading user before the next student
gets it; one that stays is killed, and said in the instructor's notes.

Across grader processes on one machine (two instructors, two labs) each GPU
is also a lock file (flock), so their GPU tests do not overlap either.
Under Slurm each job has its own GPU (--gres=gpu:1): the pool holds just it.

The pool's devices come from CUDA_VISIBLE_DEVICES where it is set (Slurm
sets it), else from nvidia-smi; MML_GRADE_GPUS="a,b" names them for the
tests of this module on machines without a GPU (a stand-in resource)."""

import contextlib
import fcntl
import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path

# How long a finished test's GPU processes may take to go before they are killed.
RELEASE_WAIT_SECONDS = 10.0


def visible_gpus(environ=None):
    """The GPUs this grader may lease, as names for CUDA_VISIBLE_DEVICES (indices or UUIDs): the stand-in
    MML_GRADE_GPUS, else CUDA_VISIBLE_DEVICES (empty: none), else the ones nvidia-smi lists; [] when none."""
    environ = os.environ if environ is None else environ
    for var in ("MML_GRADE_GPUS", "CUDA_VISIBLE_DEVICES"):
        if var in environ:
            return [d.strip() for d in environ[var].split(",") if d.strip()]
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else []


def gpu_processes(device):
    """[(pid, used MiB)] of the compute processes on `device` (an index or UUID) as nvidia-smi lists them;
    None when nvidia-smi cannot tell (no driver: the stand-in GPUs of the tests)."""
    try:
        out = subprocess.run(["nvidia-smi", "--id=" + device, "--query-compute-apps=pid,used_memory",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    rows = []
    for line in out.stdout.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 2 and parts[0].isdigit():
            rows.append((int(parts[0]), int(parts[1]) if parts[1].isdigit() else 0))
    return rows


def _owner(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


class GpuPool:
    """The GPUs of one grading run. lease() blocks until a GPU is free (in this process and in any other
    grader on the machine) and yields the environment a GPU test runs with."""

    def __init__(self, devices, user_uid=None, lock_dir=None):
        self.devices = list(devices)
        self.user_uid = user_uid  # the grading user's uid: its processes left on a GPU are the test's
        self.lock_dir = Path(lock_dir or tempfile.gettempdir())
        self._free = list(self.devices)
        self._cond = threading.Condition()
        self.notes = []  # for the instructor's summary (processes that outlived their test)
        self.waited = 0.0  # seconds tests spent waiting for a GPU, in all

    def __bool__(self):
        return bool(self.devices)

    @contextlib.contextmanager
    def lease(self, who=""):
        """Holds one GPU for the block; yields {"CUDA_VISIBLE_DEVICES": device} ({} with no GPUs: nothing to
        share, and the GPU tests say why they do not run)."""
        if not self.devices:
            yield {}
            return
        start = time.monotonic()
        with self._cond:
            while not self._free:
                self._cond.wait()
            device = self._free.pop(0)
        try:
            with self._machine_lock(device):
                with self._cond:
                    self.waited += time.monotonic() - start
                try:
                    yield {"CUDA_VISIBLE_DEVICES": device}
                finally:
                    self._clear(device, who)
        finally:
            with self._cond:
                self._free.append(device)
                self._cond.notify()

    @contextlib.contextmanager
    def _machine_lock(self, device):
        """The flock that keeps another grader's GPU tests off `device` (one lock file per GPU)."""
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in device)
        path = self.lock_dir / f"mmlab-grade-gpu-{safe}.lock"
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing drops the lock

    def _clear(self, device, who):
        """Waits until `device` lists no compute process of the grading user; kills those that stay."""
        if self.user_uid is None:
            return
        deadline = time.monotonic() + RELEASE_WAIT_SECONDS
        while True:
            procs = gpu_processes(device)
            if not procs:
                return
            left = [pid for pid, _ in procs if _owner(pid) == self.user_uid]
            if not left:
                return
            if time.monotonic() > deadline:
                for pid in left:
                    try:
                        os.kill(pid, 9)
                    except OSError:
                        pass
                with self._cond:
                    self.notes.append(f"{who}: {len(left)} process(es) kept GPU {device} after the test ended; "
                                      "killed before the next student's GPU test")
                return
            time.sleep(0.2)


def others_on_gpu(gpu_env):
    """Under a lease (gpu_env from lease()), before or after a run: the compute processes on the leased GPU,
    none of them this grader's (no test of ours runs there then): [(pid, MiB)], [] when the GPU is free or
    nvidia-smi cannot tell. A performance run that saw any is INCONCLUSIVE: its timings shared the GPU."""
    device = gpu_env.get("CUDA_VISIBLE_DEVICES")
    return (gpu_processes(device) or []) if device else []
