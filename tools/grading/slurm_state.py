"""The Slurm run's state folder (.OUT.slurm/, slurm.py describes it): where it
is, and the plan that the prepare job hands to the tasks and the driver
(slurm.py, slurm_worker.py). Its JSON files, fingerprints and rows are those
of any run that can be resumed (run_state.py, shared with resume.py)."""

import dataclasses
from pathlib import Path

from . import checker, sandbox
from . import limits as cgroup_limits
from .calibration import Calibration
from .class_run import Starter
# The state both kinds of run share (run_state.py), under the names slurm.py and slurm_worker.py use.
from .run_state import read_json, read_row, row_to_json, settings_fingerprint, submission_fingerprint, \
    write_json  # noqa: F401


def state_dir(out):
    return out.parent / f".{out.name}.slurm"


# ---------------------------------------------------------------- the plan (prepare job -> tasks, driver)

def plan_to_json(starter, cal, limits, notes):
    return {"base": str(starter.base), "commit": starter.commit, "notes": starter.notes,
            "lab_files": starter.lab_files, "tests": [list(t) for t in starter.tests], "gpu_note": starter.gpu_note,
            "lab": starter.programs.lab if starter.programs else None,
            "mode": limits.mode, "user": dataclasses.asdict(limits.user) if limits.user else None,
            "extra_dirs": [str(d) for d in limits.extra_dirs],
            # How the prepare job's node counts memory and processes per sandbox (or why it cannot): the
            # summary states it, as a local run's does.
            "cgroups": {"how": limits.cgroups.how, "why": limits.cgroups.why} if limits.cgroups else None,
            "memory_mb": limits.memory_mb, "nproc": limits.nproc,
            "containment_notes": notes,
            "calibration": {"weights": cal.weights, "free": sorted(cal.free), "lines": cal.lines,
                            "auto_timeouts": cal.auto_timeouts, "in_process": sorted(cal.in_process)}}


def plan_from_json(plan):
    programs = checker.Programs(Path(plan["base"]), plan["lab"]) if plan.get("lab") is not None else None
    starter = Starter(Path(plan["base"]), plan["commit"], plan["notes"], plan["lab_files"],
                      [tuple(t) for t in plan["tests"]], plan["gpu_note"], programs)
    c = plan["calibration"]
    cal = Calibration(c["weights"], set(c["free"]), c["lines"], c["auto_timeouts"], set(c.get("in_process", [])))
    user = sandbox.User(**plan["user"]) if plan.get("user") else None
    cg = plan.get("cgroups")
    limits = sandbox.Limits(plan["mode"], 0, 0, plan.get("nproc", 0), user=user,  # for summary.txt: the level,
                            extra_dirs=tuple(Path(d) for d in plan.get("extra_dirs", [])),  # the user, the folders,
                            cgroups=cgroup_limits.Cgroups(cg["how"], why=cg["why"]) if cg else None,  # the limits
                            memory_mb=plan.get("memory_mb", 0))
    return starter, cal, limits, plan["containment_notes"]
