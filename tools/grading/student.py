"""Grading one student, from their folder to their files in OUT: find their
lab files (intake.py), copy the built starter tree (without any reference
code) and put the files in, flag what is worth a review (review.py), build
their runner (build.py), run every graded test case within the student's time
budget through the trusted checker (testcases.py, checker.py), score
(score.py) and write results.json and feedback.txt (outputs.py). Whatever goes
wrong with one student is that student's grade ("grader error" at worst),
never the end of the run.

The checker's reports and every log go to a folder beside the student's tree
(work/logs/studentNNNN), which the sandbox does not let the student's
processes write: only the verdicts of tests the checker cannot run are
written inside the tree, by the process that holds the student's code."""

import shutil
import time
from contextlib import nullcontext
from dataclasses import dataclass, field

from . import build, checker, escape, intake, outputs, review, score, testcases
from .catalog import is_gpu_suite
from .common import BUILT, GRADER_ERROR, NO_FILES
from .testcases import TestResult


@dataclass
class ClassSetup:
    """What every student of one run is graded against (made once, by class_run.py)."""
    options: object       # the command line (cli.parse_args): budget, --perf, --keep, build timeout
    lab: object           # the catalog's entry (catalog.Lab)
    work: object          # the run's temporary folder: each student's tree goes in it
    base: object          # the built starter tree
    lab_files: list       # the names of the lab's files (the starter's folder)
    tests: list           # [(suite, name)] in order
    weights: dict         # test case -> points
    free: set             # test cases not graded (the untouched starter passes them)
    gpu_note: object      # why GPU tests do not run here, or None
    limits: object        # sandbox.Limits
    build_jobs: int       # make -j for a student's build
    timeouts: dict        # test case -> seconds
    programs: object = None   # checker.Programs: the checker and runners (None: the old in-process way)
    in_process: set = field(default_factory=set)  # tests the checker cannot run (calibration.py)
    gpus: object = None   # gpu_lease.GpuPool: one student's GPU work at a time on each GPU (None: no GPU)
    lab_uses_gpu: bool = False  # the performance run uses the GPU too


# The feedback's words and the review flag (grades.csv, summary.txt) for a submission whose lab files are all
# the starter's own: handed in without a change (the wrong folder, say), worth the instructor's look.
STARTER_UNCHANGED = "the starter, unchanged"


def unchanged_starter(lab_dir, starter_dir, lab_files):
    """True when every lab file in lab_dir (the student's tree, their files put in) reads as the starter's
    file in starter_dir: the same words in the same order (line endings, spaces and blank lines aside)."""
    def words(path):
        try:
            return path.read_bytes().split()
        except OSError:
            return None
    return bool(lab_files) and all(words(lab_dir / n) == words(starter_dir / n) for n in lab_files)


def grade_student(setup, index, folder, out_dir):
    """Grades one student (the index-th: their tree is work/student<index>); writes results.json and
    feedback.txt under out_dir; returns their StudentRow. Called from several threads at once (-j)."""
    return _StudentGrading(setup, index, folder).run(out_dir)


class _StudentGrading:
    """One student's grading: its state is that student's alone (threads grade others beside it)."""

    def __init__(self, setup, index, folder):
        self.setup, self.folder = setup, folder
        self.tree = setup.work / f"student{index:04d}"
        if setup.programs:
            # Outside the tree: the checker's reports and the logs, where no student process can write.
            self.logs = setup.work / "logs" / f"student{index:04d}"
        else:
            self.logs = self.tree / ".grade"  # inside the tree: the sandbox lets the student's processes write only there
        # Reports of the tests run in the student's own process: those must be written inside the tree.
        self.inside = self.tree / ".grade"
        self.feedback = []   # lines for the student
        self.flags = []      # notes for the instructor only
        self.results = {}    # test key -> TestResult

    def run(self, out_dir):
        s, folder, tree, logs = self.setup, self.folder, self.tree, self.logs
        t0 = time.monotonic()
        build_status = BUILT
        try:
            src, found_notes = intake.find_lab_files(folder, s.lab.number, s.lab_files)
            if src is None:
                build_status = NO_FILES
                self._no_lab_files(found_notes)
            else:
                self._prepare_tree(src)
                build_status, build_msg = build.build_submission(tree, logs, s.build_jobs, s.options.build_timeout,
                                                                 s.limits, s.programs, bool(s.in_process))
                if build_status != BUILT:
                    self.feedback.append("")
                    self.feedback.append(build_msg)
                    self._none_run("the code did not build")
                else:
                    self._run_tests()
        except Exception as e:  # one student's trouble must never stop the others
            build_status = GRADER_ERROR
            self.feedback.append(f"The grading script failed on this submission ({type(e).__name__}: {e}); "
                                 "your instructor has been told.")
            self.flags.append(f"grader error: {type(e).__name__}: {e}")
            for _, n in s.tests:
                self.results.setdefault(n, TestResult(n, "not-run", "grading error"))
        finally:
            if not s.options.keep:
                shutil.rmtree(tree, ignore_errors=True)
                shutil.rmtree(logs, ignore_errors=True)
        seconds = time.monotonic() - t0
        try:
            return self._write(out_dir, build_status, seconds)
        except Exception as e:  # writing this student's files failed (their names, their text): theirs alone
            return self._write_error(out_dir, e, seconds)

    def _none_run(self, why):
        for _, n in self.setup.tests:
            self.results[n] = TestResult(n, "not-run", why)

    def _no_lab_files(self, found_notes):
        lab, folder = self.setup.lab.number, self.folder
        where = ", ".join(f"{escape.line(folder.name)}/{p}" for p in (f"labs/lab{lab}/", f"lab{lab}/", ""))
        self.feedback.append(f"No lab {lab} files found: looked for {', '.join(sorted(self.setup.lab_files))} in "
                             f"{where} (the folder itself) and the folders below it. Nothing was graded."
                             + "".join(f"\nFound {n}." for n in found_notes))
        self.flags.extend(f"no lab files: found {n}" for n in found_notes)
        self._none_run("no lab files were submitted")

    def _prepare_tree(self, src):
        """The student's tree: a copy of the built starter with their files in; says in the feedback which
        files were used, which came from the starter, and flags what is worth a review."""
        s, folder, tree, logs = self.setup, self.folder, self.tree, self.logs
        shutil.copytree(s.base, tree, symlinks=True,
                        ignore=build.student_tree_ignore(s.base, s.programs) if s.programs else None)
        logs.mkdir(parents=True)
        self.inside.mkdir(exist_ok=True)
        (tree / ".tmp").mkdir(exist_ok=True)
        used, starter, refused, problems = intake.copy_submission_files(src, folder, s.lab.number, s.lab_files,
                                                                        tree / s.lab.folder, tree / "build")
        self.flags.extend(refused)  # the starter was graded in its place: worth a look
        self.feedback.append(f"Files graded from your submission ({escape.line(src.relative_to(folder.parent))}): "
                             f"{', '.join(used) if used else 'none'}")
        # A missing file with a task fails that task; one without (a header) loses nothing: say which.
        todo = [n for n in starter if "TODO" in (s.base / s.lab.folder / n).read_text("utf-8", "replace")]
        given = [n for n in starter if n not in todo]
        if todo:
            self.feedback.append(f"Missing, so the starter version was used (its tasks fail): {', '.join(todo)}")
        if given:
            self.feedback.append(f"Not submitted, so the starter version was used (it has no task, so nothing is "
                                 f"lost): {', '.join(given)}")
        self.feedback.extend(problems)
        if used and unchanged_starter(tree / s.lab.folder, s.base / s.lab.folder, s.lab_files):
            self.feedback.append(f"These files are {STARTER_UNCHANGED}: none of the lab's tasks is done in them yet, "
                                 "so the tests that need your code fail.")
            self.flags.append(STARTER_UNCHANGED)
        self.flags.extend(review.review_flags(tree / s.lab.folder, s.base / s.lab.folder, used))

    def _run_tests(self):
        """Every graded test case, in order, until the student's time budget is spent; then --perf."""
        s, tree, logs = self.setup, self.tree, self.logs
        budget = s.options.student_budget
        for i, (suite, n) in enumerate(s.tests):
            if n in s.free:
                self.results[n] = TestResult(n, "not-run", "not graded (passes on the untouched starter)")
                continue
            if budget <= 0:
                self.results[n] = TestResult(n, "not-run", "this submission used up its time budget "
                                             f"({s.options.student_budget:g} s of tests) on earlier tests")
                continue
            limit = min(s.timeouts[n], budget)
            # A GPU test holds a GPU of its own (gpu_lease.py); its clock starts once it has it.
            lease = s.gpus.lease(self.folder.name) if s.gpus and is_gpu_suite(suite) else nullcontext({})
            with lease as gpu_env:
                r = self._run_test(i, suite, n, limit, gpu_env)
            budget -= r.seconds
            self.results[n] = r
        if s.options.perf:
            perf = self.results[score.PERF_KEY] = testcases.run_performance_target(
                tree, logs, s.lab.number, self.results, s.weights, s.options.perf_threads, s.options.perf_size,
                s.limits, s.programs, s.gpus if s.gpus and s.lab_uses_gpu else None)
            if perf.status == "inconclusive":  # the instructor's to rerun: summary.txt counts these
                why = perf.reason if perf.reason != testcases.BUSY else \
                    f"machine busy: {testcases.load_text(*perf.machine_load)}"
                self.flags.append(f"performance target inconclusive twice ({why}): {s.options.perf_points:g} "
                                  "point(s) withheld; grade this student again with --perf on a quiet machine")

    def _run_test(self, i, suite, n, limit, gpu_env):
        s, tree, logs = self.setup, self.tree, self.logs
        if s.programs and n not in s.in_process:
            r, _ = testcases.run_checked_test_case(s.programs, tree, s.lab.suites, suite, n, logs, i, s.limits,
                                                   limit, s.gpu_note, gpu_env=gpu_env)
        elif s.programs:  # a test that calls student code directly: in the student's process (forgeable)
            r = testcases.run_test_case(tree, s.lab.suites, suite, n, self.inside, i, s.limits, limit, s.gpu_note,
                                        program=s.programs.student_tests(tree), mmlab=s.programs.checker_mmlab,
                                        extra_env={"MML_RUNNER": checker.runner_line(s.programs, tree, s.limits,
                                                                                     limit), **gpu_env})
        else:
            r = testcases.run_test_case(tree, s.lab.suites, suite, n, logs, i, s.limits, limit, s.gpu_note,
                                        extra_env=gpu_env)
        return r

    def _write(self, out_dir, build_status, seconds):
        s, name = self.setup, self.folder.name
        order = score.graded_order([n for _, n in s.tests], s.options.perf)
        card = score.score_student(order, self.results, s.weights, s.free, s.options.perf_points)
        outputs.write_student_files(out_dir, s.lab.number, name, self.feedback, card, build_status, self.results,
                                    seconds)
        return outputs.StudentRow(name, build_status, card.score, card.max_score, card.cells, self.flags,
                                  card.statuses, seconds)

    def _write_error(self, out_dir, error, seconds):
        """The row of a student whose files could not be written: a grader error with the reason (scored 0,
        regraded by hand), and a short feedback.txt where even that can be written."""
        reason = f"{type(error).__name__}: {error}"
        row = grader_error_row(self.folder.name, f"writing the results failed ({reason})", seconds,
                               sum(self.setup.weights.get(n, 0) for _, n in self.setup.tests), self.flags)
        try:
            d = out_dir / outputs.safe_name(self.folder.name)
            d.mkdir(parents=True, exist_ok=True)
            outputs.atomic_write(d / "feedback.txt", f"The grading script failed while writing your results "
                                 f"({reason}); your instructor has been told.\n")
        except Exception:
            pass  # the row says it all
        return row


def grader_error_row(name, reason, seconds=0.0, max_score=0.0, flags=()):
    """A student's row when the grader itself failed on them: 0 points, build "grader error", the reason as
    the first review flag (summary.txt counts them; grades.csv and the progress line show the reason)."""
    return outputs.StudentRow(name, GRADER_ERROR, 0.0, max_score, {}, [f"grader error: {reason}"] + list(flags),
                              {}, seconds)
