"""test_hostile.py's attacks with processes and resources: what outlives its
test, what takes every process, all memory, all the time or the disk, what
crashes or ends the program in the middle of a test (expected score):

  daemon        a detached, renamed process that outlives its test  6/6, none left
  forkstorm     processes until the limit, each then sleeping (ijk); memory
                until the limit (ikj: FAILED, or TIMEOUT on a busy machine); an endless loop (jik); endless output
                (jki: read and dropped, so it runs to its time limit); an
                endless file (kij)                                  1/6, none left
  crash         SIGSEGV, abort, stack overflow, SIGFPE, SIGILL      1/6
  exits         _exit(0) and exit(0) in the middle of a test        4/6
  static_exit   _exit(0) before any test runs                       0/6

check_graded() then checks the endless output's feedback, and check_left()
that no process of a student survived the grading.
"""
import os
from pathlib import Path

from checks import check
from hostile_probes import ORDERS, Case, outputs_name, with_probes, write


def add_cases(sub, ref):
    """Writes these submissions under sub (ref: the reference's files); returns their Cases."""
    cases = []
    write(sub / "daemon" / "labs" / "lab1", with_probes(ref, {
        "ijk": 'if (fork() == 0) { setsid(); signal(SIGHUP, SIG_IGN); if (fork() == 0) '
               '{ execl("/bin/sleep", "mmlab-hostile-daemon", "600", (char*)nullptr); } _exit(0); }',
    }))
    cases.append(Case("daemon", 6, review=["starts processes", "ends the program itself"]))

    write(sub / "forkstorm" / "labs" / "lab1", with_probes(ref, {
        "ijk": 'for (;;) { if (fork() < 0) { if (errno == EAGAIN) for (;;) pause(); } }',
        "ikj": '{ std::vector<char*> held; for (;;) { char* p = static_cast<char*>(std::malloc(64 << 20)); '
               'if (!p) throw std::bad_alloc(); std::memset(p, 1, 64 << 20); held.push_back(p); } }',
        "jik": 'for (volatile int spin = 0;; spin = spin + 1) {}',
        "jki": 'for (;;) std::fputs("spam spam spam spam spam spam spam spam spam spam spam spam\\n", stdout);',
        "kij": '{ std::FILE* f = std::fopen("huge.bin", "wb"); static char block[1 << 20]; '
               'for (int i = 0; i < 10240 && f; ++i) std::fwrite(block, 1, sizeof block, f); }',
    }))
    cases.append(Case("forkstorm", 1, review=["starts processes", "opens or removes files"],
                      statuses={"ijk": "TIMEOUT", "ikj": ("FAILED", "TIMEOUT"), "jik": "TIMEOUT", "jki": "TIMEOUT", "kij": "CRASHED",
                                "kji": "PASSED"}))

    write(sub / "crash" / "labs" / "lab1", with_probes(ref, {
        "ijk": '{ volatile float* nowhere = nullptr; *nowhere = 1.0f; }',
        "ikj": 'std::abort();',
        "jik": '{ struct R { static int deep(volatile int n) { volatile char pad[4096]; pad[0] = char(n); '
               'return deep(n + 1) + pad[0]; } }; C[0] = float(R::deep(0)); }',
        "jki": '{ volatile int seven = 7, zero = 0; C[0] = float(seven / zero); }',
        "kij": '__builtin_trap();',
    }))
    cases.append(Case("crash", 1, review=["ends the program itself"],
                      statuses={o: "CRASHED" for o in ORDERS[:5]}))

    write(sub / "exits" / "labs" / "lab1", with_probes(ref, {"ijk": "_exit(0);", "ikj": "std::exit(0);"}))
    cases.append(Case("exits", 4, review=["ends the program itself"],
                      statuses={"ijk": "CRASHED", "ikj": "CRASHED"}))

    write(sub / "static_exit" / "labs" / "lab1", with_probes(
        ref, {}, extra_top="namespace { struct Leave { Leave() { _exit(0); } } leave_now; }\n"))
    cases.append(Case("static_exit", 0, review=["ends the program itself"]))
    return cases


def hostile_processes(work):
    """Processes left of the grading: the renamed daemon, or any whose folder is in the run's build trees."""
    left = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if b"mmlab-hostile-daemon" in (d / "cmdline").read_bytes() or \
                        os.readlink(d / "cwd").startswith(str(work) + "/"):
                    left.append(d.name)
            except OSError:
                pass
    return left


def check_graded(out):
    """After the run: the endless output is in the feedback, cut short."""
    fb = (out / outputs_name("forkstorm") / "feedback.txt").read_text(encoding="utf-8")
    check(len(fb) < 20000 and "| spam spam" in fb, "endless output: its start is in the feedback, cut short",
          f"{len(fb)} characters")


def check_left(work):
    """No process of a student is left (work: the run's build trees)."""
    check(not hostile_processes(work), "no process of a student survives the grading (daemon, fork storm)",
          str(hostile_processes(work)))
