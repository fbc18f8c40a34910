#!/usr/bin/env python3
"""The Gradescope autograder of `make gradescope LAB=1`, run as Gradescope would,
under a temporary root that stands for /autograder (AUTOGRADER_ROOT):

  the zip is unpacked into ROOT/source, setup.sh builds it (installing nothing
  where the packages are present; the build is seeded from this checkout's
  build/ to save minutes), then run_autograder grades one submission at a time:

  correct     the reference, as a student would hand it in  -> full marks (6 of 6)
  untouched   the starter                                   -> 0
  broken      does not compile                              -> 0, the compiler named in "output"
  crashing    a segmentation fault in one loop order        -> partial (5 of 6)
  no userns   correct, with lab.env's MMLAB_GRADESCOPE_SANDBOX=none (a platform without user
              namespaces)                                   -> 6 of 6; the level and what it exposes
                                                               on stdout, never in results.json
  no set-up   the image's set-up failed                     -> 0, the reason in "output"

The layout is Gradescope's (its autograder specifications): the zip unpacked in
ROOT/source, run_autograder copied to ROOT/run_autograder and run from ROOT
(the working directory), the submission in ROOT/submission, the result in
ROOT/results/results.json, run_autograder's stdout kept in ROOT/results/stdout
(Gradescope shows it to instructors; "stdout_visibility" must be "hidden").
The zip holds no reference source (nothing under solutions/; the references
prebuilt in prebuilt/lib/, their declarations in prebuilt/include/).
setup.sh and run_autograder are executable at the zip's root, and
run_autograder is executed as Gradescope does (the script itself, from ROOT).
Each results.json is checked for Gradescope's fields (score, output,
output_format, stdout_visibility, tests with name, number, score, max_score,
status, output, visibility) and their values against its specification
(visibilities, output formats, test statuses, numbers, leaderboard entries).
Also: bad `make gradescope` input (unknown lab, unwritable OUT) is one line,
exit 2, no zip.
As root, the grader runs as the user `nobody` (never root). Prints one line
per check; exits 1 if any fails.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
failures = []


def check(cond, what, detail=""):
    print(("ok   - " if cond else "FAIL - ") + what + ("" if cond or not detail else f"\n       {detail}"), flush=True)
    if not cond:
        failures.append(what)


def student_version(text):
    return text.replace("reference::lab1", "student::lab1").replace("solutions/lab1", "labs/lab1")


def make_submission(dest, kind):
    dest.mkdir(parents=True)
    if kind == "untouched":
        for f in (REPO / "labs" / "lab1").iterdir():
            shutil.copy(f, dest / f.name)
        return
    for f in (REPO / "solutions" / "lab1").iterdir():
        text = student_version(f.read_text())
        if f.suffix == ".cpp" and kind == "broken":
            text = text.replace("{", "{ this does not compile;", 1)
        if f.suffix == ".cpp" and kind == "crashing":
            marker = "void matmul_kji("
            at = text.index(marker)
            body = text.index("{", at) + 1
            text = text[:body] + "\n    volatile float* nowhere = nullptr; nowhere[12345] = 1.0f;\n" + text[body:]
        (dest / f.name).write_text(text)


def run_autograder(root, submission):
    sub = root / "submission"
    shutil.rmtree(sub, ignore_errors=True)
    shutil.copytree(submission, sub)
    results = root / "results" / "results.json"
    if results.exists():
        results.unlink()
    env = dict(os.environ, AUTOGRADER_ROOT=str(root))
    # As Gradescope runs it: the copied script itself (its #! line), from ROOT.
    t0 = time.monotonic()
    p = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True,
                       timeout=1800)
    print(f"       run_autograder ({submission.name}): {time.monotonic() - t0:.0f} s wall time", flush=True)
    (root / "results" / "stdout").write_text(p.stdout)  # what Gradescope keeps for the instructor
    try:
        return json.loads(results.read_text()), p
    except (OSError, ValueError) as e:
        return None, p


# Gradescope's "Autograder Specifications" ("Output format"): the values its fields may take.
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
STATUSES = {"passed", "failed"}


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_format(r, name):
    """results.json against Gradescope's specification: the fields this autograder writes, each with a value the
    specification allows (a visibility, a format, a test status, numbers for scores, strings for text)."""
    keys = {"score", "output", "output_format", "stdout_visibility", "tests"}
    check(r is not None and keys <= set(r), f"{name}: results.json has {sorted(keys)}", str(r)[:300])
    if r is None:
        return
    bad = []
    if not number(r.get("score")):
        bad.append(f"score {r.get('score')!r} is not a number")
    if not isinstance(r.get("output"), str):
        bad.append("output is not a string")
    if r.get("output_format") not in FORMATS:
        bad.append(f"output_format {r.get('output_format')!r}")
    for k in ("visibility", "stdout_visibility"):
        if k in r and r[k] not in VISIBILITIES:
            bad.append(f"{k} {r[k]!r}")
    if "execution_time" in r and not number(r["execution_time"]):
        bad.append("execution_time is not a number")
    if "extra_data" in r and not isinstance(r["extra_data"], dict):
        bad.append("extra_data is not an object")
    if not isinstance(r.get("tests"), list):
        bad.append("tests is not a list")
    tkeys = {"name", "number", "score", "max_score", "status", "output", "visibility"}
    for t in r.get("tests") or []:
        if not tkeys <= set(t):
            bad.append(f"a test lacks {sorted(tkeys - set(t))}")
            continue
        if not (number(t["score"]) and number(t["max_score"])) or t["status"] not in STATUSES \
                or t["visibility"] not in VISIBILITIES or not all(isinstance(t[k], str) for k in ("name", "number", "output")) \
                or t.get("output_format", "text") not in FORMATS:
            bad.append(f"test {str(t)[:160]}")
    for e in r.get("leaderboard") or []:
        if not (isinstance(e, dict) and isinstance(e.get("name"), str) and "value" in e
                and e.get("order", "desc") in ("asc", "desc")):
            bad.append(f"leaderboard entry {e!r}")
    check(not bad, f"{name}: every field of results.json has a value Gradescope's specification allows", "; ".join(bad)[:400])


def main():
    scratch = Path(tempfile.mkdtemp(prefix="mmlab-gradescope-"))
    os.chmod(scratch, 0o755)
    try:
        # Bad input: one line, exit 2, nothing written.
        for args, what in ((["LAB=99"], "an unknown lab"), (["LAB=1", "OUT=/proc/no-such-place"], "an unwritable OUT")):
            p = subprocess.run(["make", "--no-print-directory", "-s", "gradescope"] + args, cwd=REPO,
                               capture_output=True, text=True)
            lines = [l for l in p.stderr.splitlines() if l.startswith("gradescope:")]
            check(p.returncode != 0 and len(lines) == 1, f"make gradescope with {what}: one line and an error exit",
                  p.stderr)

        out = scratch / "zip"
        p = subprocess.run(["make", "--no-print-directory", "-s", "gradescope", "LAB=1", f"OUT={out}"], cwd=REPO,
                           capture_output=True, text=True)
        zip_path = out / "autograder_lab1.zip"
        check(p.returncode == 0 and zip_path.is_file(), "make gradescope LAB=1 writes autograder_lab1.zip", p.stderr)
        if not zip_path.is_file():
            return
        names = zipfile.ZipFile(zip_path).namelist()
        print(f"       zip size: {zip_path.stat().st_size / 1024:.0f} KiB, {len(names)} entries")
        check("setup.sh" in names and "run_autograder" in names and "lab.env" in names,
              "the zip holds setup.sh, run_autograder and lab.env at its root")
        # Gradescope runs run_autograder itself ("an executable script ... with appropriate #! line").
        modes = {n: zipfile.ZipFile(zip_path).getinfo(n).external_attr >> 16 for n in ("setup.sh", "run_autograder")
                 if n in names}
        first = zipfile.ZipFile(zip_path).read("run_autograder").split(b"\n", 1)[0] if "run_autograder" in names else b""
        check(len(modes) == 2 and all(m & 0o111 for m in modes.values()) and first.startswith(b"#!"),
              "setup.sh and run_autograder are executable in the zip, run_autograder with a #! line",
              f"{ {n: oct(m) for n, m in modes.items()} } {first!r}")
        leaked = [n for n in names if n.startswith(("solutions/", "tests/reference/"))
                  or ("solutions/" in n and not n.endswith((".h", ".cuh", "/")))]
        check(not leaked, "the zip holds no reference source (solutions/, tests/reference/)", " ".join(leaked[:8]))
        check("prebuilt/lib/libmmlab-reference.a" in names and "prebuilt/include/solutions/lab1/loop_orders.h" in names,
              "the zip holds the references prebuilt (prebuilt/lib/) and their declarations (prebuilt/include/)")

        root = scratch / "autograder"
        src = root / "source"
        src.mkdir(parents=True)
        # unzip keeps modification times (Gradescope's unpacking does too);
        # zipfile's own extract does not, which would rebuild everything.
        if shutil.which("unzip"):
            subprocess.run(["unzip", "-q", str(zip_path), "-d", str(src)], check=True)
        else:  # (extractall drops the modes: set the executable bits the zip holds, checked above)
            zipfile.ZipFile(zip_path).extractall(src)
            for n in ("setup.sh", "run_autograder"):
                os.chmod(src / n, 0o755)
        shutil.copy(src / "run_autograder", root / "run_autograder")
        if (REPO / "build" / "obj").is_dir():  # seed: setup's build then compiles little
            shutil.copytree(REPO / "build", src / "build", symlinks=True,
                            ignore=shutil.ignore_patterns("asan", "tsan"))
            (src / "build" / "config.mk").unlink(missing_ok=True)
        env = dict(os.environ, AUTOGRADER_ROOT=str(root))
        p = subprocess.run(["bash", str(src / "setup.sh")], env=env, capture_output=True, text=True, timeout=3600)
        check(p.returncode == 0 and (src / ".setup-ok").is_file(), "setup.sh succeeds (packages present, one build)",
              (p.stdout + p.stderr)[-800:])

        subs = scratch / "subs"
        expected = {"correct": (6, 6), "untouched": (0, 6), "broken": (0, None), "crashing": (5, 6)}
        for kind, (score, tests) in expected.items():
            make_submission(subs / kind, kind)
            r, proc = run_autograder(root, subs / kind)
            check_format(r, kind)
            got = (r or {}).get("score")
            n_tests = len((r or {}).get("tests", []))
            check(got == score and (tests is None or n_tests == tests),
                  f"{kind}: score {score}" + (f", {tests} test cases" if tests else ""),
                  f"score {got}, {n_tests} tests; output: {str((r or {}).get('output'))[:400]}; "
                  f"stderr: {proc.stderr[-400:]}")
            if kind == "broken":
                check("error" in str((r or {}).get("output", "")).lower(), "broken: the compiler's error in output",
                      str((r or {}).get("output"))[:400])
            if kind == "crashing":
                bad = [t for t in (r or {}).get("tests", []) if t.get("score") == 0]
                check(len(bad) == 1 and "kji" in bad[0].get("name", ""), "crashing: only lab1.kji scores 0",
                      str(bad)[:300])

            if kind == "correct":
                check(r is not None and r.get("stdout_visibility") == "hidden",
                      "results.json hides run_autograder's stdout from the student", str((r or {}).get("stdout_visibility")))
                stdout = (root / "results" / "stdout").read_text()
                check("sandbox bwrap (MMLAB_GRADESCOPE_SANDBOX)" in stdout, "the instructor's stdout names the sandbox level",
                      stdout[:300])
                shown = json.dumps({k: v for k, v in (r or {}).items() if k != "extra_data"})
                check("Sandbox" not in shown and "bwrap" not in shown,
                      "what the student sees (results.json's output and tests) has no sandbox line", shown[:300])

        # A platform without user namespaces: the level chosen in the zip's lab.env.
        lab_env = (src / "lab.env").read_text()
        check("MMLAB_GRADESCOPE_SANDBOX=bwrap" in lab_env, "lab.env names the sandbox level (bwrap by default)", lab_env)
        (src / "lab.env").write_text(lab_env.replace("MMLAB_GRADESCOPE_SANDBOX=bwrap", "MMLAB_GRADESCOPE_SANDBOX=none"))
        r, proc = run_autograder(root, subs / "correct")
        check_format(r, "sandbox none")
        stdout = (root / "results" / "stdout").read_text()
        student_text = json.dumps({k: v for k, v in (r or {}).items() if k != "extra_data"})
        check(r is not None and r.get("score") == 6 and "sandbox none (MMLAB_GRADESCOPE_SANDBOX): the limits only" in stdout
              and "MMLAB_GRADESCOPE_SANDBOX" not in student_text and r.get("stdout_visibility") == "hidden",
              "MMLAB_GRADESCOPE_SANDBOX=none: graded (6 of 6); the level and what it exposes on the instructor's stdout only",
              f"score {(r or {}).get('score')}; stdout: {stdout[:300]}; stderr: {proc.stderr[-300:]}")
        (src / "lab.env").write_text(lab_env)

        (src / ".setup-ok").unlink()
        r, _ = run_autograder(root, subs / "correct")
        check_format(r, "no set-up")
        check(r is not None and r.get("score") == 0 and "set-up failed" in r.get("output", ""),
              "a failed set-up: score 0 and the reason in output", str(r)[:300])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print(f"gradescope tests: {len(failures)} failed")
        return 1
    print("gradescope tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
