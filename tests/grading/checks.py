"""What the grader's unit tests (tests/grading/test_<module>.py) share: the
import path of the package tools/grading/, one printed line per check
('ok   - ' or 'FAIL - ' with the detail indented below, as
tests/script_test.h reads them), a scratch folder, the lab 1 reference as a
student hands it in (and edited: write_reference, replace_body), grading a
class, and the last line with the exit status.

A test file starts with
    import sys
    sys.dont_write_bytecode = True   # before any import of ours: no __pycache__ in the checkout
    import checks
(the grader copies the checkout's untracked files into every build tree).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True
REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO / "tools"))  # `import grading` is tools/grading/
GRADE = [sys.executable, "-B", str(REPO / "tools" / "grade.py")]

failures = []


def check(cond, what, detail=""):
    print(("ok   - " if cond else "FAIL - ") + what + ("" if cond or not detail else f"\n       {detail}"), flush=True)
    if not cond:
        failures.append(what)


# How wide a line of feedback may be (tools/grading/outputs.py, FEEDBACK_WIDTH).
FEEDBACK_WIDTH = 200
# The grader's names for its own parts: a student never needs them (their code is "your code").
INTERNAL = ("runner", "checker", "harness", "sandbox", "bwrap", "cgroup", "doctest", "MML_")
# A phrase of this many words said twice in one test's verdict is a message repeated.
PHRASE_WORDS = 5


def repeated_phrase(text):
    """The first run of PHRASE_WORDS words that occurs twice in text (punctuation aside), or None."""
    words = re.findall(r"[\w.^']+", text.lower())
    seen = set()
    for i in range(len(words) - PHRASE_WORDS + 1):
        phrase = " ".join(words[i:i + PHRASE_WORDS])
        if phrase in seen:
            return phrase
        seen.add(phrase)
    return None


def read_as_student(text, width=FEEDBACK_WIDTH):
    """What is wrong with a feedback.txt for a student: a list of sentences, empty when nothing is. width None:
    lines of any length (Gradescope's page wraps a test's output itself)."""
    wrong = []
    for n, line in enumerate(text.splitlines(), 1):
        if width and len(line) > width:
            wrong.append(f"line {n} has {len(line)} characters: {line[:80]}...")
        if line.lstrip().startswith("| "):
            continue  # what the student's own code printed: theirs, any words
        for term in INTERNAL:
            if re.search(rf"(?i){re.escape(term)}", line):
                wrong.append(f"line {n} says '{term}': {line[:160]}")
    # One test's verdict: its line and the lines indented under it.
    for block in re.split(r"\n(?=  \[)", text):
        phrase = repeated_phrase(block.split("\n      | ")[0])
        if phrase:
            wrong.append(f"'{phrase}' said twice in: {block[:200]}")
    return wrong


def slack():
    """How many times an idle machine's time a step may take here now: the load average per core (the
    1- or 5-minute one, whichever is higher), at least 1. Only for bounds that catch a hang or a blow-up
    (seconds where a fraction of one is normal): a busy machine must not fail them. Never for speed claims."""
    return max(1.0, max(os.getloadavg()[:2]) / (os.cpu_count() or 1))


def raises(exception, fn, *args, **kwargs):
    """The exception fn raised (of that type), or None when it raised none."""
    try:
        fn(*args, **kwargs)
    except exception as e:
        return e
    return None


class Scratch:
    """A temporary folder, removed at the end: `with Scratch() as tmp:` (tmp is a Path)."""

    def __enter__(self):
        self.path = Path(tempfile.mkdtemp(prefix="mmlab-grading-unit-"))
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def lab1_as_handed_in():
    """The lab 1 reference as a student hands it in (their namespace and include path): {file name: text}."""
    return {f.name: f.read_text().replace("reference::lab1", "student::lab1").replace("solutions/lab1", "labs/lab1")
            for f in (REPO / "solutions" / "lab1").iterdir()}


def write_reference(dest, edit=None):
    """The lab 1 reference as handed in, written into dest; edit(text), if given, changes its .cpp files."""
    dest.mkdir(parents=True, exist_ok=True)
    for name, text in lab1_as_handed_in().items():
        (dest / name).write_text(edit(text) if edit and name.endswith(".cpp") else text)


def replace_body(text, func, new_first_lines):
    """Puts new_first_lines at the top of func's body (the rest of the body stays)."""
    m = re.search(r"void " + func + r"\([^)]*\)\s*\{", text)
    assert m, func
    return text[:m.end()] + "\n" + new_first_lines + "\n" + text[m.end():]


_LEVEL_FLAGS = []  # level_flags(), once worked out: [flags]


def level_flags():
    """What every end-to-end test grades with: nothing where bwrap works here (the default level; as root with
    apt-get the grader's own set-up installs bubblewrap first, as `make grade` does), else --sandbox and the
    strongest level that works here, named (the grader refuses to go below bwrap by itself), said in a note."""
    if not _LEVEL_FLAGS:
        from grading import install, sandbox
        from grading.common import SetupError
        install.ensure_bubblewrap("auto")
        tmp = Path(tempfile.mkdtemp(prefix="mmlab-grading-level-"))
        os.chmod(tmp, 0o711)  # the grading user (root: nobody) reaches the probe's tree
        try:
            sandbox.probe_sandbox("auto", tmp / "auto")
            _LEVEL_FLAGS.append([])
        except SetupError as e:
            level = sandbox.strongest_level(tmp / "strongest").mode
            print(f"note - graded with --sandbox {level}: the default refuses here ({e})", flush=True)
            _LEVEL_FLAGS.append(["--sandbox", level])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return list(_LEVEL_FLAGS[0])


def grade_command():
    """tools/grade.py's command line, with level_flags() (flags given after them win)."""
    return GRADE + level_flags()


def grade(sub, out, work, flags, env=None):
    """tools/grade.py on the lab 1 class in `sub` (results in `out`, build trees in `work`, two jobs) with
    `flags`: (exit status, what it printed, seconds it took)."""
    t0 = time.monotonic()
    r = subprocess.run(grade_command() + [str(sub), "--lab", "1", "--out", str(out), "--work", str(work), "-j", "2",
                                          *flags],
                       cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                       env=env, timeout=1800)
    return r.returncode, r.stdout, time.monotonic() - t0


def graded_twice(sub, tmp, work, flags, env, check_run, what="class"):
    """Grades the class twice (into tmp/out1, tmp/out2), printing what the grader printed; after each run that
    exits 0, check_run(out, run, printed); then checks that the two grades.csv files are identical."""
    csvs = []
    for run in (1, 2):
        out = tmp / f"out{run}"
        rc, text, secs = grade(sub, out, work, flags, env)
        print(f"---- run {run}: tools/grade.py took {secs:.0f} s; it printed:\n{text}----", flush=True)
        check(rc == 0, f"run {run}: the {what} is graded (exit 0)", f"exit {rc}")
        if rc != 0:
            return
        check_run(out, run, text)
        csvs.append((out / "grades.csv").read_bytes())
    check(csvs[0] == csvs[1], "the two runs' grades.csv files are identical")


def finish(name):
    """The last line (tests/test_grading.cpp looks for '<name> tests: all passed') and the exit status."""
    print(f"{name} tests: {'all passed' if not failures else str(len(failures)) + ' FAILED: ' + '; '.join(failures)}")
    sys.exit(1 if failures else 0)


def need_hypothesis(name):
    """For the property tests: hypothesis imported (Debian/Ubuntu python3-hypothesis, which tools/configure.sh
    installs as root). Where this interpreter lacks it (a pyenv or venv python3 first on PATH) and the system's
    /usr/bin/python3 has it, this script runs again under that one; else one skip line with the fix, and the
    last line says '<name> tests: skipped' (run_unit_tests.py reports it), never a silent pass."""
    try:
        import hypothesis  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if os.path.realpath(system) != os.path.realpath(sys.executable) and os.access(system, os.X_OK) and \
            subprocess.run([system, "-c", "import sys, hypothesis; sys.exit(sys.version_info < (3, 10))"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
        print(f"note - {sys.executable} has no hypothesis: running under {system}, which has", flush=True)
        os.execv(system, [system, "-B"] + sys.argv)
    print(f"skip - {name}: the property tests need hypothesis, missing for {sys.executable} "
          "(Debian/Ubuntu: sudo apt-get install python3-hypothesis; elsewhere: python3 -m pip install hypothesis)")
    print(f"{name} tests: skipped (hypothesis is not installed)")
    sys.exit(0)
