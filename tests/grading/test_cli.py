#!/usr/bin/env python3
"""Unit tests of tools/grading/cli.py: the flags checked before anything
runs, the lab looked up in the catalog (unknown, no starter yet), the input
checks (output folders two students would share, a missing weights file, a
--work that is no folder), and the exit statuses with their one line on
stderr. Nothing is built or graded here."""
import contextlib
import io
import os
import sys
sys.dont_write_bytecode = True

import checks
from checks import Scratch, check, raises
from grading import catalog, cli, environment, sandbox
from grading.common import UsageError

REAL = catalog.read_catalog()
WITH_STARTER = [l for l in REAL if (checks.REPO / l.folder).is_dir()]
NO_STARTER = catalog.Lab(max(l.number for l in REAL) + 1, "cpu", ("x",), (), "not written yet")
LABS = REAL + [NO_STARTER]


def flags():
    a = cli.parse_args(["subs", "--lab", "03"], LABS)
    check(a.lab == 3 and a.jobs == 1 and a.test_timeout is None and a.sandbox == "auto" and not a.perf,
          "defaults; --lab 03 is lab 3", str(vars(a)))
    bad = [(["subs", "--lab", "one"], "--lab must be a lab number"), (["subs"], "--lab"),
           (["subs", "--lab", "1", "-j", "0"], "--jobs must be a positive number"),
           (["subs", "--lab", "1", "--max-procs", "0"], "--max-procs"),
           (["subs", "--lab", "1", "--build-jobs", "-1"], "--build-jobs"),
           (["subs", "--lab", "1", "--test-timeout", "0"], "--test-timeout must be more than 0 seconds"),
           (["subs", "--lab", "1", "--student-budget", "-5"], "--student-budget"),
           (["subs", "--lab", "1", "--perf-size", "64; rm -rf ~"], "--perf-size takes mmlab's --size list"),
           (["subs", "--lab", "1", "--sandbox", "docker"], "invalid choice"),
           (["subs", "--lab", "1", "--sandbox", "full"], "invalid choice"),
           (["subs", "--lab", "1", "--slurm-chunk", "0"], "--slurm-chunk must be a positive number"),
           (["subs", "--lab", "1", "--slurm-poll", "0"], "--slurm-poll must be more than 0 seconds"),
           (["subs", "--lab", "1", "--similarity-min", "high"], "--similarity-min takes a percentage from 0 to 100"),
           (["subs", "--lab", "1", "--similarity-min", "101"], "--similarity-min takes a percentage from 0 to 100"),
           (["subs", "--lab", "1", "--similarity-min", "-5"], "--similarity-min takes a percentage from 0 to 100"),
           (["subs", "--lab", "1", "--similarity-min", "nan"], "--similarity-min takes a percentage from 0 to 100"),
           (["subs", "--lab", "1", "--no-such-flag"], "unrecognized arguments")]
    for argv, expect in bad:
        e = raises(UsageError, cli.parse_args, argv, LABS)
        check(e is not None and expect in str(e), f"refused: {' '.join(argv[1:]) or '(no --lab)'}", str(e))
    check(cli.parse_args(["s", "--lab", "1", "--perf-size", "300x200x100,512"], LABS).perf_size == "300x200x100,512",
          "--perf-size takes mmlab's size lists")
    a = cli.parse_args(["s", "--lab", "1", "--slurm", "--slurm-options", "-p gpu --mem=8G"], LABS)
    check(a.slurm and a.slurm_chunk == 1 and a.slurm_cpus == 2 and a.slurm_options == "-p gpu --mem=8G"
          and list(sandbox.LEVELS) == ["bwrap", "unshare", "net", "none"],
          "--slurm and its options; --sandbox levels bwrap, unshare, net, none", str(vars(a)))


    a = cli.parse_args(["s", "--lab", "1"], LABS)
    check(not a.similarity and a.similarity_min is None, "no --similarity: no report, no threshold", str(vars(a)))
    for given, share in (("40", 0.4), ("37.5%", 0.375), ("0", 0.0), ("100", 1.0)):
        a = cli.parse_args(["s", "--lab", "1", "--similarity-min", given], LABS)
        check(a.similarity and a.similarity_min == share, f"--similarity-min {given}: pairs at {100 * share:g}% "
              "or more side by side (and --similarity implied)", str(vars(a)))


def labs():
    first = WITH_STARTER[0]
    check(cli.resolve_lab(LABS, first.number) == first, f"lab {first.number}: the catalog's entry")
    e = raises(UsageError, cli.resolve_lab, LABS, 4242)
    check(e is not None and str(e).startswith("unknown lab 4242: labs here are ")
          and str(first.number) in str(e), "a lab the catalog lacks: unknown, naming the labs", str(e))
    e = raises(UsageError, cli.resolve_lab, LABS, NO_STARTER.number)
    check(e is not None and f"lab {NO_STARTER.number} has no starter code yet (no {NO_STARTER.folder}/)" in str(e),
          "a catalog lab without a starter folder: says so", str(e))


def inputs(tmp):
    sub = tmp / "subs"
    (sub / "a b").mkdir(parents=True)
    (sub / "a_b").mkdir()
    lab = WITH_STARTER[0]

    def check_inputs(*more):
        return cli.check_inputs(cli.parse_args([str(sub), "--lab", str(lab.number), "--out", str(tmp / "out")]
                                               + list(more), LABS), LABS)

    e = raises(UsageError, check_inputs)
    check(e is not None and "'a b' and 'a_b' would share the output folder 'a_b'" in str(e),
          "two students whose output folders would be the same: refused before anything runs", str(e))
    (sub / "a_b").rmdir()
    e = raises(UsageError, check_inputs, "--weights", str(tmp / "none.weights"))
    check(e is not None and "does not exist" in str(e), "a weights file that does not exist", str(e))
    e = raises(UsageError, check_inputs, "--work", str(tmp / "nowhere"))
    check(e is not None and "is not a folder" in str(e), "a --work that is not a folder", str(e))
    if not lab.needs_cuda:
        got = check_inputs()
        check(got.lab == lab and [s.name for s in got.students] == ["a b"] and got.given_weights == {}
              and got.out == (tmp / "out").resolve() and not (tmp / "out").exists(),
              "good input: the lab, the students, no weights file, OUT checked but not made")

    mpi = [l for l in WITH_STARTER if l.needs_mpi]
    saved_path, saved_dirs = dict(os.environ), environment.SYSTEM_PATH_DIRS
    try:
        environment.SYSTEM_PATH_DIRS = ()  # as on a cluster without a system MPI and no module loaded
        os.environ["PATH"] = str(tmp / "nowhere")
        os.environ.pop("MML_MPIRUN", None)
        e = raises(UsageError, cli.check_inputs, cli.parse_args([str(sub), "--lab", str(mpi[0].number), "--out",
                                                                 str(tmp / "out")], LABS), LABS) if mpi else None
        check(e is not None and "needs mpirun" in str(e) and "module load" in str(e),
              "an MPI lab where no mpirun is found: refused before anything runs, naming the fixes", str(e))
    finally:
        environment.SYSTEM_PATH_DIRS = saved_dirs
        os.environ.clear()
        os.environ.update(saved_path)


def run_command_line(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = cli.command_line(argv)
    return rc, [l for l in err.getvalue().splitlines() if l.strip()]


def exit_statuses(tmp):
    rc, lines = run_command_line([str(tmp / "nope"), "--lab", str(WITH_STARTER[0].number)])
    check(rc == 2 and len(lines) == 1 and lines[0].startswith("grade: error: submissions folder"),
          "bad input: exit 2, one line 'grade: error: ...'", f"{rc} {lines}")
    broken = catalog.read_catalog
    catalog.read_catalog = lambda: catalog.parse_catalog("1 | cpu | lab1\n", "labs/catalog.txt")
    try:
        rc, lines = run_command_line([str(tmp), "--lab", "1"])
    finally:
        catalog.read_catalog = broken
    check(rc == 1 and len(lines) == 1 and lines[0].startswith("grade: cannot grade: labs/catalog.txt:1: 5 columns"),
          "a malformed catalog: exit 1, 'cannot grade', the line that is wrong", f"{rc} {lines}")


flags()
labs()
with Scratch() as tmp:
    inputs(tmp)
    exit_statuses(tmp)
checks.finish("cli")
