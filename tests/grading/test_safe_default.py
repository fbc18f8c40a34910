#!/usr/bin/env python3
"""Safe by default (issue 35, item 0): tools/grade.py grades at the bwrap
level or not at all, unless the instructor names a weaker level.

  reader     a lab 1 submission whose loop orders open another student's
             file (by the submissions folder's path, and through the other
             build trees beside its own), solutions/ (its own tree's, the
             starter tree's and this checkout's) and print what they read,
             graded beside that other student at bwrap and at unshare (each
             where it works here): no byte of either reaches the feedback,
             results.json, grades.csv or summary.txt. The same class at `net`
             (no hiding) is the control: there the reader must print both,
             or the check above proves nothing.
  refusal    on a machine without bubblewrap (simulated: a mount namespace
             in which the system's bwrap is an empty file), NO_INSTALL=1:
             exit 1, one line naming the problem, the install line and the
             level to name instead, and nothing in OUT or beside it; a bwrap
             that cannot create its sandbox: the line says so, with what bwrap
             said; as root, a failing apt-get: one line per step, its output,
             then the refusal.
  user       the same without bubblewrap as a plain user: the line to run,
             `sudo apt-get install bubblewrap`.

What cannot run here (no mount namespace, a level that does not work) says
`skip - ` and why. Run from the repository root (make test-all runs it
through tests/test_grading_sandbox.cpp); a minute or two on 2 cores.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
import checks  # noqa: E402 (after: no __pycache__ in the checkout)
from checks import GRADE, REPO, check  # noqa: E402
from grading import sandbox  # noqa: E402
from grading.common import SetupError, UsageError  # noqa: E402
from grading.environment import SYSTEM_PATH_DIRS  # noqa: E402
from hostile_probes import with_probes, write  # noqa: E402

VICTIM_MARK = "VICTIM-SECRET-35f1c0de"        # the other student's file starts with it
SOLUTION_MARK = "Lab 1 reference: the triple loop"  # the first line of solutions/lab1/loop_orders.cpp, only there
NOBODY = 65534

# Prints the head of a file (newlines as spaces), when it opens and is not empty (a masked file is).
READER_TOP = r'''
namespace reader {
inline void show(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return;
    char b[160] = {};
    const std::size_t n = std::fread(b, 1, sizeof b - 1, f);
    std::fclose(f);
    for (std::size_t i = 0; i < n; ++i) if (b[i] == '\n' || b[i] == '\r') b[i] = ' ';
    if (n) std::printf("READ %s: %s\n", path.c_str(), b);
}
inline void show_all(const std::string& folder, const std::string& rel) {  // rel in every sub-folder
    if (DIR* d = opendir(folder.c_str())) {
        while (dirent* e = readdir(d)) if (e->d_name[0] != '.') show(folder + "/" + e->d_name + "/" + rel);
        closedir(d);
    }
}
}  // namespace reader
'''


def handed_in(first_line):
    """The lab 1 reference as handed in, its first line (the solution's: SOLUTION_MARK) replaced."""
    files = checks.lab1_as_handed_in()
    text = files["loop_orders.cpp"]
    files["loop_orders.cpp"] = first_line + "\n" + text.split("\n", 1)[1]
    assert SOLUTION_MARK not in files["loop_orders.cpp"]
    return files


def make_class(sub):
    write(sub / "victim" / "labs" / "lab1", handed_in(f"// {VICTIM_MARK}"))
    write(sub / "reader" / "labs" / "lab1", with_probes(handed_in("// the reader"), {
        "ijk": f'reader::show("{sub}/victim/labs/lab1/loop_orders.cpp");',
        "ikj": 'reader::show_all("..", "labs/lab1/loop_orders.cpp");',
        "jik": 'reader::show("solutions/lab1/loop_orders.cpp"); '
               'reader::show("../base/solutions/lab1/loop_orders.cpp");',
        "jki": f'reader::show("{REPO}/solutions/lab1/loop_orders.cpp");',
        "kij": f'reader::show_all("{sub}", "labs/lab1/loop_orders.cpp");',
        "kji": 'reader::show_all("/tmp", "submissions/victim/labs/lab1/loop_orders.cpp");',
    }, extra_top=READER_TOP))


def level_works(level, tmp):
    try:
        sandbox.probe_sandbox(level, tmp / f"probe-{level}")
        return True
    except (SetupError, UsageError) as e:
        print(f"skip - the reader at --sandbox {level}: that level does not work here ({e})", flush=True)
        return False


def reader_checks(tmp, sub):
    for level in ("bwrap", "unshare", "net"):
        if not level_works(level, tmp):
            continue
        out, work = tmp / f"out-{level}", tmp / f"work-{level}"
        work.mkdir()
        os.chmod(work, 0o711)
        rc, text, secs = checks.grade(sub, out, work, ["--sandbox", level, "--test-timeout", "30"])
        print(f"note - graded at {level} in {secs:.0f} s", flush=True)
        if rc != 0:
            check(False, f"{level}: the class is graded (exit 0)", text[-2000:])
            continue
        shown = "".join(p.read_text(errors="replace") for p in
                        [out / "reader" / "feedback.txt", out / "reader" / "results.json", out / "grades.csv",
                         out / "summary.txt"])
        leaked = [m for m in (VICTIM_MARK, SOLUTION_MARK) if m in shown]
        if level == "net":  # the control: nothing hidden, so the reader's probes must have printed both
            check(leaked == [VICTIM_MARK, SOLUTION_MARK] and "READ " in shown,
                  "net (the control, nothing hidden): the reader printed the other student's file and the solution",
                  shown[:1500])
        else:
            check(not leaked, f"{level}: no byte of the other student's file or of solutions/ reaches the reader's "
                  "feedback, results.json, grades.csv or summary.txt", f"found {leaked}")
            check("Score: 6 / 6" in (out / "reader" / "feedback.txt").read_text(errors="replace"),
                  f"{level}: the reader still scores 6/6 (reading is not an error, it just finds nothing)")


def namespace_prefix(tmp, fakes, hide_bwrap=True):
    """A command prefix that runs a program in a mount namespace of its own where the system's bwrap is an empty
    file (hide_bwrap) and `fakes` {name: script} come first in the system's folders; None (and why) where no
    mount namespace can be made here."""
    if os.geteuid() != 0:
        return None, "not root: a mount namespace hiding the system's bwrap needs root"
    if not shutil.which("unshare"):
        return None, "util-linux unshare is not installed"
    fake_dir = tmp / "fake-bin"
    shutil.rmtree(fake_dir, ignore_errors=True)
    fake_dir.mkdir()
    for name, script in fakes.items():
        (fake_dir / name).write_text(script)
        os.chmod(fake_dir / name, 0o755)
    empty = tmp / "empty-file"
    empty.write_text("")
    os.chmod(empty, 0o644)
    reals = {os.path.realpath(os.path.join(d, "bwrap")) for d in SYSTEM_PATH_DIRS} if hide_bwrap else set()
    binds = " && ".join([f"mount --bind {empty} {r}" for r in sorted(reals) if os.path.isfile(r)]
                        + [f"mount --bind {fake_dir} {SYSTEM_PATH_DIRS[0]}"]) or "true"
    prefix = ["unshare", "--mount", "--propagation", "private", "bash", "-c", f'{binds} && exec "$@"', "ns"]
    r = subprocess.run(prefix + ["true"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        return None, f"no mount namespace here ({r.stdout.strip()[:200]})"
    return prefix, ""


def refused(tmp, sub, name, prefix, env, user=None):
    """tools/grade.py under `prefix`: checks that it refused (exit 1, its last line the one error line) and left
    nothing in or beside OUT or in its work folder; returns what it printed on stderr."""
    top = tmp / f"refusal-{name}"
    top.mkdir()
    work = top / "work"
    work.mkdir()
    out = top / "out"
    if user:
        for d in (top, work):
            os.chown(d, user, user)
    runas = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] if user else []
    # (a plain user runs the system's python3: this one may live in root's home, a pyenv)
    grade = (["/usr/bin/python3"] + GRADE[1:]) if user and os.access("/usr/bin/python3", os.X_OK) else GRADE
    r = subprocess.run(prefix + runas + grade + [str(sub), "--lab", "1", "--out", str(out), "--work", str(work)],
                       cwd=REPO if not user else "/", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=env, timeout=600)
    lines = r.stderr.strip().split("\n")
    check(r.returncode == 1 and lines[-1].startswith("grade: cannot grade: ") and not r.stdout.strip(),
          f"{name}: exit 1, the last line the refusal, nothing graded", f"exit {r.returncode}\n{r.stderr[-1500:]}")
    left = sorted(p.name for p in top.iterdir()) + sorted(p.name for p in work.iterdir())
    check(left == ["work"], f"{name}: nothing written: no OUT, nothing beside it, no work folder left", str(left))
    return r.stderr


def refusal_checks(tmp, sub):
    env = dict(os.environ, NO_INSTALL="1")
    prefix, why = namespace_prefix(tmp, {})
    if prefix is None and not sandbox.system_program("bwrap") and os.geteuid() != 0:
        prefix, why = [], ""  # a plain user on a machine without bubblewrap: the real thing
    if prefix is None:
        print(f"skip - the refusal without bubblewrap: {why}", flush=True)
        return
    err = refused(tmp, sub, "no bubblewrap, NO_INSTALL=1", prefix, env)
    last = err.strip().split("\n")[-1]
    check("bubblewrap (bwrap) is not installed" in last and "sudo apt-get install bubblewrap" in last
          and any(f"--sandbox {level}" in last for level in sandbox.LEVELS[1:]),
          "no bubblewrap: the line names the problem, the install line and the weaker level to name instead", last)
    check("grade: apt-get" not in err, "NO_INSTALL=1: nothing installed (no apt-get step)", err)

    if os.geteuid() == 0:  # as a plain user
        if not _readable_by(NOBODY, REPO / "tools" / "grading" / "cli.py"):
            print("skip - the refusal as a plain user: this checkout is not readable by nobody", flush=True)
            return
        for d in (tmp, sub):
            os.chmod(d, 0o755)
        err = refused(tmp, sub, "no bubblewrap, a plain user", prefix, dict(os.environ), user=NOBODY)
        last = err.strip().split("\n")[-1]
        check("sudo apt-get install bubblewrap" in last and "apt-get install bubblewrap (" not in err,
              "a plain user: the line to run is `sudo apt-get install bubblewrap`; nothing is installed", err)
        os.chmod(tmp, 0o711)

    broken = "#!/bin/sh\ncase \"$1\" in --help) echo 'usage: bwrap --size';; *) " \
             "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1;; esac\n"
    prefix, why = namespace_prefix(tmp, {"bwrap": broken}, hide_bwrap=False)
    if prefix is None:
        print(f"skip - a bwrap that cannot run: {why}", flush=True)
    else:
        last = refused(tmp, sub, "bwrap that cannot run", prefix, env).strip().split("\n")[-1]
        check("installed but cannot create its sandbox here (bwrap: setting up uid map: Permission denied)" in last
              and "user namespaces" in last and "--sandbox " in last,
              "a bwrap that cannot run: what it said, how to allow it, the weaker level to name instead", last)

    log = tmp / "apt-get.log"
    failing_apt = f"#!/bin/sh\necho \"$*\" >> {log}\ncase \"$1\" in update) echo 'Reading package lists...';; " \
                  "*) echo 'E: Unable to locate package bubblewrap'; exit 100;; esac\n"
    prefix, why = namespace_prefix(tmp, {"apt-get": failing_apt})
    if prefix is None:
        print(f"skip - installing bubblewrap as root: {why}", flush=True)
        return
    err = refused(tmp, sub, "root, apt-get failing", prefix, dict(os.environ))
    steps = [line for line in err.split("\n") if line.startswith("grade: apt-get")]
    calls = log.read_text().split("\n") if log.exists() else []
    check([s.split(" (")[0] for s in steps] == ["grade: apt-get install bubblewrap", "grade: apt-get update",
                                               "grade: apt-get install bubblewrap", "grade: apt-get install bubblewrap"]
          and "failed (exit 100); its output:" in steps[-1] and "  | E: Unable to locate package bubblewrap" in err
          and calls[:3] == ["install -y -q bubblewrap", "update -q", "install -y -q bubblewrap"],
          "root with apt-get: install, update, install again, one line each; apt-get's output only for the failure",
          err + "\n" + "\n".join(calls))
    check("(apt-get failed: above)" in err.strip().split("\n")[-1], "then the refusal, saying apt-get failed", err)


def _readable_by(uid, path):
    r = subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "test", "-r", str(path)])
    return r.returncode == 0


def main():
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-safe-default-"))
    os.chmod(tmp, 0o711)  # as a grading folder: the grading user (root: nobody) gets through
    try:
        sub = tmp / "submissions"
        make_class(sub)
        os.chmod(sub, 0o755)
        refusal_checks(tmp, sub)
        reader_checks(tmp, sub)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    checks.finish("safe-default grading")
