"""Slurm's commands as a --slurm run uses them (slurm.py): sbatch, squeue, sacct
and scancel, each by an absolute path taken once (the system's folders, or
--slurm-bin's folder for a cluster whose Slurm lives elsewhere), never through
the inherited PATH, and each started in TRUSTED_CWD: they run as the grader,
so a `squeue` planted in a student's tree or an empty PATH entry must not be
what runs (environment.py says why).

Environments: squeue, sacct and scancel get trusted_env() and SLURM_CONF (a
cluster's configuration file). sbatch gets job_env(): the job it submits is
this grader on a node, which needs the instructor's environment (a loaded
module's compilers, CUDA, MPI), as sbatch's default --export=ALL passes it on;
job_env() keeps that, without loader hooks and empty or relative entries.
"""

import os
import shlex
import subprocess

from .common import SetupError, UsageError
from .environment import SYSTEM_PATH, TRUSTED_CWD, checked_program, job_env, trusted_env

# The folder Slurm's commands are taken from (None: the system's); set by require_commands.
_FOLDER = [None]


def command(name):
    """The absolute path of Slurm's `name` in the chosen folder; UsageError (one line, naming the fix) when it
    is not there or anyone but root or the grader could replace it."""
    folders = [_FOLDER[0]] if _FOLDER[0] else SYSTEM_PATH.split(":")
    for d in folders:
        path = os.path.join(d, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            why = checked_program(path)
            if why:
                raise UsageError(f"--slurm will not run {path}: {why}")
            return path
    where = f"--slurm-bin {_FOLDER[0]}" if _FOLDER[0] else f"the system's folders ({SYSTEM_PATH})"
    raise UsageError(f"--slurm needs Slurm's commands and {name} is not in {where}: pass --slurm-bin DIR, the "
                     "folder of your cluster's sbatch (dirname $(command -v sbatch)), or grade here without --slurm")


def require_commands(options):
    """Takes --slurm-bin (options.slurm_bin, if any) and checks that sbatch and squeue are there: before anything
    is submitted or written."""
    folder = getattr(options, "slurm_bin", None)
    if folder and not (os.path.isabs(folder) and os.path.isdir(folder)):
        raise UsageError(f"--slurm-bin {folder} is not an absolute path of a folder: name the folder of your "
                         "cluster's sbatch, as in --slurm-bin $(dirname $(command -v sbatch))")
    _FOLDER[0] = os.path.realpath(folder) if folder else None
    for name in ("sbatch", "squeue"):
        command(name)


def _env():
    extra = {"SLURM_CONF": os.environ["SLURM_CONF"]} if os.environ.get("SLURM_CONF") else {}
    return trusted_env(extra)


def _run(name, args, env=None):
    """(exit status, stdout, stderr) of Slurm's `name` with `args`; OSError or TimeoutExpired as raised."""
    r = subprocess.run([command(name)] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120, cwd=TRUSTED_CWD, env=env or _env(), close_fds=True)
    return r.returncode, r.stdout, r.stderr


def _slurm(name, args, env=None):
    """A Slurm command's output; SetupError with its message when it fails."""
    try:
        rc, out, err = _run(name, args, env)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SetupError(f"{name} failed: {e}")
    if rc != 0:
        raise SetupError(f"{name} {' '.join(args[:1])} ... failed: {(err or out).strip()}")
    return out


def sbatch(args, command_line):
    """Submits `command_line` (a list) with sbatch's options `args`; returns the job id."""
    out = _slurm("sbatch", ["--parsable"] + args + ["--wrap", "exec " + shlex.join(command_line)], job_env())
    return out.strip().split(";")[0]


def scancel(job_ids):
    _slurm("scancel", list(job_ids))


def queued(job_ids):
    """{job id: [states of its tasks]} of the jobs still pending or running (squeue lists only those). One
    squeue per job: squeue refuses a whole list when one job in it ended long enough ago to be forgotten."""
    left = {}
    for job in job_ids:
        rc, out, err = _run("squeue", ["-h", "-j", job, "-o", "%F %T"])
        if rc != 0:
            if "Invalid job id" in err:  # ended, and forgotten since
                continue
            raise SetupError(f"squeue failed: {err.strip()}")
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2:
                left.setdefault(parts[0], []).append(parts[1])
    return left


def final_states(job_ids):
    """How the jobs' tasks ended, from Slurm's accounting ({'12_3': 'FAILED 1:0'}); {} where sacct has no
    accounting to ask (a cluster without slurmdbd), or is not installed."""
    try:
        rc, out, _ = _run("sacct", ["-X", "-n", "-P", "-j", ",".join(job_ids), "-o", "JobID,State,ExitCode"])
    except (OSError, subprocess.TimeoutExpired, UsageError):
        return {}
    if rc != 0:
        return {}
    states = {}
    for line in out.splitlines():
        parts = line.split("|")
        if len(parts) == 3:
            states[parts[0]] = f"{parts[1]} {parts[2]}"
    return states
