#!/usr/bin/env python3
"""A lab 6 class with GPU-hostile submissions beside honest ones, graded on
one GPU, on the GPU machine (handouts/grading.md, "Grading GPU labs"):

  python3 tests/grading/gpu_class.py [--size N] [-j 4] [--perf] [--out DIR] [-- grader flags]

First the honest submission alone (its score is the one every honest student
must get in the class), then a class of --size (default 12) made of this
pattern, repeated:

  honest     the reference as handed in (each with a line of its own)
  memhog     takes all but 256 MiB of the GPU's free memory for 3 s in every
             call of its coalesced kernel, then computes right
  spinner    a kernel that spins the GPU for 2 s in every call, then right
  stream     right, but launched on a non-blocking stream of its own (the
             harness must wait for it: full marks)
  reset      cudaDeviceReset() inside its uncoalesced kernel's launch
  printf     every thread of its coalesced kernel printf()s (a flood)
  detached   right, and leaves a process behind (setsid sleep) each call
  honest     again

It grades the class with tools/grade.py (-j, --perf, the flags given), and
prints: the wall time, submissions a minute, each student's score and
statuses, every honest student whose score differs from the honest one alone
(must be none), the GPU's peak memory in use (nvidia-smi, sampled), and the
processes of the grading user and the GPU's compute apps left after the run
(must be none). Exit status 1 when an honest student's score differs or
something is left. Minutes: not part of make test-all (the GPU machine's
check, like tools/lab8-gpu.sh).
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True
import checks  # noqa: E402
from checks import REPO  # noqa: E402

PATTERN = ["honest", "memhog", "spinner", "stream", "reset", "printf", "detached", "honest"]
FILES = ["naive_coalesced.cu", "naive_uncoalesced.cu", "block_reduce.cu", "lab6.h"]
LAUNCH = "naive_coalesced_kernel<<<grid, block>>>("
INCLUDES = "#include <cstdio>\n#include <unistd.h>\n#include <cstdlib>\n#include <cuda_runtime.h>\n"


def handed_in():
    return {n: (REPO / "solutions" / "lab6" / n).read_text().replace("reference::lab6", "student::lab6")
            .replace("solutions/lab6", "labs/lab6") for n in FILES}


def edit(kind, files, i):
    """The files of a student of `kind` (the i-th: a comment of its own so that every build compiles)."""
    f = dict(files)
    f["naive_coalesced.cu"] = f"// student {i}, {kind}\n" + f["naive_coalesced.cu"]
    c = f["naive_coalesced.cu"]
    if kind == "memhog":
        c = INCLUDES + c.replace("    using namespace mml::gpu;\n", """    using namespace mml::gpu;
    {   // hold all but 256 MiB of the GPU's free memory for 3 s
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        void* hog = nullptr;
        if (free_b > (size_t(256) << 20) && cudaMalloc(&hog, free_b - (size_t(256) << 20)) == cudaSuccess) {
            usleep(3000000);
            cudaFree(hog);
        }
    }
""", 1)
    elif kind == "spinner":
        c = INCLUDES + c.replace("}  // namespace\n", """__global__ void spin_kernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {}
}
}  // namespace
""", 1).replace("    using namespace mml::gpu;\n", """    using namespace mml::gpu;
    spin_kernel<<<132, 128>>>(2000000000LL);  // about 1-2 s at the GPU's clock, on every SM
""", 1)
    elif kind == "stream":
        c = INCLUDES + c.replace("    using namespace mml::gpu;\n", """    using namespace mml::gpu;
    static cudaStream_t own = [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); return s; }();
""", 1).replace(LAUNCH, "naive_coalesced_kernel<<<grid, block, 0, own>>>(")
    elif kind == "printf":
        c = INCLUDES + c.replace("    if (row >= M || col >= N) return;",
                                 "    printf(\"thread %d of block %d here\\n\", threadIdx.x, blockIdx.x);\n"
                                 "    if (row >= M || col >= N) return;", 1)
    elif kind == "detached":
        c = INCLUDES + c.replace("    using namespace mml::gpu;\n", """    using namespace mml::gpu;
    if (std::system("setsid sleep 600 > /dev/null 2>&1 < /dev/null &") != 0) {}
""", 1)
    elif kind == "reset":
        u = INCLUDES + f["naive_uncoalesced.cu"]
        u = u.replace("    using namespace mml::gpu;\n", "    using namespace mml::gpu;\n    cudaDeviceReset();\n", 1)
        f["naive_uncoalesced.cu"] = u
    f["naive_coalesced.cu"] = c
    for name, text in f.items():
        if kind != "honest" and name == "naive_coalesced.cu" and kind != "reset":
            assert text != files[name], (kind, "the edit did not apply")
    return f


def write_class(root, size):
    files = handed_in()
    kinds = [PATTERN[i % len(PATTERN)] for i in range(size)]
    for i, kind in enumerate(kinds):
        d = root / f"s{i:03d}-{kind}" / "labs" / "lab6"
        d.mkdir(parents=True)
        for name, text in edit(kind, files, i).items():
            (d / name).write_text(text)
    return kinds


def gpu_memory_used():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20).stdout
        return max(int(x) for x in out.split()) if out.split() else 0
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def compute_apps():
    try:
        return subprocess.run(["nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "(nvidia-smi failed)"


def user_processes(user):
    r = subprocess.run(["ps", "-u", user, "-o", "pid,stat,etime,args", "--no-headers"], capture_output=True, text=True)
    return r.stdout.strip()


def grade(sub, out, work, jobs, flags):
    cmd = checks.grade_command() + [str(sub), "--lab", "6", "--out", str(out), "--work", str(work), "-j", str(jobs)] + flags
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    return r.returncode, r.stdout, time.monotonic() - t0


def rows(out):
    with open(out / "grades.csv") as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=12)
    ap.add_argument("-j", "--jobs", type=int, default=4)
    ap.add_argument("--perf", action="store_true")
    ap.add_argument("--out", default=None, help="where the logs go (default: a temporary folder)")
    ap.add_argument("flags", nargs="*", help="more grader flags (after --)")
    a = ap.parse_args()
    flags = (["--perf"] if a.perf else []) + a.flags
    logs = Path(a.out or tempfile.mkdtemp(prefix="mmlab-gpu-class-logs-"))
    logs.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-gpu-class-"))
    os.chmod(tmp, 0o711)
    user = "nobody" if os.geteuid() == 0 else os.environ.get("USER", "")
    failed = []
    try:
        alone = tmp / "alone"
        write_class(alone, 1)
        rc, text, secs = grade(alone, tmp / "out-alone", tmp, 1, flags)
        (logs / "alone.txt").write_text(text)
        print(f"== the honest submission alone: exit {rc}, {secs:.0f} s", flush=True)
        if rc != 0:
            print(text[-3000:])
            return 1
        honest = next(iter(rows(tmp / "out-alone").values()))
        print(f"   score {honest['score']} / {honest['max']}", flush=True)

        sub = tmp / "class"
        kinds = write_class(sub, a.size)
        peak, stop = [0], threading.Event()

        def sample():
            while not stop.wait(1.0):
                m = gpu_memory_used()
                if m is not None:
                    peak[0] = max(peak[0], m)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        rc, text, secs = grade(sub, tmp / "out-class", tmp, a.jobs, flags)
        stop.set()
        (logs / "class.txt").write_text(text)
        print(f"== the class of {a.size} at -j {a.jobs}{' --perf' if a.perf else ''}: exit {rc}, {secs:.0f} s "
              f"({60 * a.size / secs:.1f} submissions a minute); GPU memory in use at most {peak[0]} MiB", flush=True)
        if rc != 0:
            print(text[-3000:])
            return 1
        got = rows(tmp / "out-class")
        for name in sorted(got):
            r = got[name]
            kind = name.split("-", 1)[1]
            same = r["score"] == honest["score"]
            cells = {k: v for k, v in r.items() if k not in ("student", "score", "max", "build")}
            print(f"   {name:18} {r['score']:>5} / {r['max']}  build {r['build']}"
                  + ("" if kind != "honest" else ("  = alone" if same else "  DIFFERS FROM ALONE")), flush=True)
            if kind == "honest" and not same:
                failed.append(f"{name}: {r['score']} (alone {honest['score']}): {cells}")
            if kind == "stream" and r["score"] != honest["score"]:
                print(f"      stream's cells: {cells}")
        shutil.copy(tmp / "out-class" / "summary.txt", logs / "summary.txt")
        for name in sorted(got):
            fb = tmp / "out-class" / name / "feedback.txt"
            if fb.exists():
                shutil.copy(fb, logs / f"feedback-{name}.txt")
        time.sleep(2)
        left, apps = user_processes(user) if user else "", compute_apps()
        print(f"== left after the run: processes of {user or '?'}: {left or 'none'}; GPU compute apps: {apps or 'none'}")
        if left:
            failed.append(f"processes of {user} left: {left}")
        if apps:
            failed.append(f"GPU compute apps left: {apps}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failed:
        print("FAIL - " + f)
    print("gpu class: " + ("all honest students scored as alone, nothing left" if not failed else f"{len(failed)} FAILED"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
