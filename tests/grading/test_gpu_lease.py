#!/usr/bin/env python3
"""Unit tests of tools/grading/gpu_lease.py and of its use by student.py: the
GPUs as a graded resource, on stand-in GPUs (names only: no GPU is needed, so
CI's machine catches a regression). One student's GPU work at a time on each
GPU, in this grader and across grader processes; the wait is not part of a
test's time; several GPUs used at once, never one by two students; students
graded -j 3 on one stand-in GPU never overlap on it. The same rules on a real
GPU are checked by tests/grading/gpu_class.py on the GPU machine. A few
seconds."""
import sys
sys.dont_write_bytecode = True
import argparse
import json
import os
import subprocess
import threading
import time
from pathlib import Path

import checks
from checks import Scratch, check
from fake_tree import LAB, make_tree
from grading import gpu_lease, student
from grading.sandbox import Limits


def overlaps(intervals):
    """The pairs of (device, start, end) on one device that overlap in time."""
    bad = []
    for i, (d1, s1, e1) in enumerate(intervals):
        for d2, s2, e2 in intervals[i + 1:]:
            if d1 == d2 and s1 < e2 and s2 < e1:
                bad.append(((d1, s1, e1), (d2, s2, e2)))
    return bad


def hold_in_threads(pool, n, seconds):
    """n threads each lease a GPU and hold it `seconds`: [(device, start, end)], and the most held at once."""
    intervals, lock, held, most = [], threading.Lock(), [0], [0]

    def one():
        with pool.lease("t") as env:
            start = time.monotonic()
            with lock:
                held[0] += 1
                most[0] = max(most[0], held[0])
            time.sleep(seconds)
            with lock:
                held[0] -= 1
            intervals.append((env["CUDA_VISIBLE_DEVICES"], start, time.monotonic()))

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return intervals, most[0]


def devices_found():
    check(gpu_lease.visible_gpus({"MML_GRADE_GPUS": "stand-in-0,stand-in-1"}) == ["stand-in-0", "stand-in-1"],
          "the stand-in GPUs of the tests are named by MML_GRADE_GPUS")
    check(gpu_lease.visible_gpus({"CUDA_VISIBLE_DEVICES": "2, 3"}) == ["2", "3"],
          "CUDA_VISIBLE_DEVICES (as Slurm sets it) names the GPUs the grader may lease")
    check(gpu_lease.visible_gpus({"CUDA_VISIBLE_DEVICES": ""}) == [],
          "CUDA_VISIBLE_DEVICES empty: no GPU to lease")


def one_gpu(tmp):
    pool = gpu_lease.GpuPool(["stand-in-0"], lock_dir=tmp)
    intervals, most = hold_in_threads(pool, 4, 0.15)
    check(len(intervals) == 4 and most == 1 and not overlaps(intervals),
          "one GPU, 4 threads: each holds it alone, one after the other", f"{most} at once; {intervals}")
    check(all(d == "stand-in-0" for d, _, _ in intervals), "the lease names the GPU in CUDA_VISIBLE_DEVICES")
    check(pool.waited >= 0.15 * (1 + 2 + 3) * 0.9, "the waits are counted (the instructor's summary shows them)",
          f"{pool.waited:.2f} s")


def two_gpus(tmp):
    pool = gpu_lease.GpuPool(["stand-in-a", "stand-in-b"], lock_dir=tmp)
    intervals, most = hold_in_threads(pool, 6, 0.15)
    check(most == 2 and not overlaps(intervals),
          "two GPUs, 6 threads: both used at once, never one by two", f"{most} at once; {intervals}")
    check({d for d, _, _ in intervals} == {"stand-in-a", "stand-in-b"}, "both GPUs are leased")


def no_gpu():
    pool = gpu_lease.GpuPool([])
    with pool.lease() as env:
        check(env == {} and not pool, "no GPU: the lease is empty and costs nothing (GPU tests say why they skip)")


def other_grader(tmp):
    """Another grader process holds the GPU's lock file: this one waits for it."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(tmp / 'mmlab-grade-gpu-stand-in-x.lock')!r}, os.O_RDWR | os.O_CREAT, 0o666)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(0.6)\n")],
        stdout=subprocess.PIPE, text=True)
    check(holder.stdout.readline().strip() == "held", "(the other grader holds the GPU)")
    pool = gpu_lease.GpuPool(["stand-in-x"], lock_dir=tmp)
    start = time.monotonic()
    with pool.lease():
        waited = time.monotonic() - start
    holder.wait()
    check(waited >= 0.4, "a GPU another grader process holds is waited for (its lock file)", f"{waited:.2f} s")


def class_on_one_gpu(tmp):
    """Seven students graded at once on one stand-in GPU (each GPU test 0.3 s, its time limit 1.5 s): their
    GPU tests never overlap, and each passes - the last waits about 1.8 s for the GPU, which would be past
    its limit if the wait counted."""
    base = tmp / "base"
    make_tree(base)
    (tmp / "work").mkdir()
    tests = [("labX", "kernel works"), ("gpu-labX", "on the GPU")]
    options = argparse.Namespace(build_timeout=60, student_budget=100, perf=False, perf_points=1.0, perf_threads=1,
                                 perf_size=None, keep=False)
    pool = gpu_lease.GpuPool(["stand-in-0"], lock_dir=tmp)
    setup = student.ClassSetup(options, LAB, tmp / "work", base, ["kernel.cpp", "kernel.h"], tests,
                               {"kernel works": 1.0, "on the GPU": 1.0}, set(), None,
                               Limits("none", 0, 64 * 1024, 1000), 1, {"kernel works": 10.0, "on the GPU": 1.5},
                               gpus=pool, lab_uses_gpu=True)
    rows = {}

    def one(i, name):
        folder = tmp / "subs" / name
        folder.mkdir(parents=True)
        (folder / "kernel.cpp").write_text("// WORKS\n")
        rows[name] = student.grade_student(setup, i, folder, tmp / "out")

    names = [f"student{i}" for i in range(7)]
    threads = [threading.Thread(target=one, args=(i, n)) for i, n in enumerate(names)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = (tmp / "work" / "gpu-intervals.txt").read_text().split()
    marks = list(zip(lines[0::3], lines[1::3], map(float, lines[2::3])))
    starts = sorted(t for _, what, t in marks if what == "start")
    ends = sorted(t for _, what, t in marks if what == "end")
    check(len(starts) == 7 and all(e <= s2 for e, s2 in zip(ends, starts[1:])),
          "-j 7 on one GPU: the students' GPU tests ran one after the other", str(marks))
    check(all(r.score == 2.0 for r in rows.values()),
          "each student's GPU test passed: the wait for the GPU is not part of a test's time limit",
          str({n: (r.score, r.statuses) for n, r in rows.items()}))
    check(pool.waited > 1.5, "the students waited for the GPU in all (summary.txt says how long)",
          f"{pool.waited:.2f} s")


def main():
    with Scratch() as tmp:
        devices_found()
        no_gpu()
        one_gpu(tmp)
        two_gpus(tmp)
        other_grader(tmp)
        class_on_one_gpu(tmp / "class")
    checks.finish("gpu lease")


if __name__ == "__main__":
    main()
