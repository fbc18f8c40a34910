"""The grader's side of "a trusted checker, an untrusted runner"
(handouts/grading.md, "How the verdict is made"; harness/runner/protocol.h):

  the CHECKER  build/bin/labN/mmlab-checker-tests (and mmlab-checker for --perf),
               built once in the starter tree WITHOUT any student's code or the
               references; it runs here, outside the sandbox (it is our code),
               with a wall-clock limit, and writes its report into a folder of
               the grader's that no student process can write;
  the RUNNER   build/bin/labN/mmlab-runner, built in each student's tree from
               their files; the checker starts it INSIDE the sandbox through the
               command line this module puts in MML_RUNNER.

So the verdict (pass/fail, the report file, the exit status) never comes from
a process that holds student code. This module knows the programs' paths, the
command lines and environments, runs the checker, reads what a runner's
failure looks like in the report (the texts of harness/runner/checker.h), and
what the runner printed (the checker keeps it apart from the channel: printing
is allowed and costs nothing; the feedback shows the start of it).
"""

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from .environment import TRUSTED_CWD, private_tmp, system_program, trusted_env
from .sandbox import hand_over, run_in_group, sandbox_command

# harness/runner/checker.h: a runner's failure starts with RUNNER_PREFIX; the
# one that is a time-out contains RUNNER_TIMEOUT; a test that calls student
# code directly makes the checker exit with DIRECT_CALL_EXIT, printing DIRECT_CALL_MARKER.
RUNNER_PREFIX = "the runner "
RUNNER_TIMEOUT = "the runner did not answer within"
DIRECT_CALL_EXIT = 86
DIRECT_CALL_MARKER = "[mml-direct-call]"
# How much longer than the test's own limit (which the checker applies to its
# runner) the checker itself may take before it is killed: time to kill the
# runner and write its report.
CHECKER_GRACE_SECONDS = 10
# How much of what a runner printed in one test the feedback shows (the
# checker keeps the first 64 KiB: harness/runner/runner_process.h, kKeptOutputBytes).
OUTPUT_SHOWN_BYTES = 2048
OUTPUT_SHOWN_LINES = 20


@dataclass
class Programs:
    """The grader's programs of one lab (make checker runner reference-runner student-tests LAB=N)."""
    base: Path    # the built starter tree: the checker and the reference runner are used from here
    lab: int

    def bin(self, tree, name):
        return tree / "build" / "bin" / f"lab{self.lab}" / name

    @property
    def checker_tests(self):
        return self.bin(self.base, "mmlab-checker-tests")

    @property
    def checker_mmlab(self):
        return self.bin(self.base, "mmlab-checker")

    @property
    def reference_runner(self):
        # In a folder of its own: the programs it starts (lab 12's MPI programs, built with the references)
        # are found beside it.
        return self.bin(self.base, "reference") / "mmlab-runner"

    def runner(self, tree):
        """The runner built in a tree (a student's, or the starter tree for calibration)."""
        return self.bin(tree, "mmlab-runner")

    def student_tests(self, tree):
        """The tests linked with the student's code (only for tests that call it directly)."""
        return self.bin(tree, "mmlab-student-tests")

    def make_goals(self, *goals):
        return list(goals) + [f"LAB={self.lab}"]


def runner_line(programs, tree, limits, timeout):
    """MML_RUNNER: the student's runner (built in `tree`), started by the checker inside the sandbox at
    limits' level, writable folder `tree`, as a shell command line. Its TMPDIR is its own, in its tree: the
    checker's (run_trusted's private folder) is not the student's to see or write."""
    hand_over(tree, limits.user)  # the tree the runner may write is the grading user's (when that is not us)
    cmd = [system_program("env"), f"TMPDIR={tree / '.tmp'}", programs.runner(tree)]
    return shlex.join(sandbox_command(cmd, tree, tree, limits, timeout * 4 + 10))


def checker_env(tree, impl, runner, reference_runner, timeout, programs, limits=None, output_path=None,
                cgroup_procs=(), gpu_env=None):
    """The checker's environment: which version the tests run, its runners, the time it may wait for them,
    where what the student's runner prints goes (MML_RUNNER_OUTPUT: a file of the grader's, outside the
    sandbox; see runner_output), and, when the grader is root, the unprivileged user its student runner runs
    as (MML_RUNNER_USER, uid:gid: the checker switches to it in the runner's process before anything else,
    harness/runner/runner_process.cpp), and the group it joins first (MML_RUNNER_CGROUP: cgroup_procs, the
    cgroup.procs files of a limits.Group), and gpu_env: the GPU leased to this run (gpu_lease.py), which
    the checker passes on to the runners."""
    env = {"MML_IMPL": impl, "MMLAB": str(programs.checker_mmlab), "MML_RUNNER_TIMEOUT": f"{timeout:g}"}
    if output_path:
        env["MML_RUNNER_OUTPUT"] = str(output_path)
    if runner:
        env["MML_RUNNER"] = runner
        user = limits.user if limits else None
        if user and user.switch:
            env["MML_RUNNER_USER"] = f"{user.uid}:{user.gid}"
        if cgroup_procs:
            env["MML_RUNNER_CGROUP"] = ":".join(cgroup_procs)
    if reference_runner:
        env["MML_REFERENCE_RUNNER"] = shlex.quote(str(reference_runner))
    env.update(gpu_env or {})
    return trusted_env(env)


def run_trusted(cmd, log_path, timeout, env):
    """Runs our own program (the checker) OUTSIDE the sandbox, with a wall-clock limit only: its runner is
    sandboxed, it is not (it must write the report where the runner cannot). It starts in TRUSTED_CWD, never
    a student's tree, with `env` from trusted_env (checker_env): environment.py says why; its TMPDIR a
    private folder of the grader's (0700), made for this run and removed after it, never in a student's
    tree. stdout+stderr go to log_path. Returns (exit code, timed out, seconds); at the limit its process
    group is killed."""
    with private_tmp() as tmp:
        return run_in_group(cmd, TRUSTED_CWD, dict(env, TMPDIR=tmp), log_path, timeout)


def runner_failure(text):
    """'timeout' or 'crashed' when a test's failure text is a runner's failure (the checker's words), else None."""
    if RUNNER_TIMEOUT in text:
        return "timeout"
    if RUNNER_PREFIX in text:
        return "crashed"
    return None


# The checker's words for a runner's failure (harness/runner/runner_process.cpp: fail, gone, ended_text,
# timed_out; checker.cpp: in_context) and the same in a student's: the runner is the grader's name for the
# process that holds their code, which they know as "your code". In order: the first that matches is used.
_WHEN = r" (?:while receiving a request|while answering|before answering)"
STUDENT_WORDS = [
    (r", while running (\S+) at M x N x K = (\d+) x (\d+) x (\d+)", r" while running \1 at \2x\3x\4"),
    (r"the runner did not answer within the test's time limit \((\d+) s\): an endless loop, or far too slow",
     r"did not finish within the test's \1 s limit (an endless loop, or far too slow)"),
    (r"the runner crashed: ([^,;\n]*?)" + _WHEN, r"your code ended with \1"),
    (r"the runner exited \(([^)]*)\)" + _WHEN, r"your code exited (\1) before returning"),
    (r"the runner could not be started \(([^)]*)\)" + _WHEN, r"your code could not be started (\1)"),
    (r"the runner closed its end of the channel" + _WHEN, "your code closed the connection the test calls it through"),
    (r"the runner broke the protocol: ", "your code broke the protocol the test calls it through: "),
    (r"the runner could not be watched: ", "the grading machine could not watch your code: "),
    (r"the runner is not configured: [^\n]*", "the grading setup cannot run your code (a fault of the setup, "
     "not of your code: your instructor regrades it)"),
    (r"\bthe runner\b", "your code"),
]


def student_words(text):
    """A runner's failure as a student reads it: "your code" for the runner, the test's shape as 64x64x64,
    signals by name and what they mean (as ended_text says them), the limit once."""
    for pattern, words in STUDENT_WORDS:
        text = re.sub(pattern, words, text)
    return text


def runner_output(path):
    """What the student's runner printed in one checker run, for the feedback: '' when nothing, else a header
    saying how much it printed and that it costs nothing, then at most OUTPUT_SHOWN_LINES lines /
    OUTPUT_SHOWN_BYTES bytes of it, each line prefixed with '| '. The file (written by the checker, never by
    the runner: MML_RUNNER_OUTPUT) starts with 'mmlab-runner-output total=N kept=K'."""
    try:
        with open(path, "rb") as f:
            head = f.readline(200)
            data = f.read(OUTPUT_SHOWN_BYTES)
    except OSError:
        return ""
    m = re.match(rb"mmlab-runner-output total=([0-9]+) kept=([0-9]+)\n$", head)
    if not m:
        return ""
    total = int(m.group(1))
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    shown = ["".join(c if c.isprintable() or c == "\t" else "\ufffd" for c in line)[:200]
             for line in lines[:OUTPUT_SHOWN_LINES]]
    cut = total > len(data) or len(lines) > OUTPUT_SHOWN_LINES
    return (f"Your code printed {total} byte{'s' if total != 1 else ''} (printing is allowed and costs nothing"
            + (f"; the first {len(shown)} line{'s' if len(shown) != 1 else ''} shown" if cut else "") + "):\n"
            + "\n".join("| " + line for line in shown))
