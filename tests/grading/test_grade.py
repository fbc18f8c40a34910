#!/usr/bin/env python3
"""Tests of the grading script (tools/grade.py) on submissions made up here, for lab 1:

  starter   the untouched starter (labs/lab1/ layout)       -> 0 points, feedback says why, "the starter, unchanged"
  reference the reference solution (lab1/ layout)            -> full marks
  broken    does not compile (files in the folder itself)    -> 0, the compiler's message in the feedback
  hang      an endless loop in one order                     -> that test times out, the others pass
  noisy     prints forever in one order, writes a huge file  -> capped, those tests 0, the others pass
  crash     a segmentation fault in one order, 64 GB in another -> those tests 0, the others pass
  escape    writes outside its folder, then computes         -> full marks, and (full containment) no file
  empty     an empty folder                                  -> 0, "no lab 1 files"
  =1+1      an empty folder named like a spreadsheet formula -> in grades.csv as '=1+1 (text, not a formula)
  nested    the reference .cpp one folder deeper, no header  -> full marks, found there
  zipped    only an archive                                  -> 0, the archive named in the feedback and review
  big       the reference padded past 1 MiB                  -> refused (not "missing"): 0, named in the review
  张三, 李四 the reference and the starter, named in Chinese  -> 6 and 0, each in a folder of its own name
and, against the verdict itself, the submissions of grade_verdict.py (its
docstring lists them: a forged report, a call into the references, an
include of the answers, printing, exiting and garbage on the runner's channel),
plus bad command lines (exit 2, one line, nothing written), a weights file,
the performance target (--perf, at a small size: only that it is scored, not
whether this machine meets it), and lab 12 (its MPI programs run by mpirun in
the sandbox, each product checked by the checker):
  good      the reference's lab 12 files, handed in as a student's -> every CPU test passes (the GPU ones too where
                                                                     a GPU is; else "not run")
  starter   the untouched starter                                   -> 0, "checked here against the float64 product"
Run from the repository root (make test-all runs it through tests/test_grading.cpp).
Prints one line per check and exits 1 if any fails.
"""
import csv
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # before importing checks: no __pycache__ in the checkout
import checks  # noqa: E402
from checks import REPO, check, replace_body, write_reference  # noqa: E402
from grade_cli import bad_input_checks, interrupt_check, run  # noqa: E402
from grade_verdict import VERDICT_FIXTURES, make_verdict_fixtures, verdict_checks  # noqa: E402
from grading.outputs import safe_name as outputs_folder  # noqa: E402


def make_fixtures(sub, scratch):
    (sub / "starter" / "labs" / "lab1").mkdir(parents=True)
    for f in (REPO / "labs" / "lab1").iterdir():
        shutil.copy(f, sub / "starter" / "labs" / "lab1" / f.name)
    write_reference(sub / "reference" / "lab1")
    write_reference(sub / "broken", lambda t: t.replace("float sum = 0.0f;", "float sum = 0.0f  // a missing semicolon", 1))
    (sub / "broken" / "README.txt").write_text("my notes\n")
    write_reference(sub / "hang" / "labs" / "lab1",
                    lambda t: replace_body(t, "matmul_jki", "    for (volatile int spin = 0;; spin = spin + 1) {}"))
    write_reference(sub / "noisy" / "labs" / "lab1", lambda t: replace_body(
        replace_body(t, "matmul_kij", '    for (;;) std::fputs("spam spam spam spam spam spam spam spam\\n", stdout);'),
        "matmul_kji", '    { std::FILE* f = std::fopen("huge.bin", "wb"); static char block[1 << 20];\n'
                      '      for (int i = 0; i < 10240 && f; ++i) std::fwrite(block, 1, sizeof block, f); }')
        .replace("#include <algorithm>", "#include <algorithm>\n#include <cstdio>"))
    write_reference(sub / "crash" / "labs" / "lab1", lambda t: replace_body(
        replace_body(t, "matmul_ijk", "    { volatile float* nowhere = nullptr; *nowhere = 1.0f; }"),
        "matmul_ikj", "    { std::vector<char> huge(std::size_t(64) << 30); huge[12345] = 1; C[0] = huge[12345]; }")
        .replace("#include <algorithm>", "#include <algorithm>\n#include <vector>"))
    escape_file = scratch / "escaped.txt"
    write_reference(sub / "escape" / "labs" / "lab1", lambda t: replace_body(
        t, "matmul_ijk", f'    {{ std::FILE* f = std::fopen("{escape_file}", "w"); if (f) std::fclose(f); }}')
        .replace("#include <algorithm>", "#include <algorithm>\n#include <cstdio>"))
    (sub / "empty").mkdir()
    (sub / "=1+1").mkdir()  # a folder name a spreadsheet would run as a formula
    (sub / "notes.txt").write_text("not a student\n")
    # As a course platform's download nests them: one folder deeper, the header not handed in.
    (sub / "nested" / "submission").mkdir(parents=True)
    (sub / "nested" / "submission" / "loop_orders.cpp").write_text(
        checks.lab1_as_handed_in()["loop_orders.cpp"])
    write_reference(sub / "big", lambda t: t + "// padding\n" * 120000)  # over 1 MiB: refused
    write_reference(sub / "张三")  # names in another script: each its own output folder
    shutil.copytree(sub / "starter", sub / "李四")
    (sub / "zipped").mkdir()
    (sub / "zipped" / "lab1.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    make_verdict_fixtures(sub)
    return escape_file



def lab12_checks(tmp):
    """Lab 12 through the checker: the MPI programs are built from the student's files beside their runner and
    started by it (mpirun in the sandbox, as the grading user: no --allow-run-as-root there); the products
    rank 0 writes are checked by the checker against its own float64 products (tests/lab12_runs.h)."""
    sub, out = tmp / "lab12-subs", tmp / "lab12-out"
    good = sub / "good" / "lab12"
    good.mkdir(parents=True)
    for f in (REPO / "solutions" / "lab12").iterdir():
        good.joinpath(f.name).write_text(f.read_text().replace("reference::lab12", "student::lab12")
                                         .replace("solutions/lab12", "labs/lab12"))
    shutil.copytree(REPO / "labs" / "lab12", sub / "starter" / "labs" / "lab12")
    rc, so, se = run([str(sub), "--lab", "12", "--out", str(out)])
    print("---- tools/grade.py (lab 12) printed:\n" + so + se + "----", flush=True)
    check(rc == 0, "lab 12: grading exits 0", f"exit {rc}")
    if rc != 0:
        return
    results = {s: json.loads((out / s / "results.json").read_text(encoding="utf-8")) for s in ("good", "starter")}
    cpu = [t for t in results["good"]["tests"] if not t["name"].startswith("lab12 GPU")]
    gpu = [t for t in results["good"]["tests"] if t["name"].startswith("lab12 GPU")]
    check(len(cpu) == 4 and all(t["status"] == "passed" for t in cpu),
          "lab 12: the reference's files handed in as a student's pass every MPI test (through the checker)",
          str([(t["name"], t["output"][:300]) for t in cpu]))
    check(all(t["status"] == "passed" or t["output"].startswith("NOT RUN: GPU test not run") for t in gpu),
          "lab 12: its GPU tests pass, or (no GPU here) are not run, saying so", str([t["output"][:200] for t in gpu]))
    fb = (out / "starter" / "feedback.txt").read_text(encoding="utf-8")
    check(results["starter"]["score"] == 0 and fb.count("checked here against the float64 product") >= 4,
          "lab 12: the untouched starter scores 0, each MPI test failed by the checker's own check of the products",
          fb[:1500])
    check("--allow-run-as-root" not in fb or "containment: bwrap" not in (out / "summary.txt").read_text(),
          "lab 12: mpirun runs as the unprivileged grading user in the bwrap sandbox (no --allow-run-as-root)")



def main():
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-grade-test-"))
    os.chmod(tmp, 0o711)  # --work folders below it: the grading user (root: nobody) must reach the build trees
    try:
        sub = tmp / "submissions"
        scratch = tmp / "scratch"
        scratch.mkdir()
        escape_file = make_fixtures(sub, scratch)
        bad_input_checks(tmp, sub)
        interrupt_check(tmp, sub)

        out = tmp / "out"
        # No --test-timeout: the automatic one (20x the reference's time, at least 30 s) stops the endless loop.
        rc, so, se = run([str(sub), "--lab", "1", "--out", str(out), "--max-output-mb", "1"] + (["--keep"] if os.environ.get("GRADE_TEST_KEEP") else []))
        print("---- tools/grade.py printed:\n" + so + se + "----", flush=True)
        check(rc == 0, "grading the fixtures exits 0", f"exit {rc}")
        if rc != 0:
            return
        rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
        tests = [c for c in csv.DictReader((out / "grades.csv").open(encoding="utf-8")).fieldnames
                 if c not in ("student", "build", "score", "max", "review")]
        check(len(tests) == 6 and tests[0].startswith("lab1.ijk"), "grades.csv has one column per lab 1 test case",
              str(tests))
        check(sorted(rows) == sorted(["big", "broken", "crash", "empty", "escape", "hang", "nested", "noisy",
                                      "reference", "starter", "zipped", "张三", "李四", "'=1+1"] + VERDICT_FIXTURES),
              "grades.csv has one row per student folder (notes.txt is not a student)", str(sorted(rows)))

        def score(s):
            return float(rows[s]["score"]), float(rows[s]["max"])

        def results(s):
            return json.loads((out / s / "results.json").read_text(encoding="utf-8"))

        def feedback(s):
            return (out / s / "feedback.txt").read_text(encoding="utf-8")

        def status_of(s, prefix):  # the verdict's word (what the code printed follows on the next lines)
            return next(t["output"].split("\n")[0].split(":")[0] for t in results(s)["tests"]
                        if t["name"].startswith(prefix))

        check(score("starter") == (0, 6) and rows["starter"]["build"] == "built", "the untouched starter scores 0 of 6",
              str(score("starter")))
        check("never written" in feedback("starter"), "the starter's feedback says C was never written")
        check("the starter, unchanged" in rows["starter"]["review"] and "the starter, unchanged" in feedback("starter")
              and "the starter, unchanged" not in rows["reference"]["review"],
              "the untouched starter is named so in its feedback and review cell (the reference is not)",
              f"{rows['starter']['review']!r} / {rows['reference']['review']!r}")
        check(score("reference") == (6, 6), "the reference solution (lab1/ layout) scores 6 of 6", str(score("reference")))
        check(score("broken") == (0, 6) and rows["broken"]["build"] == "build failed",
              "a submission that does not compile scores 0, build failed", str(score("broken")))
        fb = feedback("broken")
        check("BUILD FAILED" in fb and "loop_orders.cpp" in fb and "error" in fb,
              "its feedback quotes the compiler's error", fb[:400])
        check("README.txt" in fb and "Ignored" in fb, "its extra file is reported as ignored")
        check(score("hang") == (5, 6) and status_of("hang", "lab1.jki") == "TIMEOUT",
              "an endless loop: that test times out, the other five pass", f"{score('hang')} {results('hang')['tests']}")
        hang_out = next(t["output"] for t in results("hang")["tests"] if t["name"].startswith("lab1.jki"))
        # Each test case's automatic limit is 20x the reference's time here, 30-120 s: 30 s (the floor)
        # on a quiet machine; under load the reference's runs slow down and the run states a span,
        # e.g. "30-37 s" (the floor itself: test_calibration.py).
        stated = re.search(r"time limit per test case (\d+)(?:-(\d+))? s \(auto: 20x the reference's time", so)
        hung = re.search(r"did not finish within the test's (\d+) s limit", hang_out)
        lo, hi = (int(stated.group(1)), int(stated.group(2) or stated.group(1))) if stated else (0, -1)
        check(stated is not None and hung is not None and 30 <= lo <= int(hung.group(1)) <= hi <= 120,
              "the automatic time limit (30 s, the floor, on a quiet machine) is within the span the run states",
              f"{stated and stated.group(0)} / {hang_out}")
        check(score("noisy") == (4, 6) and status_of("noisy", "lab1.kij") in ("CRASHED", "TIMEOUT")
              and status_of("noisy", "lab1.kji") in ("CRASHED", "TIMEOUT"),
              "endless output and a 10 GB file are cut off: those two tests 0, the other four pass",
              f"{score('noisy')} {results('noisy')['tests']}")
        check(score("crash") == (4, 6) and status_of("crash", "lab1.ijk") == "CRASHED"
              and "SIGSEGV" in feedback("crash") and status_of("crash", "lab1.ikj") in ("FAILED", "CRASHED"),
              "a segmentation fault and a 64 GB allocation: those two tests 0, the other four pass",
              f"{score('crash')} {results('crash')['tests'][:2]}")
        check(score("escape") == (6, 6), "a submission that writes outside its folder still gets its points")
        summary = (out / "summary.txt").read_text()
        if re.search(r"^containment: (bwrap|unshare) ", summary, re.M):
            check(not escape_file.exists(), "bwrap or unshare containment: it could not write outside its build folder")
        else:
            # Weaker containment cannot stop the write; then the grader must say
            # so: its level in summary.txt and a warning on stderr.
            level = re.search(r"containment: (\w+)", summary)
            check(level is not None and f"containment: '{level.group(1)}' only" in se,
                  "containment below 'bwrap' is named in summary.txt and warned about on stderr",
                  f"{level.group(0) if level else 'no containment line'}; stderr: {se.strip()[-300:]}")
            print("note - containment is below 'unshare' on this machine: the write-outside check is not made")
        check("opens or removes files" in rows["escape"]["review"], "it is flagged for review in grades.csv",
              rows["escape"]["review"])
        check("names an absolute path" in rows["escape"]["review"], "its absolute path is flagged too",
              rows["escape"]["review"])
        check(score("nested") == (6, 6) and "nested/submission" in feedback("nested")
              and "its tasks fail" not in feedback("nested") and "loop_orders.h" in feedback("nested"),
              "files one folder deeper are found and graded; a header not handed in is not called a failed task",
              feedback("nested"))
        check(score("zipped") == (0, 6) and rows["zipped"]["build"] == "no files" and "lab1.zip" in feedback("zipped")
              and "lab1.zip" in rows["zipped"]["review"], "an archive alone: 0, no files, the archive named",
              feedback("zipped"))
        check(score("big") == (0, 6) and "larger than 1024 KiB: refused" in feedback("big")
              and "Missing" not in feedback("big") and "larger than 1024 KiB" in rows["big"]["review"],
              "a file over 1 MiB: refused (not called missing), the starter graded, named in the review", feedback("big"))
        check(score("张三") == (6, 6) and score("李四") == (0, 6) and "6 / 6" in feedback("张三")
              and "0 / 6" in feedback("李四"), "student folders named in Chinese: graded, each in its own folder")
        check(score("empty") == (0, 6) and rows["empty"]["build"] == "no files" and "No lab 1 files" in feedback("empty"),
              "an empty folder scores 0 with 'No lab 1 files'")
        check(score("'=1+1") == (0, 6), "a folder named like a formula is text in grades.csv ('=1+1), graded as any other",
              str(sorted(rows)))
        check("notes.txt" in summary, "summary.txt names the stray file notes.txt")
        verdict_checks(score, status_of, feedback, results, rows, summary, tmp)
        # Read as a student would (checks.read_as_student): each test's verdict without the grader's own words or
        # a phrase said twice; every feedback.txt within the width, without the sandbox (summary.txt has it).
        wrong = {s: checks.read_as_student("\n".join("  [" + t["output"].split("\n")[0] for t in json.loads(
                     (out / outputs_folder(s) / "results.json").read_text(encoding="utf-8"))["tests"]), width=None)
                 for s in rows if (out / outputs_folder(s) / "results.json").is_file()}
        wrong = {s: w for s, w in wrong.items() if w}
        check(not wrong, "every test's verdict reads as a student's: no runner, checker or sandbox, nothing said twice",
              str(wrong)[:1500])
        wide = [s for s in rows if (out / outputs_folder(s) / "feedback.txt").is_file()
                and (any(len(l) > checks.FEEDBACK_WIDTH for l in (out / outputs_folder(s) / "feedback.txt")
                         .read_text(encoding="utf-8").splitlines())
                     or "Sandbox:" in (out / outputs_folder(s) / "feedback.txt").read_text(encoding="utf-8"))]
        check(not wide and "containment: " in summary,
              "no feedback.txt has a line over 200 characters or a sandbox line; summary.txt names the containment",
              str(wide))
        r = results("reference")
        check(r["score"] == 6 and len(r["tests"]) == 6 and
              all({"name", "score", "max_score", "output", "visibility"} <= set(t) for t in r["tests"]),
              "results.json is in Gradescope's format (score; tests with name, score, max_score, output, visibility)")
        check(not list(tmp.glob(".out.tmp-*")) and not list(tmp.glob(".out.old-*")), "no staging folder is left behind")

        # A weights file; grading again replaces the earlier output as a whole.
        weights = tmp / "lab1.weights"
        weights.write_text("# test case = points\nlab1.ijk: the baseline triple loop = 3\nlab1.kji = 0.5\n")
        keep = tmp / "keep"
        keep.mkdir()
        for s in ("starter", "reference"):
            shutil.copytree(sub / s, keep / s)
        rc, so, se = run([str(keep), "--lab", "1", "--out", str(out), "--weights", str(weights),
                          "--perf", "--perf-size", "64", "--perf-threads", "1", "--perf-points", "2"])
        rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))} if rc == 0 else {}
        check(rc == 0 and sorted(rows) == ["reference", "starter"] and
              float(rows["reference"]["score"]) - float(rows["reference"]["performance target"]) == 7.5 and
              float(rows["reference"]["max"]) == 9.5,
              "a weights file sets the points (3 + 4 x 1 + 0.5 = 7.5, + 2 for --perf); OUT is replaced as a whole",
              f"exit {rc} {se.strip()} {rows.get('reference')}")
        if rc == 0:
            perf = results("reference")["tests"][-1]
            check(perf["name"].startswith("performance target") and "64^3" in perf["output"],
                  "--perf scores the lab's target as one more test, with mmlab's explanation", str(perf))
            check(results("starter")["tests"][-1]["output"].startswith("NOT RUN"),
                  "--perf is not run for a submission whose tests fail", str(results("starter")["tests"][-1]))
        lab12_checks(tmp)
        weights.write_text("lab1.no_such_test = 2\n")
        rc, so, se = run([str(keep), "--lab", "1", "--out", str(tmp / "out2"), "--weights", str(weights)])
        check(rc == 2 and "no_such_test" in se and not (tmp / "out2").exists(),
              "a weights file naming an unknown test case: exit 2, nothing written", se.strip())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    checks.finish("grading")
