#!/usr/bin/env python3
"""Build-time attacks on the grader (issue 35, item 1): lab 1 submissions whose
compile is the attack (hostile_build.py lists them and what each must get),
graded once by tools/grade.py with a short build clock, so that a compile
that never ends costs seconds. For each: its score, build status and the
reason its feedback gives ("build output too large", "the compiler ran out
of memory", "did not finish", "No such file or directory"); that no build
took much longer than the build clock; that nothing outside the submission
reached a program (the readers' tests) or any feedback (the victim's marker,
/etc/shadow's lines).

The readers' checks need a level that hides what lies outside the tree
(bwrap, unshare): at `net` or `none` (the strongest level where bubblewrap
and namespaces are missing) they print "skip - ..." with the reason. To see
them fail on a level that hides nothing:
    MMLAB_BUILD_ATTACKS_LEVEL=net python3 tests/grading/test_build_attacks.py
(reach_build then FAILs: its probes read the other student's file, the
checkout's solutions/ and the starter tree's reference runner).

Run from the repository root (make test-all runs it through
tests/test_grading_sandbox.cpp). Prints one line per check; exits 1 if any fails.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
import checks  # noqa: E402 (after: no __pycache__ in the checkout)
import hostile_build  # noqa: E402
from checks import check  # noqa: E402
from hostile_probes import outputs_name  # noqa: E402

# The build clock of this run: an honest lab 1 build (its runner: two files and a link) takes 3-8 s on 2
# cores, over 20 s beside other builds; the never-ending ones cost this, two at a time (-j 2).
BUILD_TIMEOUT = 40
# The levels that hide what lies outside the tree: the readers' checks hold there (bwrap, and unshare:
# MMLAB_BUILD_ATTACKS_LEVEL=unshare, 49 s here, all passed, 2026-12-06).
HIDING = ("bwrap", "unshare")


def main():
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-build-attacks-"))
    os.chmod(tmp, 0o711)  # as a grading folder would be: the grading user gets through, cannot list it
    try:
        sub = tmp / "submissions"
        sub.mkdir()
        os.chmod(sub, 0o755)
        work = tmp / "work"
        work.mkdir()
        os.chmod(work, 0o711)
        cases, marker = hostile_build.add_cases(sub, checks.lab1_as_handed_in())
        embed, compiler = hostile_build.has_embed()
        if not embed:
            print(f"skip - #embed: {compiler} has no #embed (GCC 15 and Clang 19 have): no such submission here",
                  flush=True)
        forced = os.environ.get("MMLAB_BUILD_ATTACKS_LEVEL")
        level_flags = ["--sandbox", forced] if forced else checks.level_flags()
        flags = level_flags + ["--test-timeout", "10", "--build-timeout", str(BUILD_TIMEOUT), "--memory-mb", "1024",
                               "--max-output-mb", "8"]
        out = tmp / "out"
        rc, text, secs = checks.grade(sub, out, work, flags)
        print(f"---- tools/grade.py took {secs:.0f} s; it printed:\n{text}----", flush=True)
        check(rc == 0, "the build attacks are graded (exit 0)", f"exit {rc}")
        if rc != 0:
            return
        level = re.search(r"^containment: (\w+)", (out / "summary.txt").read_text(), re.M).group(1)
        print(f"note - containment level here: {level}" + (" (forced by MMLAB_BUILD_ATTACKS_LEVEL)" if forced else ""),
              flush=True)
        check_results(out, cases, level, strict=bool(forced))
        check_nothing_shown(out, cases, marker)
        check(secs < 300 * checks.slack(), "the whole class within 5 minutes (the bombs cost the build clock, not "
              "more)", f"{secs:.0f} s")
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(tmp)], stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


def check_results(out, cases, level, strict):
    rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    hides = level in HIDING
    for c in cases:
        row = rows.get(c.name)
        if row is None:
            check(False, f"{c.name}: has a row in grades.csv", str(sorted(rows)))
            continue
        results = json.loads((out / outputs_name(c.name) / "results.json").read_text(encoding="utf-8"))
        fb = (out / outputs_name(c.name) / "feedback.txt").read_text(encoding="utf-8")
        got, secs = float(row["score"]), results["execution_time"]
        failed = [t["name"].split(":")[0] + ": " + t["output"].split("\n")[0][:160] for t in results["tests"]
                  if t["status"] != "passed"]
        shown = f"score {got:g}/6, build {row['build']}, {secs:.1f} s; " + ("; ".join(failed) or "all passed") + \
            f"\n       feedback: {fb[:1200]!r}"
        said = next((l for l in fb.splitlines() if l.startswith(("BUILD", "REFUSED"))), "")
        print(f"note - {c.name}: {row['build']}, {got:g}/6, {secs:.1f} s" + (f": {said[:200]}" if said else ""),
              flush=True)
        if c.reader and not hides and not strict:
            print(f"skip - {c.name}: level '{level}' hides nothing outside the tree, so its reads are not checked "
                  f"here ({shown.splitlines()[0]})", flush=True)
            continue
        check(got == c.score and row["build"] in c.builds, f"{c.name}: {c.score}/6, {' or '.join(c.builds)}", shown)
        for words in list(c.says) + list(c.hidden if hides else c.open):
            check(words in fb, f"{c.name}: its feedback says '{words}'", shown)
        # A stopped build costs at most the build clock (plus the copy of the tree and the tests' own time).
        limit = BUILD_TIMEOUT + 30 if "build timed out" in c.builds else 30
        if c.score == 0:
            check(secs < limit * checks.slack(), f"{c.name}: graded in {limit} s at most (the build's limits held)",
                  f"{secs:.1f} s")
    link = (out / outputs_name("link_big") / "feedback.txt").read_text(encoding="utf-8")
    check("ld terminated with signal 25" in link or "ld: final link failed" in link,
          "link_big: the linker itself was stopped by the size limit (two objects under it, the program over it)",
          link[:1500])


def check_nothing_shown(out, cases, marker):
    """No feedback shows the victim's marker (a line of its header: read only by a build that reached it), nor a
    line of /etc/shadow (when this test can read it: as root)."""
    feedback = {c.name: (out / outputs_name(c.name) / "feedback.txt").read_text(encoding="utf-8") for c in cases}
    leaked = [n for n, fb in feedback.items() if n != "victim" and marker in fb]
    check(not leaked, "no feedback shows a line of another student's file", ", ".join(leaked))
    try:
        secret = [line for line in Path("/etc/shadow").read_text().splitlines() if len(line) > 8]
    except OSError as e:
        print(f"skip - /etc/shadow's lines in the feedback: this test cannot read it ({e.strerror})", flush=True)
        return
    leaked = [n for n, fb in feedback.items() if any(line in fb for line in secret)]
    check(not leaked, "no feedback shows a line of /etc/shadow", ", ".join(leaked))


if __name__ == "__main__":
    main()
    checks.finish("build-attack grading")
