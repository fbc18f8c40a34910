"""The command line (`python3 tools/grade.py SUBMISSIONS --lab N [flags]`, or
`make grade`): its flags, every check of the input made before anything is
written (a bad command line, an unknown lab, an OUT that cannot be written,
a weights file that cannot be read, a missing tool: one line, exit 2), and
the exit statuses: 0 graded, 1 this machine or checkout cannot grade (bubblewrap
missing or not working, and no weaker level named: sandbox.refusal), 2 bad
input, 130 interrupted (nothing written to OUT; the students done so far are
kept beside it for the rerun: resume.py). class_run.py does the grading."""

import argparse
import os
import re
import shutil
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from . import catalog, class_run, environment, escape, install, intake, outputs, sandbox, score, similarity, slurm, \
    slurm_worker
from .calibration import AUTO_TIMEOUT_FACTOR, AUTO_TIMEOUT_MAX, AUTO_TIMEOUT_MIN
from .common import PROG, REPO, SetupError, UsageError


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see: python3 tools/grade.py --help)")


def parse_args(argv, labs):
    """The command line, checked; labs: the catalog (for --lab's help)."""
    p = Parser(prog="tools/grade.py", description="Grade a folder of lab submissions (one sub-folder per student).",
               epilog="The instructors' manual is handouts/grading.md.")
    p.add_argument("submissions", help="folder with one sub-folder per student")
    p.add_argument("--lab", required=True,
                   help=f"lab number ({catalog.number_list(lab.number for lab in labs)}; labs/catalog.txt lists them)")
    p.add_argument("--out", help="output folder (default: grades-labN); replaced as a whole at the end (an "
                   "interrupted run keeps its students beside it: the same command grades only the rest)")
    p.add_argument("-j", "--jobs", type=int, default=1, help="students graded at the same time (default 1)")
    p.add_argument("--build-jobs", type=int, default=0, help="make -j for each build (default: cores / jobs)")
    p.add_argument("--weights", help="weights file (default: tools/grading/labN.weights if it exists)")
    p.add_argument("--build-timeout", type=float, default=600, help="seconds for one student's build (default 600)")
    p.add_argument("--test-timeout", type=float, default=None,
                   help=f"seconds for one test case (default: {AUTO_TIMEOUT_FACTOR:g}x the reference's time for it on "
                        f"this machine, at least {AUTO_TIMEOUT_MIN:g} and at most {AUTO_TIMEOUT_MAX:g})")
    p.add_argument("--student-budget", type=float, default=900,
                   help="seconds of tests per student; tests after it is spent score 0 (default 900)")
    p.add_argument("--memory-mb", type=int, default=4096,
                   help="memory of each sandbox in MiB, shared memory included, where a cgroup can be made (see "
                        "summary.txt); also address space per process in CPU labs (default 4096)")
    p.add_argument("--max-output-mb", type=int, default=64, help="largest file a student's process may write (default 64)")
    p.add_argument("--max-procs", type=int, default=256, help="extra processes a student's code may start (default 256)")
    p.add_argument("--sandbox", choices=["auto"] + list(sandbox.LEVELS), default="auto",
                   help="containment level (default auto: bwrap, installed as root where missing; without it the "
                        "grader refuses to grade: name a weaker level to accept it: unshare, net, none; "
                        "handouts/grading.md says what each protects)")
    p.add_argument("--perf", action="store_true",
                   help="also run `mmlab lab N` and score the lab's performance target (off by default: noisy)")
    p.add_argument("--perf-points", type=float, default=1.0, help="points for the target with --perf (default 1)")
    p.add_argument("--perf-threads", type=int, default=0, help="threads for --perf (default: all cores)")
    p.add_argument("--perf-size", help="sizes for --perf, as mmlab --size takes them (default: the lab's own)")
    p.add_argument("--similarity", action="store_true",
                   help="also rank the pairs of submissions that share code beyond the starter (OUT/similarity.html and "
                        "similarity.csv; never changes a score: handouts/grading.md)")
    p.add_argument("--similarity-min", metavar="P",
                   help="with --similarity (implied): pairs scoring P%% or more are shown side by side in "
                        f"similarity.html (a number from 0 to 100; default {100 * similarity.SHOW_AT:g})")
    p.add_argument("--fresh-build", action="store_true",
                   help="do not start from this checkout's build/ (slower; use if build/ may be stale)")
    p.add_argument("--work", help="folder for the temporary build trees (default: the system's temp folder)")
    p.add_argument("--keep", action="store_true", help="keep the temporary build trees (for debugging)")
    g = p.add_argument_group("Slurm", "grade the class as Slurm jobs (handouts/grading.md, 'A whole class on a "
                             "cluster'); a rerun grades only the students not graded yet")
    g.add_argument("--slurm", action="store_true", help="submit the class as a Slurm job array, wait, write OUT")
    g.add_argument("--slurm-chunk", type=int, default=1, help="students per array task (default 1)")
    g.add_argument("--slurm-cpus", type=int, default=2, help="CPUs per task (sbatch --cpus-per-task; default 2)")
    g.add_argument("--slurm-options", default="",
                   help="more sbatch options, e.g. \"-p gpu -A course42 --mem=8G\" (they win over the grader's)")
    g.add_argument("--slurm-bin", help="the folder of the cluster's sbatch, squeue, sacct (default: the system's "
                   "folders; the grader never takes them from PATH)")
    g.add_argument("--slurm-poll", type=float, default=10, help="seconds between two looks at the queue (default 10)")
    a = p.parse_args(argv)
    if not re.fullmatch(r"[0-9]+", a.lab):
        example = labs[0].number if labs else 1
        raise UsageError(f"--lab must be a lab number such as {example}, not '{a.lab}'")
    a.lab = int(a.lab)
    for name in ("jobs", "build_jobs", "memory_mb", "max_output_mb", "max_procs", "perf_threads", "slurm_chunk",
                 "slurm_cpus"):
        if getattr(a, name) < (1 if name in ("jobs", "max_output_mb", "max_procs", "slurm_chunk", "slurm_cpus") else 0):
            raise UsageError(f"--{name.replace('_', '-')} must be a positive number")
    if a.similarity_min is not None:
        a.similarity_min = similarity_share(a.similarity_min)
        a.similarity = True
    if a.perf_size is not None and not re.fullmatch(r"[0-9A-Za-z,]+", a.perf_size):
        raise UsageError(f"--perf-size takes mmlab's --size list (e.g. 256 or 300x200x100,512), not '{a.perf_size}'")
    for name in ("build_timeout", "test_timeout", "student_budget", "slurm_poll"):
        if name == "test_timeout" and a.test_timeout is None:
            continue  # auto
        if not getattr(a, name) > 0:
            raise UsageError(f"--{name.replace('_', '-')} must be more than 0 seconds")
    return a


def similarity_share(text):
    """--similarity-min's P (a percentage, "60" or "60%") as a share from 0 to 1, or a UsageError naming the fix."""
    try:
        p = float(text.strip().removesuffix("%"))
    except ValueError:
        p = None
    if p is None or not 0 <= p <= 100:  # (NaN is neither: refused too)
        raise UsageError(f"--similarity-min takes a percentage from 0 to 100 (e.g. --similarity-min 40), not '{text}'")
    return p / 100


def resolve_lab(labs, number):
    """The catalog's entry for lab `number`, which must have a starter to grade against."""
    with_starter = [lab.number for lab in labs if (REPO / lab.folder).is_dir()]
    lab = catalog.find_lab(labs, number)
    if lab is None:
        raise UsageError(f"unknown lab {number}: labs here are {', '.join(map(str, with_starter))}")
    if lab.number not in with_starter:
        raise UsageError(f"lab {number} has no starter code yet (no {lab.folder}/): labs with a starter: "
                         f"{', '.join(map(str, with_starter))}")
    return lab


@dataclass
class Inputs:
    """The command line's input, checked: what class_run.grade_class works on."""
    options: argparse.Namespace
    lab: catalog.Lab
    submissions: Path
    students: list         # the student folders
    stray: list            # names of the entries that are not student folders (summary.txt names them)
    out: Path
    weights_path: Path
    given_weights: dict    # the weights file's {test case: points} ({} without one)
    user: sandbox.User     # who student code runs as (sandbox.grading_user)


def check_inputs(options, labs):
    """Every check that needs no build; raises UsageError (one line, exit 2) at the first that fails."""
    lab = resolve_lab(labs, options.lab)
    sub = Path(options.submissions).expanduser()
    students, stray = intake.student_folders(sub)
    out = outputs.check_out(Path(options.out or f"grades-lab{lab.number}").expanduser(), sub)
    seen = {}
    for st in students:
        key = outputs.safe_name(st.name)
        if key in seen:
            raise UsageError(f"student folders '{seen[key]}' and '{st.name}' would share the output folder "
                             f"'{key}': rename one")
        seen[key] = st.name
    weights_path = Path(options.weights) if options.weights else score.default_weights_path(lab.number)
    if options.weights and not weights_path.is_file():
        raise UsageError(f"weights file {weights_path} does not exist")
    given_weights = score.read_weights(weights_path) if weights_path.is_file() else {}
    if lab.needs_mpi:  # taken once, here: every later program gets this path, never a PATH to search
        mpirun, why = environment.find_mpirun()
        if not mpirun:
            raise UsageError(why)
        environment.pin_mpirun(mpirun)
    nvcc = shutil.which("nvcc") or (os.access("/usr/local/cuda/bin/nvcc", os.X_OK) and "/usr/local/cuda/bin/nvcc")
    if lab.needs_cuda and not nvcc:
        raise UsageError(f"lab {lab.number} is a GPU lab and this machine has no CUDA toolkit (nvcc): grade it on a "
                         "machine with nvcc and an NVIDIA GPU")
    for tool in ("make", "bash", "g++"):  # bash runs the sandbox as the grader: the system's, never PATH's
        if not (environment.system_program(tool) if tool == "bash" else shutil.which(tool)):
            raise UsageError(f"'{tool}' is not installed here: grading builds the code (see README.md)")
    if options.work and not Path(options.work).is_dir():
        raise UsageError(f"--work {options.work} is not a folder")
    return Inputs(options, lab, sub, students, stray, out, weights_path, given_weights, sandbox.grading_user())


def main(argv):
    sandbox.become_subreaper()  # the sandboxes' orphans are ours to reap, not a container's PID 1's
    if argv[:1] == ["--slurm-worker"]:  # a job that --slurm submitted (slurm_worker.py)
        return slurm_worker.worker(argv[1:], read_inputs)
    labs = catalog.read_catalog()
    options = parse_args(argv, labs)
    inputs = check_inputs(options, labs)
    install.ensure_bubblewrap(options.sandbox)  # the default level's tool, where the grader may install it
    if options.slurm:
        return slurm.grade_class_slurm(inputs, list(argv))
    return class_run.grade_class(inputs)


def read_inputs(argv):
    """The command line `argv`, parsed and checked: what a Slurm job reads back from its run."""
    labs = catalog.read_catalog()
    return check_inputs(parse_args(argv, labs), labs)


def interrupted(signum, frame):
    raise KeyboardInterrupt  # SIGTERM, SIGHUP: the same clean exit as Ctrl-C (nothing written, nothing left running)


def command_line(argv):
    """tools/grade.py's whole life: returns its exit status, errors as one line on stderr."""
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, interrupted)
    for stream in (sys.stdout, sys.stderr):  # a student's name a terminal cannot show must not stop the grading
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        return main(argv)
    except UsageError as e:
        print(f"{PROG}: error: {escape.line(e)}", file=sys.stderr)
        return 2
    except SetupError as e:
        print(f"{PROG}: cannot grade: {escape.line(e)}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, sandbox.Stopped):
        print(f"{PROG}: interrupted: nothing written to OUT", file=sys.stderr)
        return 130
