#!/usr/bin/env python3
"""Runs the grader's unit tests: every tests/grading/test_<module>.py but
the end-to-end ones (test_grade.py, test_hostile.py, test_hostile_trust.py, test_slurm_cluster.py, test_given.py, test_safe_default.py, test_resume.py,
test_build_attacks.py: they grade
made-up submissions, minutes each, and run on their own). Each runs as its own process; their lines are printed
as they come, then one last line, 'grading unit tests: all passed' or what
failed. Seconds in all, no build: tests/test_grading.cpp runs it under
`make test-all` (suite grading-units), and an instructor changing tools/grading
can run it alone:  python3 tests/grading/run_unit_tests.py
"""
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # before importing checks: no __pycache__ in the checkout
from checks import slack  # noqa: E402

HERE = Path(__file__).resolve().parent
# The end-to-end tests (minutes, builds; each a doctest case of its own under make test-all).
END_TO_END = {"test_grade.py", "test_hostile.py", "test_hostile_trust.py", "test_slurm_cluster.py", "test_given.py",
              "test_safe_default.py", "test_resume.py",
              "test_build_attacks.py"}  # tests/test_grading_sandbox.cpp runs it


def main():
    failed, skipped = [], []
    scripts = sorted(p for p in HERE.glob("test_*.py") if p.name not in END_TO_END)
    for script in scripts:
        print(f"== {script.name}", flush=True)
        limit = round(120 * slack())  # seconds on an idle machine; a busy one gets more
        try:
            # -B: no __pycache__ in the checkout (the grader copies its untracked files into every build tree)
            r = subprocess.run([sys.executable, "-B", str(script)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", timeout=limit)
            out, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired as e:
            # (what it printed so far comes as bytes here, even with text=True)
            partial = e.stdout.decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            out, rc = partial + f"\n(stopped after {limit} s: a unit test must take seconds)", None
        print(out, end="" if out.endswith("\n") else "\n", flush=True)
        if rc == 0 and "tests: skipped" in out:  # a test that needs what is not installed says so (checks.py)
            skipped.append(script.name)
        elif rc != 0 or "tests: all passed" not in out:
            failed.append(script.name)
            if "FAIL - " not in out:  # it died before a check said why: make it count where FAIL lines are read
                print(f"FAIL - {script.name} ended with exit status {rc}", flush=True)
    ok = not failed and scripts
    print(f"grading unit tests: {'all passed' if ok else 'FAILED: ' + (', '.join(failed) or 'none found')}"
          f" ({len(scripts)} files" + (f"; SKIPPED, see their skip lines: {', '.join(skipped)}" if skipped else "")
          + ")")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
