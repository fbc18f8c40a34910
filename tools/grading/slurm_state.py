"""The Slurm run's state folder (.OUT.slurm/, slurm.py describes it): where it is,
reading and writing its JSON files, the fingerprints that say whether earlier
results still hold (the settings, each submission), and the plan and rows that
the jobs hand to the driver (slurm.py, slurm_worker.py)."""

import dataclasses
import hashlib
import json
import os
from pathlib import Path

from . import build, checker, outputs, sandbox
from . import limits as cgroup_limits
from .calibration import Calibration
from .class_run import Starter


def state_dir(out):
    return out.parent / f".{out.name}.slurm"


def read_json(path, default=None):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default



def write_json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    outputs.atomic_write(path, json.dumps(data, indent=1) + "\n")


# ---------------------------------------------------------------- fingerprints

# Options that change no grade: how many at a time, where temporary trees go, Slurm's own.
_VOLATILE_OPTIONS = {"jobs", "build_jobs", "work", "keep", "slurm", "slurm_chunk", "slurm_cpus", "slurm_options",
                     "slurm_poll", "slurm_bin"}


def settings_fingerprint(inputs):
    """What the grades depend on besides the submissions: the options, the weights, the checkout (its commit
    and uncommitted changes), the grading user. A different fingerprint makes earlier results stale."""
    opts = {k: v for k, v in sorted(vars(inputs.options).items()) if k not in _VOLATILE_OPTIONS}
    weights = inputs.weights_path.read_text("utf-8", "replace") if inputs.weights_path.is_file() else ""
    # The checkout's uncommitted changes and untracked files, but not those that change no grade (the
    # grader's own tests, the handouts): an instructor fixing a typo in the manual keeps the class's results.
    unrelated = [":(exclude)tests/grading", ":(exclude)handouts", ":(exclude)README.md"]
    diff = (build.git("diff", "HEAD", "--", ".", *unrelated, binary=True) or b"") + \
        (build.git("ls-files", "--others", "--exclude-standard", "--", ".", *unrelated, binary=True) or b"")
    data = json.dumps({"options": opts, "weights": weights, "commit": build.git("rev-parse", "HEAD"),
                       "diff": hashlib.sha256(diff).hexdigest(), "user": inputs.user.name,
                       "submissions": str(inputs.submissions.resolve()), "out": str(inputs.out)}, sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def submission_fingerprint(folder):
    """The student's folder as it is now (names, sizes, times; links by their target): a resubmission
    changes it, and is graded again on the next run."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(root, d))]):
            p = os.path.join(root, name)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            extra = os.readlink(p) if os.path.islink(p) else ""
            h.update(f"{os.path.relpath(p, folder)}\0{st.st_size}\0{st.st_mtime_ns}\0{extra}\n".encode("utf-8",
                                                                                                        "replace"))
    return h.hexdigest()


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


def row_to_json(row, fingerprint):
    return {"row": dataclasses.asdict(row), "submission": fingerprint}


def read_row(state, student_folder):
    """The student's row from an earlier task, or None when they are not done (or resubmitted since)."""
    data = read_json(state / "rows" / (outputs.safe_name(student_folder.name) + ".json"))
    if not data or data.get("submission") != submission_fingerprint(student_folder):
        return None
    if not (state / "results" / outputs.safe_name(student_folder.name) / "results.json").is_file():
        return None
    return outputs.StudentRow(**data["row"])

