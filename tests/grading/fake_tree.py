"""A stand-in for a built tree of a made-up lab (LAB, number 99), for the
grader's unit tests: its build/bin/mmlab-tests is a short script that writes
doctest's XML report as the real test program would for the test case named
(passing, failing, crashing, hanging, a GPU test skipped here, or passing
when the student's kernel.cpp says WORKS); its build/bin/mmlab gives a
performance verdict (INCONCLUSIVE, the machine busy, for a kernel.cpp that
says BUSY; in the first run only for BUSY ONCE); its Makefile "builds" in no time and fails on a
kernel.cpp that says BROKEN."""
import os
import time

import checks  # noqa: F401 (the import path of tools/grading)
from grading.catalog import Lab

FAKE_TESTS = r'''#!/usr/bin/env python3
import os, signal, sys, time
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
case, out = args["--test-case"].replace("\\,", ","), args["--out"]
head = '<?xml version="1.0"?>\n<doctest version="2.4.9">\n'
def case_xml(name, body, success):
    return (f'<TestCase name="{name}" filename="t.cpp" line="1">{body}'
            f'<OverallResultsAsserts successes="1" failures="{0 if success else 1}" test_case_success="{str(success).lower()}"/>'
            '</TestCase>\n')
def report(suite, inner, whole=True):
    with open(out, "w") as f:
        f.write(head + f'<TestSuite name="{suite}">\n' + inner + ("</TestSuite>\n</doctest>\n" if whole else ""))
failed = '<Expression success="false" type="CHECK"><Info>C[0][0] was never written</Info></Expression>'
if case.startswith("mml-grade-lists-all-cases"):
    print("[tests] GPU tests skipped: no CUDA device here")
    with open(out, "w") as f:
        f.write(head + '<TestSuite name="labX">\n<TestCase name="one" skipped="true"/>\n<TestCase name="two, with a comma" skipped="true"/>\n'
                '</TestSuite>\n<TestSuite name="gpu-labX">\n<TestCase name="on the GPU" skipped="true"/>\n</TestSuite>\n'
                '<TestSuite name="other">\n<TestCase name="not this lab" skipped="true"/>\n</TestSuite>\n</doctest>\n')
elif case == "passes":
    report("labX", case_xml(case, "", True))
elif case == "two, with a comma":
    report("labX", case_xml(case, "", True))
elif case == "passes on the reference only":
    ok = os.environ.get("MML_IMPL") == "reference"
    report("labX", case_xml(case, "" if ok else failed, ok))
    sys.exit(0 if ok else 1)
elif case == "fails":
    report("labX", case_xml(case, failed, False))
    sys.exit(1)
elif case == "passes, then exits 3":
    report("labX", case_xml(case, "", True))
    sys.exit(3)
elif case == "segfaults":
    report("labX", "", whole=False)
    print("about to crash", flush=True)
    os.kill(os.getpid(), signal.SIGSEGV)
elif case == "crash doctest caught":
    report("labX", case_xml(case, '<Exception crash="true">SIGFPE - Floating point error signal</Exception>', False))
    sys.exit(1)
elif case == "hangs in the test":
    with open(out, "w") as f:
        f.write(head + '<TestSuite name="labX">\n<TestCase name="' + case + '" filename="t.cpp" line="1">' + failed)
        f.flush()
        time.sleep(60)
elif case == "fails, then hangs at exit":
    report("labX", case_xml(case, failed, False), whole=False)
    time.sleep(60)
elif case == "on the GPU" and os.environ.get("CUDA_VISIBLE_DEVICES", "").startswith("stand-in-"):
    # A stand-in GPU leased by the grader (test_gpu_lease.py): the test's interval on it, in the run's work folder.
    gpu = os.environ["CUDA_VISIBLE_DEVICES"]
    with open("../gpu-intervals.txt", "a") as f:
        f.write(f"{gpu} start {time.monotonic():.6f}\n")
    time.sleep(0.3)
    with open("../gpu-intervals.txt", "a") as f:
        f.write(f"{gpu} end {time.monotonic():.6f}\n")
    report("gpu-labX", case_xml(case, "", True))
elif case == "on the GPU":
    report("gpu-labX", '<TestCase name="on the GPU" skipped="true"/>\n')
elif case == "kernel works":
    ok = "WORKS" in open("labs/lab99/kernel.cpp").read()
    report("labX", case_xml(case, "" if ok else failed, ok))
    sys.exit(0 if ok else 1)
elif case == "vanishes":
    sys.exit(0)
'''

FAKE_MMLAB = r'''#!/usr/bin/env python3
import json, os, sys
out = sys.argv[sys.argv.index("--json") + 1]
kernel = open("labs/lab99/kernel.cpp").read() if os.path.exists("labs/lab99/kernel.cpp") else ""
# A kernel that says BUSY: the checker finds the machine busy in every run; BUSY ONCE: in the first only.
busy = "BUSY" in kernel and ("BUSY ONCE" not in kernel or os.path.basename(out) == "perf.json")
if "--size" not in sys.argv:
    target = {"met": not busy, "inconclusive": busy, "goal": "ijk within 1.5x",
              "explanation": "1.4x; the reference missed too" if busy else "1.1x"}
    json.dump({"target": target}, open(out, "w"))
'''

LAB = Lab(99, "cpu", ("labX", "gpu-labX"), (), "a made-up lab")


# A Makefile that "builds" the two programs: up to date unless the lab's
# kernel.cpp is newer; a kernel.cpp that says BROKEN does not compile.
FAKE_MAKEFILE = """build/bin/mmlab-tests build/bin/mmlab: labs/lab99/kernel.cpp
\t@echo "  CXX   labs/lab99/kernel.cpp"
\t@if grep -q BROKEN labs/lab99/kernel.cpp; then echo "labs/lab99/kernel.cpp:2:1: error: 'BROKEN' was not declared"; exit 1; fi
\t@touch $@
"""

STARTER_KERNEL = "// TODO: write the kernel\n"
STARTER_HEADER = "#pragma once\n"


def make_tree(tree):
    """A built starter tree of LAB: its lab folder, a Makefile, the two programs, newer than the sources."""
    (tree / "build" / "bin").mkdir(parents=True)
    (tree / ".tmp").mkdir()
    (tree / LAB.folder).mkdir(parents=True)
    (tree / LAB.folder / "kernel.cpp").write_text(STARTER_KERNEL)
    (tree / LAB.folder / "kernel.h").write_text(STARTER_HEADER)
    (tree / "Makefile").write_text(FAKE_MAKEFILE)
    old = time.time() - 100
    for f in (tree / LAB.folder / "kernel.cpp", tree / LAB.folder / "kernel.h"):
        os.utime(f, (old, old))
    for name, text in (("mmlab-tests", FAKE_TESTS), ("mmlab", FAKE_MMLAB)):
        (tree / "build" / "bin" / name).write_text(text)
        (tree / "build" / "bin" / name).chmod(0o755)
    return tree
