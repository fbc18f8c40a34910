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
"""

import dataclasses
import datetime
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import build, checker, class_run, escape, outputs, sandbox
from .calibration import Calibration
from .class_run import Starter
from .common import REPO, SetupError, UsageError, say, warn
from .student import grade_student

# Slurm's default largest job array (MaxArraySize) is 1001 tasks: a bigger class gets bigger chunks.
MAX_ARRAY_TASKS = 1000
# Minutes a task may run beyond its students' own limits (copying the starter, starting up).
TASK_MARGIN_MIN = 10
# The prepare job: a starter built from scratch (minutes with CUDA) and every test run twice.
PREPARE_TIME_MIN = 120


def state_dir(out):
    return out.parent / f".{out.name}.slurm"


def _read_json(path, default=None):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default


def _write_json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    outputs.atomic_write(path, json.dumps(data, indent=1) + "\n")


# ---------------------------------------------------------------- fingerprints

# Options that change no grade: how many at a time, where temporary trees go, Slurm's own.
_VOLATILE_OPTIONS = {"jobs", "build_jobs", "work", "keep", "slurm", "slurm_chunk", "slurm_cpus", "slurm_options",
                     "slurm_poll"}


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
    limits = sandbox.Limits(plan["mode"], 0, 0, 0, user=user,  # for summary.txt: the level, the user, the folders
                            extra_dirs=tuple(Path(d) for d in plan.get("extra_dirs", [])))
    return starter, cal, limits, plan["containment_notes"]


def row_to_json(row, fingerprint):
    return {"row": dataclasses.asdict(row), "submission": fingerprint}


def read_row(state, student_folder):
    """The student's row from an earlier task, or None when they are not done (or resubmitted since)."""
    data = _read_json(state / "rows" / (outputs.safe_name(student_folder.name) + ".json"))
    if not data or data.get("submission") != submission_fingerprint(student_folder):
        return None
    if not (state / "results" / outputs.safe_name(student_folder.name) / "results.json").is_file():
        return None
    return outputs.StudentRow(**data["row"])


# ---------------------------------------------------------------- the workers (on the nodes)

def worker(argv, read_inputs):
    """`tools/grade.py --slurm-worker prepare STATE` or `... task STATE BATCHES`: the jobs' side.
    read_inputs(argv): the grading run's command line, parsed and checked as cli.py does (cli.py
    passes it in: this module does not import cli, which imports this one)."""
    if len(argv) not in (2, 3) or argv[0] not in ("prepare", "task"):
        raise UsageError("--slurm-worker prepare STATE | task STATE BATCHES (started by --slurm, not by hand)")
    state = Path(argv[1])
    run = _read_json(state / "run.json")
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
    _write_json(state / "plan.json", plan_to_json(starter, cal, limits, notes))
    say(f"prepared: {len(starter.tests)} test case(s), starter in {starter.base}")
    return 0


def _task(state, inputs, batches_file, index):
    """One array task: its chunk of students graded into state/results and state/rows."""
    plan = _read_json(state / "plan.json")
    batches = _read_json(batches_file)
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
            _write_json(state / "rows" / (outputs.safe_name(name) + ".json"), row_to_json(row, fingerprint))
            say(outputs.progress_line(row, i + 1, len(names)))
    finally:
        sandbox.kill_running()
        shutil.rmtree(work, ignore_errors=True)
    return 0


# ---------------------------------------------------------------- Slurm's commands

def _slurm(cmd):
    """A Slurm command's output; SetupError with its message when it fails."""
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SetupError(f"{cmd[0]} failed: {e}")
    if r.returncode != 0:
        raise SetupError(f"{' '.join(cmd[:2])} ... failed: {(r.stderr or r.stdout).strip()}")
    return r.stdout


def sbatch(args, command):
    """Submits `command` (a list) with sbatch's options `args`; returns the job id."""
    out = _slurm(["sbatch", "--parsable"] + args + ["--wrap", "exec " + shlex.join(command)])
    return out.strip().split(";")[0]


def queued(job_ids):
    """{job id: [states of its tasks]} of the jobs still pending or running (squeue lists only those). One
    squeue per job: squeue refuses a whole list when one job in it ended long enough ago to be forgotten."""
    left = {}
    for job in job_ids:
        r = subprocess.run(["squeue", "-h", "-j", job, "-o", "%F %T"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=120)
        if r.returncode != 0:
            if "Invalid job id" in r.stderr:  # ended, and forgotten since
                continue
            raise SetupError(f"squeue failed: {r.stderr.strip()}")
        for line in r.stdout.splitlines():
            parts = line.split()
            if len(parts) == 2:
                left.setdefault(parts[0], []).append(parts[1])
    return left


def final_states(job_ids):
    """How the jobs' tasks ended, from Slurm's accounting ({'12_3': 'FAILED 1:0'}); {} where sacct has no
    accounting to ask (a cluster without slurmdbd)."""
    try:
        r = subprocess.run(["sacct", "-X", "-n", "-P", "-j", ",".join(job_ids), "-o", "JobID,State,ExitCode"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if r.returncode != 0:
        return {}
    states = {}
    for line in r.stdout.splitlines():
        parts = line.split("|")
        if len(parts) == 3:
            states[parts[0]] = f"{parts[1]} {parts[2]}"
    return states


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
    run = _read_json(state / "run.json")
    if run and run.get("fingerprint") != fingerprint:
        say(f"the settings or the checkout changed since the earlier run in {state}: its results are stale, "
            "grading the class again")
        old = [j for j in (_read_json(state / "jobs.json", []) or [])]
        if queued(old):
            _slurm(["scancel"] + old)
        shutil.rmtree(state)
    state.mkdir(parents=True, exist_ok=True)
    _write_json(state / "run.json", {"argv": argv, "fingerprint": fingerprint})


def grade_class_slurm(inputs, argv):
    """--slurm: the class as Slurm jobs, merged here. Returns the exit status (0 all graded, 1 some not)."""
    for tool in ("sbatch", "squeue"):
        if not shutil.which(tool):
            raise UsageError(f"--slurm needs Slurm's commands ({tool} is not on PATH): run on a machine that "
                             "submits to the cluster, or grade here without --slurm")
    options, out, students = inputs.options, inputs.out, inputs.students
    t0 = time.monotonic()
    started = datetime.datetime.now(datetime.timezone.utc)
    state = state_dir(out)
    _start_fresh_if_stale(state, settings_fingerprint(inputs), argv)
    (state / "logs").mkdir(exist_ok=True)
    say(f"== grading lab {inputs.lab.number} through Slurm: {len(students)} submission(s) in {inputs.submissions} "
        f"-> {out} (state: {state})")

    earlier = [j for j in (_read_json(state / "jobs.json", []) or []) if j]
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
        _write_json(state / "jobs.json", jobs)
        say(f"submitted the prepare job {prep} (the starter built and calibrated once)")
    if todo:
        chunk = max(options.slurm_chunk, -(-len(todo) // MAX_ARRAY_TASKS))
        batches = [[s.name for s in todo[i:i + chunk]] for i in range(0, len(todo), chunk)]
        batches_file = state / f"batches-{int(time.time() * 1000)}.json"
        _write_json(batches_file, batches)
        args = _sbatch_common(inputs, state, f"mmlab-lab{inputs.lab.number}", _job_time(options, chunk)) + \
            [f"--array=0-{len(batches) - 1}", f"--output={state}/logs/task-%A_%a.log"]
        if prep:
            args += [f"--dependency=afterok:{prep}", "--kill-on-invalid-dep=yes"]
        array = sbatch(args, _worker_command("task", state, batches_file))
        jobs.append(array)
        _write_json(state / "jobs.json", jobs)
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
    plan = _read_json(state / "plan.json")
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
