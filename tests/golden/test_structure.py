#!/usr/bin/env python3
"""The product's outputs keep their structure across a redesign.

Runs, on this build, what a user sees and compares its structure (not its
timings) with tests/golden/structure.txt, written before the architecture move
of 2026-11-24 (issue 13) and kept since:

  mmlab list                          every lab and stage, one line each (names, CPU/GPU, peer or not)
  mmlab demo --size 64                the rows of the progression: stage, version, shape, threads, ok/WRONG/skipped
  mmlab lab 1 --solution --size 64    the rows and the target verdict (NOT MET below 512^3, by design)
  tools/grade.py, lab 1               two submissions (the reference, the untouched starter): score per test case

Only what does not depend on the machine is compared: GPU stages are left out
of the demo here when no GPU is present, so the demo's GPU rows are dropped
from both sides, and so are the rows of optional peers (BLIS).
Deliberate changes since: lab5.blis_lib (BLIS, a second peer) in the list; lab8.autotile (lab 8's stage 5 then, stage 6 since lab8.async_copy came before it; issue 19) in the list; lab8.async_copy (stage 5, the cp.async pipeline; issue 19) in the list; lab8.streamk (stage 8, stream-K; issue 27) in the list; lab11.wgmma_fp8 and its peer lab11.cublaslt_fp8 (lab 11's FP8 rung; issue 27) in the list. Labs 8 and 9 have one name per stage (issue 25): lab8.tile8x8, lab8.float4, lab8.no_conflicts and lab9.onepass are lab8.register_tile, lab8.vector_loads, lab8.conflict_free and lab9.one_pass, the names of their files and functions. lab7.volkov_seed is lab7.volkov_stream_a (what it does, not which source it came from; issue 38). `--update` rewrites the expected file (after a deliberate
change of behaviour; say why in the commit).
Run from the repository root; prints one line per check, exits 1 on a difference.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
EXPECTED = REPO / "tests" / "golden" / "structure.txt"
MMLAB = os.environ.get("MMLAB", str(REPO / "build" / "bin" / "mmlab"))


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, **kw)


# Peer rows of optional packages (BLIS): timed where installed, skipped where not.
OPTIONAL_ROWS = {"lab5.blis_lib"}


def rows_of(json_path):
    d = json.loads(Path(json_path).read_text())
    out = []
    for r in d["summary"]:
        if r["device"] == "gpu" or r["stage"] in OPTIONAL_ROWS:
            continue  # present only where a GPU (or the optional library) is
        state = "skipped" if r["skipped"] else ("ok" if r["passed"] else "WRONG")
        out.append(f'{r["stage"]} {r["version"]} {r["M"]}x{r["N"]}x{r["K"]} t{r["threads"]} {state}')
    if d.get("target") is not None:
        out.append(f'target met: {d["target"]["met"]}')
    return out


def list_structure():
    p = run([MMLAB, "list"])
    lines = []
    for line in p.stdout.splitlines():
        if line.startswith("lab "):
            lines.append(line.split(":")[0])            # "lab 6 (GPU)"
        elif line.startswith("  lab"):
            name = line.split()[0]
            lines.append("  " + name + (" peer" if "[peer" in line else ""))
    return lines


# grades.csv columns that depend on the machine or the clock.
TIMING_COLUMNS = {"seconds", "time_s", "gflops", "percent_of_reference", "review", "perf"}


def grader_structure(scratch):
    sub = scratch / "subs"
    (sub / "starter" / "labs" / "lab1").mkdir(parents=True)
    for f in (REPO / "labs" / "lab1").iterdir():
        shutil.copy(f, sub / "starter" / "labs" / "lab1" / f.name)
    (sub / "reference").mkdir()
    for f in (REPO / "solutions" / "lab1").iterdir():
        text = f.read_text().replace("reference::lab1", "student::lab1").replace("solutions/lab1", "labs/lab1")
        (sub / "reference" / f.name).write_text(text)
    out = scratch / "grades"
    p = run([sys.executable, str(REPO / "tools" / "grade.py"), str(sub), "--lab", "1", "--out", str(out), "-j", "2"])
    lines = [f"grade exit {p.returncode}"]
    with open(out / "grades.csv", newline="") as f:
        for row in csv.DictReader(f):
            keep = {k: v for k, v in row.items() if k not in TIMING_COLUMNS}
            lines.append(" ".join(f"{k}={keep[k]}" for k in sorted(keep)))
    return lines


def main():
    update = "--update" in sys.argv
    scratch = Path(tempfile.mkdtemp(prefix="mmlab-golden-"))
    try:
        got = ["== mmlab list"] + list_structure()
        run([MMLAB, "demo", "--size", "64", "--quiet", "--json", str(scratch / "demo.json")])
        got += ["== mmlab demo --size 64"] + rows_of(scratch / "demo.json")
        run([MMLAB, "lab", "1", "--solution", "--size", "64", "--quiet", "--json", str(scratch / "lab1.json")])
        got += ["== mmlab lab 1 --solution --size 64"] + rows_of(scratch / "lab1.json")
        got += ["== grade.py lab 1: reference, starter"] + grader_structure(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if update:
        EXPECTED.write_text("\n".join(got) + "\n")
        print(f"wrote {EXPECTED.relative_to(REPO)} ({len(got)} lines)")
        print("structure tests: all passed")
        return 0
    want = EXPECTED.read_text().splitlines()
    failures = 0
    for section in [l for l in want if l.startswith("== ")]:
        a = want[want.index(section):]
        a = a[:next((i for i, l in enumerate(a[1:], 1) if l.startswith("== ")), len(a))]
        b = got[got.index(section):] if section in got else []
        b = b[:next((i for i, l in enumerate(b[1:], 1) if l.startswith("== ")), len(b))]
        if a == b:
            print(f"ok   - {section[3:]}: {len(a) - 1} lines as before")
        else:
            failures += 1
            print(f"FAIL - {section[3:]}: differs from tests/golden/structure.txt")
            for l in sorted(set(a) - set(b))[:10]:
                print(f"       expected: {l}")
            for l in sorted(set(b) - set(a))[:10]:
                print(f"       got:      {l}")
    if failures:
        print(f"structure tests: {failures} failed")
        return 1
    print("structure tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
