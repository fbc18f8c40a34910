#!/usr/bin/env python3
"""tools/compare.py (make compare): before/after of two --json runs.

  - made-up files in Google Benchmark's format with known repetitions: the
    medians, the change, and the Mann-Whitney p-values (5 vs 5 fully apart:
    p = 2/252; identical samples: p = 1; two repetitions: no test)
  - benchmarks in one file only are named; a file in the old format, a missing
    file and two files with nothing in common: one line, exit 2
  - two real runs of mmlab (--json) compare, and the chart is written
Prints one line per check; exits 1 if any fails.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO / "tools"))
import compare  # noqa: E402

failures = []


def check(cond, what, detail=""):
    print(("ok   - " if cond else "FAIL - ") + what + ("" if cond or not detail else f"\n       {detail}"), flush=True)
    if not cond:
        failures.append(what)


def gb_file(path, runs):
    benchmarks = []
    for name, times in runs.items():
        for i, t in enumerate(times):
            benchmarks.append({"name": name, "run_name": name, "run_type": "iteration", "repetitions": len(times),
                               "repetition_index": i, "iterations": 1, "real_time": t, "cpu_time": t,
                               "time_unit": "ms"})
    Path(path).write_text(json.dumps({"context": {}, "benchmarks": benchmarks}))


def run(*args):
    return subprocess.run([sys.executable, str(REPO / "tools" / "compare.py"), *map(str, args)], capture_output=True,
                          text=True)


def main():
    p = compare.u_test_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    check(abs(p - 2 / 252) < 1e-12, "5 vs 5, fully apart: p = 2/252 (exact)", str(p))
    check(compare.u_test_p([1, 2, 3], [1, 2, 3]) == 1.0, "identical samples: p = 1")
    check(compare.u_test_p([1, 2], [3, 4]) is None, "two repetitions: no test")
    big = compare.u_test_p(list(range(30)), [x + 0.5 for x in range(30)])
    check(big is not None and big > 0.5, "30 vs 30, interleaved (normal approximation): no significant change", str(big))

    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        gb_file(d / "a.json", {"x/student/64x64x64/threads:1": [10, 11, 12, 10.5, 11.5], "only-before": [1, 1, 1]})
        gb_file(d / "b.json", {"x/student/64x64x64/threads:1": [5, 5.5, 6, 5.2, 5.8], "only-after": [1, 1, 1]})
        r = run(d / "a.json", d / "b.json", "--out", d / "charts")
        check(r.returncode == 0, "compare two files", r.stderr)
        line = [l for l in r.stdout.splitlines() if l.startswith("x/student")]
        check(line and "-50.0%" in line[0] and "2.00x" in line[0] and "faster (significant, p = 0.008)" in line[0],
              "median 11 -> 5.5 ms: -50.0%, 2.00x, faster, p = 0.008", r.stdout)
        check("only-before" in r.stdout and "only in BEFORE" in r.stdout and "only in AFTER" in r.stdout,
              "benchmarks in one file only are named")
        check((d / "charts" / "compare.svg").is_file(), "the chart is written")
        (d / "old.json").write_text(json.dumps({"summary": []}))
        for args, what in (((d / "old.json", d / "b.json"), "a file in the old format"),
                           ((d / "missing.json", d / "b.json"), "a missing file")):
            r = run(*args)
            check(r.returncode == 2 and r.stderr.count("\n") == 1 and "compare.py: error" in r.stderr,
                  f"{what}: one line, exit 2", r.stderr)
        gb_file(d / "c.json", {"other": [1, 2, 3]})
        r = run(d / "a.json", d / "c.json")
        check(r.returncode == 2 and "nothing in common" in r.stderr or "no benchmark in common" in r.stderr,
              "nothing in common: one line, exit 2", r.stderr)

        mmlab = os.environ.get("MMLAB", str(REPO / "build" / "bin" / "mmlab"))
        for name in ("r1", "r2"):
            subprocess.run([mmlab, "run", "--stage", "lab1.ikj", "--size", "48", "--reps", "3", "--quiet",
                            "--no-baseline", "--json", str(d / f"{name}.json")], capture_output=True, check=True)
        r = run(d / "r1.json", d / "r2.json")
        check(r.returncode == 0 and "lab1.ikj/reference/48x48x48/threads:1" in r.stdout,
              "two real mmlab runs compare by name", r.stdout + r.stderr)
    if failures:
        print(f"compare tests: {len(failures)} failed")
        return 1
    print("compare tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
