"""The Slurm jobs' side of a --slurm run (slurm.py describes the run): the
prepare job (the starter built and calibrated once, plan.json) and each array
task (its chunk of students graded into the state folder), both this same
program: `tools/grade.py --slurm-worker prepare STATE` and `... task STATE BATCHES`."""

import os
import shutil
from pathlib import Path

from . import class_run, outputs, sandbox
from .common import SetupError, UsageError, say, warn
from .run_state import read_json, save_row, submission_fingerprint, write_json
from .slurm_state import plan_from_json, plan_to_json
from .student import grade_student


def worker(argv, read_inputs):
    """`tools/grade.py --slurm-worker prepare STATE` or `... task STATE BATCHES`: the jobs' side.
    read_inputs(argv): the grading run's command line, parsed and checked as cli.py does (cli.py
    passes it in: this module does not import cli, which imports this one)."""
    if len(argv) not in (2, 3) or argv[0] not in ("prepare", "task"):
        raise UsageError("--slurm-worker prepare STATE | task STATE BATCHES (started by --slurm, not by hand)")
    state = Path(argv[1])
    run = read_json(state / "run.json")
    if not run:
        raise SetupError(f"{state}/run.json is missing: this job's grading run is gone")
    inputs = read_inputs(run["argv"])
    if argv[0] == "prepare":
        return _prepare(state, inputs)
    return _task(state, inputs, Path(argv[2]), int(os.environ.get("SLURM_ARRAY_TASK_ID", "0")))


def _cores():
    """The cores Slurm gave this task (all of the machine's when not under Slurm)."""
    n = os.environ.get("SLURM_CPUS_PER_TASK") or os.environ.get("SLURM_CPUS_ON_NODE")
    return int(n) if n and n.isdigit() else (os.cpu_count() or 1)


def _prepare(state, inputs):
    """The prepare job: the starter built and calibrated under the state folder, plan.json written last."""
    for old in state.glob("mmlab-grade-*"):  # an earlier prepare job's tree, if one failed half-way
        shutil.rmtree(old, ignore_errors=True)
    work, limits = class_run.open_work(inputs, parent=state)
    say(f"containment: {sandbox.describe(limits)}")
    notes = class_run.containment_notes(limits, inputs.options.sandbox)
    starter, cal = class_run.prepare(inputs, work, limits, _cores(), skip=[state])
    write_json(state / "plan.json", plan_to_json(starter, cal, limits, notes))
    say(f"prepared: {len(starter.tests)} test case(s), starter in {starter.base}")
    return 0


def _task(state, inputs, batches_file, index):
    """One array task: its chunk of students graded into state/results and state/rows."""
    plan = read_json(state / "plan.json")
    batches = read_json(batches_file)
    if not plan or batches is None or index >= len(batches):
        raise SetupError(f"no plan.json or no batch {index} in {batches_file}: the prepare job did not finish")
    starter, cal, _, _ = plan_from_json(plan)
    by_name = {s.name: s for s in inputs.students}
    inputs.options.sandbox = plan["mode"]  # the level the class is graded at: this node must give it too
    inputs.options.jobs = 1
    work, limits = class_run.open_work(inputs)
    try:
        setup = class_run.class_setup(inputs, work, limits, starter, cal, _cores())
        names = batches[index]
        for i, name in enumerate(names):
            folder = by_name.get(name)
            if folder is None:
                warn(f"student folder '{name}' is gone from {inputs.submissions}: not graded")
                continue
            fingerprint = submission_fingerprint(folder)
            row = grade_student(setup, i, folder, state / "results")
            save_row(state, folder, row, fingerprint)
            say(outputs.progress_line(row, i + 1, len(names)))
    finally:
        sandbox.kill_running()
        shutil.rmtree(work, ignore_errors=True)
    return 0

