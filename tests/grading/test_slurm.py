#!/usr/bin/env python3
"""Unit tests of tools/grading/slurm*.py, without a cluster: where the state
folder is, the fingerprints that decide what a rerun grades again (a
submission changed, the settings changed), the plan and the rows read back
as written, sbatch's and squeue's output read (through stand-in commands in
--slurm-bin's folder, run from / with a trusted environment; never those on
PATH), and --slurm refused where Slurm's commands are missing or unsafe.
tests/grading/test_slurm_cluster.py runs the real thing on a one-node cluster."""
import sys
sys.dont_write_bytecode = True
import dataclasses
import json
import os
import time
from pathlib import Path

import checks
from checks import Scratch, check, raises
from grading import calibration, class_run, outputs, sandbox, slurm, slurm_commands
from grading import slurm_state
from grading.common import SetupError, UsageError


def fingerprints(tmp):
    check(slurm_state.state_dir(Path("/x/grades-lab1")) == Path("/x/.grades-lab1.slurm"),
          "the state folder is beside OUT, hidden: .OUT.slurm")
    st = tmp / "alice"
    (st / "lab1").mkdir(parents=True)
    (st / "lab1" / "a.cpp").write_text("one")
    first = slurm_state.submission_fingerprint(st)
    check(slurm_state.submission_fingerprint(st) == first, "a submission's fingerprint is stable")
    (st / "lab1" / "a.cpp").write_text("two!")
    check(slurm_state.submission_fingerprint(st) != first, "a changed file changes it (a resubmission is graded again)")
    second = slurm_state.submission_fingerprint(st)
    (st / "lab1" / "link").symlink_to("/etc/passwd")
    check(slurm_state.submission_fingerprint(st) != second, "so does a new symbolic link")


def plan_and_rows(tmp):
    starter = class_run.Starter(tmp / "base", "abc123", ["a note"], ["a.cpp"], [("lab1", "t1"), ("lab1", "t2")], None)
    cal = calibration.Calibration({"t1": 1.0, "t2": 0.0}, {"t2"}, ["'t2' passes on the untouched starter"],
                                  {"t1": 30.0})
    user = sandbox.User(65534, 65534, "nobody", True)
    limits = sandbox.Limits("bwrap", 0, 1024, 10, user=user)
    plan = json.loads(json.dumps(slurm_state.plan_to_json(starter, cal, limits, ["containment note"])))
    s2, c2, l2, notes = slurm_state.plan_from_json(plan)
    check(s2 == starter and c2 == cal and notes == ["containment note"], "the plan reads back as written")
    check(sandbox.describe(l2) == sandbox.describe(limits), "and names the same containment")

    state = tmp / "state"
    folder = tmp / "subs" / "bob"
    folder.mkdir(parents=True)
    (folder / "a.cpp").write_text("x")
    check(slurm_state.read_row(state, folder) is None, "a student with no row is not done")
    row = outputs.StudentRow("bob", "built", 1.0, 1.0, {"t1": 1.0, "t2": ""}, ["flag"], {"t1": "passed"}, 2.5)
    (state / "rows").mkdir(parents=True)
    (state / "rows" / "bob.json").write_text(json.dumps(slurm_state.row_to_json(row, slurm_state.submission_fingerprint(folder))))
    check(slurm_state.read_row(state, folder) is None, "a row without the student's results.json is not done")
    (state / "results" / "bob").mkdir(parents=True)
    (state / "results" / "bob" / "results.json").write_text("{}")
    check(slurm_state.read_row(state, folder) == row, "a row and its results: done, the row read back as written")
    time.sleep(0.01)
    (folder / "a.cpp").write_text("resubmitted")
    check(slurm_state.read_row(state, folder) is None, "a student whose folder changed since is graded again")


FAKE_SLURM = {
    "sbatch": '#!/bin/sh\necho "$@" >> "$FAKE_LOG"\necho "cwd=$(pwd) preload=${LD_PRELOAD:-none} '
              'path=$PATH" >> "$FAKE_LOG"\necho "4242;cluster"\n',
    "squeue": '#!/bin/sh\ncase "$*" in *9999*) echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1;;\n'
              '*4242*) printf "4242 RUNNING\\n4242 PENDING\\n";; *4243*) printf "4243 PENDING\\n";; esac\n',
    "sacct": '#!/bin/sh\necho "Slurm accounting storage is disabled" >&2\nexit 1\n',
}


def options(folder):
    return type("O", (), {"slurm_bin": str(folder) if folder else None})()


def fake_commands(bin_dir, planted_log):
    bin_dir.mkdir()
    for name, text in FAKE_SLURM.items():
        (bin_dir / name).write_text(text)
        os.chmod(bin_dir / name, 0o755)
    planted = bin_dir.parent / "planted"  # what a PATH entry could put first: must never run
    planted.mkdir()
    for name in FAKE_SLURM:
        (planted / name).write_text(f'#!/bin/sh\necho planted >> "{planted_log}"\necho "6666;x"\n')
        os.chmod(planted / name, 0o755)
    return planted


def commands(tmp):
    bin_dir = tmp / "bin"
    planted = fake_commands(bin_dir, tmp / "planted.log")
    saved = dict(os.environ)
    os.environ["PATH"] = f"{planted}::{os.environ['PATH']}"
    os.environ["FAKE_LOG"] = str(tmp / "sbatch.log")
    os.environ["LD_PRELOAD"] = "libnothing-here.so"
    try:
        slurm_commands.require_commands(options(bin_dir))
        job = slurm_commands.sbatch(["--job-name=x", "--array=0-3"],
                                    ["python3", "tools/grade.py", "--slurm-worker", "task", "/state dir", "b.json"])
        logged = (tmp / "sbatch.log").read_text()
        check(job == "4242", "sbatch --parsable: the job id (a cluster name after ';' dropped)", job)
        check("--parsable --job-name=x --array=0-3 --wrap exec python3 tools/grade.py --slurm-worker task "
              "'/state dir' b.json" in logged, "the worker's command line is quoted for --wrap", logged)
        check("cwd=/ preload=none " in logged and "::" not in logged.split("path=")[1],
              "sbatch starts in /, without LD_PRELOAD, its PATH without empty entries (the job's environment)",
              logged)
        check(slurm_commands.queued(["4242", "4243"]) == {"4242": ["RUNNING", "PENDING"], "4243": ["PENDING"]},
              "squeue: the tasks still pending or running, per job")
        check(slurm_commands.queued(["9999"]) == {} and
              slurm_commands.queued(["9999", "4243"]) == {"4243": ["PENDING"]},
              "squeue on jobs Slurm has forgotten: none left (and the others still counted)")
        check(slurm_commands.queued([]) == {}, "no jobs: none left (squeue not asked)")
        check(slurm_commands.final_states(["4242"]) == {},
              "sacct without accounting (no slurmdbd): no final states, no error")
        check(not (tmp / "planted.log").exists(), "no Slurm command is taken from PATH (a planted one never runs)")
        os.chmod(bin_dir, 0o777)
        e = raises(UsageError, slurm_commands.require_commands, options(bin_dir))
        check(e is not None and "other users can change" in str(e) and "chmod go-w" in str(e),
              "--slurm-bin a folder that others can write: refused, naming the fix", str(e))
        os.chmod(bin_dir, 0o700)
        e = raises(UsageError, slurm_commands.require_commands, options("bin"))
        check(e is not None and "absolute" in str(e), "--slurm-bin a relative path: refused", str(e))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    os.environ["PATH"] = str(planted)  # Slurm's commands only on PATH: not found (the system's folders lack them)
    try:
        inputs = type("Inputs", (), {"options": options(None)})()
        if not slurm_commands.os.path.exists("/usr/bin/sbatch"):
            e = raises(UsageError, slurm.grade_class_slurm, inputs, [])
            check(e is not None and "sbatch" in str(e) and "--slurm-bin" in str(e),
                  "--slurm where Slurm's commands are only on PATH: one line naming --slurm-bin, exit 2", str(e))
        (tmp / "empty").mkdir()
        inputs.options = options(tmp / "empty")
        e = raises(UsageError, slurm.grade_class_slurm, inputs, [])
        check(e is not None and "sbatch is not in --slurm-bin" in str(e),
              "--slurm-bin a folder without sbatch: one line, exit 2", str(e))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def job_time():
    o = type("O", (), {"build_timeout": 600, "student_budget": 900, "perf": False})()
    check(slurm._job_time(o, 2) == int(2 * 1560 / 60) + slurm.TASK_MARGIN_MIN,
          "an array task's --time: its students' build and test limits, and a margin")


with Scratch() as tmp:
    fingerprints(tmp)
    plan_and_rows(tmp)
    commands(tmp)
job_time()
checks.finish("slurm")
