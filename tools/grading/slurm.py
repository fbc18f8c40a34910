"""Grading a whole class on a Slurm cluster (`--slurm`, `make grade ... SLURM=1`).

The steps of class_run.py, spread over Slurm jobs that sbatch submits and
Slurm schedules (this module never decides where or when anything runs):

  prepare job   the starter tree built and calibrated once (class_run.prepare),
                on a compute node (a GPU lab's calibration needs its GPU);
  array job     one task per chunk of students (--slurm-chunk, default one
                student), each grading its students with student.py as a local
                run does, into the state folder; it starts when the prepare
                job has succeeded (afterok), and Slurm cancels it if that failed;
  here          waits (squeue), prints a progress line per student as each
                result appears, then merges them into exactly the outputs a
                local run writes (grades.csv, summary.txt, results.json and
                feedback.txt per student: class_run.write_outputs).

The state folder, beside OUT (.OUT.slurm/), must be on a file system that the
nodes share with this machine, as must the submissions and this checkout.
It holds run.json (the command line and a fingerprint of its settings),
plan.json (the prepare job's starter and calibration), base/ (the built
starter every task copies), results/ (per student: results.json,
feedback.txt), rows/ (per student: the grades.csv row and a fingerprint of
the submission; written last, so a row means that student is done), logs/
(Slurm's output per job and task) and jobs.json (the jobs submitted).

Restartable: run the same command again and only the students without a row
(or whose folder changed since) are graded; jobs of an earlier run still
queued or running are waited for, not submitted again. Changed settings
(weights, limits, the checkout's commit or its uncommitted changes) make the
state stale: it is removed and the class graded again.

The workers are this same program: `tools/grade.py --slurm-worker prepare
STATE` and `tools/grade.py --slurm-worker task STATE BATCHES`, the array
task's number (SLURM_ARRAY_TASK_ID) picking its students in BATCHES.

This module is the driver; slurm_state.py the state folder, slurm_worker.py
the jobs' side, slurm_commands.py Slurm's commands (by absolute path).
"""

import datetime
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

from . import class_run, escape, outputs, sandbox
from .common import REPO, SetupError, say, warn
from .slurm_commands import queued, require_commands, sbatch, scancel, final_states
from .slurm_state import plan_from_json, read_json, read_row, settings_fingerprint, state_dir, write_json

# Slurm's default largest job array (MaxArraySize) is 1001 tasks: a bigger class gets bigger chunks.
MAX_ARRAY_TASKS = 1000
# Minutes a task may run beyond its students' own limits (copying the starter, starting up).
TASK_MARGIN_MIN = 10
# The prepare job: a starter built from scratch (minutes with CUDA) and every test run twice.
PREPARE_TIME_MIN = 120


# ---------------------------------------------------------------- the driver (where the grader was started)

def _job_time(options, chunk):
    """--time for an array task, in minutes: its students' own limits (build, tests, --perf) and a margin."""
    per_student = options.build_timeout + options.student_budget + (600 if options.perf else 0) + 60
    return int(chunk * per_student / 60) + TASK_MARGIN_MIN


def _sbatch_common(inputs, state, name, minutes):
    o = inputs.options
    args = [f"--job-name={name}", f"--chdir={REPO}", "--ntasks=1", f"--cpus-per-task={o.slurm_cpus}",
            f"--time={minutes}"]
    if class_run.lab_uses_gpu(inputs.lab):
        args.append("--gres=gpu:1")
    return args + shlex.split(o.slurm_options or "")  # the instructor's last: their --time, -p, -A win


def _worker_command(*args):
    return [sys.executable, "-B", str(REPO / "tools" / "grade.py"), "--slurm-worker"] + [str(a) for a in args]


def _start_fresh_if_stale(state, fingerprint, argv):
    run = read_json(state / "run.json")
    if run and run.get("fingerprint") != fingerprint:
        say(f"the settings or the checkout changed since the earlier run in {state}: its results are stale, "
            "grading the class again")
        old = [j for j in (read_json(state / "jobs.json", []) or [])]
        if queued(old):
            scancel(old)
        shutil.rmtree(state)
    state.mkdir(parents=True, exist_ok=True)
    write_json(state / "run.json", {"argv": argv, "fingerprint": fingerprint})


def grade_class_slurm(inputs, argv):
    """--slurm: the class as Slurm jobs, merged here. Returns the exit status (0 all graded, 1 some not)."""
    require_commands(inputs.options)
    options, out, students = inputs.options, inputs.out, inputs.students
    t0 = time.monotonic()
    started = datetime.datetime.now(datetime.timezone.utc)
    state = state_dir(out)
    _start_fresh_if_stale(state, settings_fingerprint(inputs), argv)
    (state / "logs").mkdir(exist_ok=True)
    say(f"== grading lab {inputs.lab.number} through Slurm: {len(students)} submission(s) in {inputs.submissions} "
        f"-> {out} (state: {state})")

    earlier = [j for j in (read_json(state / "jobs.json", []) or []) if j]
    if queued(earlier):
        say(f"jobs of an earlier run are still queued or running ({', '.join(earlier)}): waiting for them first")
        _wait(state, inputs, earlier, set(), class_run.Progress(len(students)))
    todo = [s for s in students if read_row(state, s) is None]
    done_before = len(students) - len(todo)
    if done_before:
        say(f"{done_before} of {len(students)} student(s) already graded by an earlier run: "
            f"{len(todo)} left to grade")

    jobs = []
    try:
        _submit(state, inputs, todo, jobs)
        _wait(state, inputs, jobs, {s.name for s in todo}, class_run.Progress(len(students), done_before))
    except KeyboardInterrupt:
        if jobs:
            warn(f"the Slurm jobs {', '.join(jobs)} go on: run the same command again to wait for them and write "
                 f"{out}, or cancel them with scancel {' '.join(jobs)}")
        raise
    return _merge(state, inputs, jobs, started, t0, done_before)


def _submit(state, inputs, todo, jobs):
    """The prepare job (unless an earlier run's plan is there) and the job array for `todo`; each job id goes
    into `jobs` and jobs.json the moment sbatch gives it (a grader stopped then still knows its jobs)."""
    options = inputs.options
    prep = None
    if not (state / "plan.json").is_file():
        prep = sbatch(_sbatch_common(inputs, state, f"mmlab-lab{inputs.lab.number}-prepare", PREPARE_TIME_MIN)
                      + [f"--output={state}/logs/prepare-%j.log"], _worker_command("prepare", state))
        jobs.append(prep)
        write_json(state / "jobs.json", jobs)
        say(f"submitted the prepare job {prep} (the starter built and calibrated once)")
    if todo:
        chunk = max(options.slurm_chunk, -(-len(todo) // MAX_ARRAY_TASKS))
        batches = [[s.name for s in todo[i:i + chunk]] for i in range(0, len(todo), chunk)]
        batches_file = state / f"batches-{int(time.time() * 1000)}.json"
        write_json(batches_file, batches)
        args = _sbatch_common(inputs, state, f"mmlab-lab{inputs.lab.number}", _job_time(options, chunk)) + \
            [f"--array=0-{len(batches) - 1}", f"--output={state}/logs/task-%A_%a.log"]
        if prep:
            args += [f"--dependency=afterok:{prep}", "--kill-on-invalid-dep=yes"]
        array = sbatch(args, _worker_command("task", state, batches_file))
        jobs.append(array)
        write_json(state / "jobs.json", jobs)
        say(f"submitted the job array {array}: {len(batches)} task(s) of up to {chunk} student(s)"
            + f", {options.slurm_cpus} CPU(s) each"
            + (", one GPU each" if class_run.lab_uses_gpu(inputs.lab) else "")
            + (f", after job {prep}" if prep else ""))


def _wait(state, inputs, jobs, todo, progress):
    """Until none of `jobs` is queued or running: a progress line per student of `todo` as their row appears,
    a line whenever the jobs' states change."""
    poll = inputs.options.slurm_poll
    shown, last_states = set(), None
    by_name = {s.name: s for s in inputs.students}
    while True:
        left = queued(jobs)
        states = ", ".join(f"{j}: " + " ".join(f"{n} {st.lower()}" for st, n in _counts(v)) for j, v in
                           sorted(left.items()))
        if states != last_states and states:
            say(f"  slurm: {states}")
        last_states = states
        for name in sorted(todo - shown):
            row = read_row(state, by_name[name]) if name in by_name else None
            if row is not None:
                shown.add(name)
                progress.student_done(row)
        if not left:
            return
        time.sleep(poll)


def _counts(states):
    seen = {}
    for s in states:
        seen[s] = seen.get(s, 0) + 1
    return sorted(seen.items())


def _merge(state, inputs, jobs, started, t0, done_before):
    """Every student's row and files into OUT, as a local run writes them; 1 (and OUT untouched) when a
    student has no result: their task failed, said here with its log."""
    plan = read_json(state / "plan.json")
    if not plan:
        logs = sorted((state / "logs").glob("prepare-*.log"))
        tail = sandbox.tail_lines(sandbox.read_head(logs[-1]), 15) if logs else "(no log)"
        raise SetupError(f"the prepare job failed: the starter could not be built or calibrated on the node; "
                         f"its log ({logs[-1] if logs else state / 'logs'}) ends:\n{tail}")
    starter, cal, limits, notes = plan_from_json(plan)
    rows, missing = [], []
    for s in inputs.students:
        row = read_row(state, s)
        (rows.append(row) if row is not None else missing.append(s.name))
    if missing:
        ended = final_states(jobs)
        failed = {k: v for k, v in ended.items() if not v.startswith("COMPLETED")}
        warn(f"{len(missing)} student(s) have no result: {', '.join(escape.line(m) for m in missing[:20])}"
             + (f" (jobs that did not complete: {', '.join(f'{k} {v}' for k, v in sorted(failed.items()))})"
                if failed else "") + f"; the tasks' logs are in {state}/logs; run the same command again to grade "
             f"only those; {inputs.out} is unchanged")
        return 1
    out = inputs.out
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        for s in inputs.students:
            name = outputs.safe_name(s.name)
            shutil.copytree(state / "results" / name, staging / name)
        how = f"through Slurm, {len(inputs.students) - done_before} graded by this run's jobs"
        results = class_run.write_outputs(inputs, started, starter, limits, cal, notes, rows, staging,
                                          time.monotonic() - t0, how)
        staging = None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    class_run.say_done(inputs, rows, results)
    say(f"(the Slurm state stays in {state}: running the same command again grades only new or changed "
        "submissions; remove it to grade everyone again)")
    return 0
