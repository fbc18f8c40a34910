"""The command line (`python3 tools/grade.py SUBMISSIONS --lab N [flags]`, or
`make grade`): its flags, every check of the input made before anything is
written (a bad command line, an unknown lab, an OUT that cannot be written,
a weights file that cannot be read, a missing tool: one line, exit 2), and
the exit statuses: 0 graded, 1 this machine or checkout cannot grade, 2 bad
input, 130 interrupted (nothing written). The flags and the checks are
options.py; class_run.py does the grading."""

import signal
import sys

from . import catalog, class_run, sandbox, slurm
from .common import PROG, SetupError, UsageError
from .options import Inputs, check_inputs, parse_args, resolve_lab  # noqa: F401 (cli.parse_args, ...: the tests use them)


def main(argv):
    if argv[:1] == ["--slurm-worker"]:  # a job that --slurm submitted (slurm.py)
        return slurm.worker(argv[1:])
    labs = catalog.read_catalog()
    options = parse_args(argv, labs)
    inputs = check_inputs(options, labs)
    if options.slurm:
        return slurm.grade_class_slurm(inputs, list(argv))
    return class_run.grade_class(inputs)


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
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except SetupError as e:
        print(f"{PROG}: cannot grade: {e}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, sandbox.Stopped):
        print(f"{PROG}: interrupted: nothing written", file=sys.stderr)
        return 130
