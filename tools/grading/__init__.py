"""The grading script's package: `make grade SUBMISSIONS=dir LAB=N [OUT=dir]`,
or `python3 tools/grade.py SUBMISSIONS --lab N`, whose entry point it is.

For each student (one sub-folder each) it builds this repository with the
student's lab files in place of the starter, in a temporary folder of its own,
runs every test case of the lab on the student's code (MML_IMPL=student), one
process per test case with time and resource limits, the verdict always from
a checker program without the student's code (checker.py), and writes

  OUT/grades.csv                one row per student, one column per test case
  OUT/<student>/results.json    Gradescope's results.json format
  OUT/<student>/feedback.txt    what the student reads: build errors, failed checks
  OUT/summary.txt               what was graded, how, and the class's results

The modules, in the order a run uses them (each says more in its header):

  cli.py          the command line, the input checks, the exit statuses
  catalog.py      labs/catalog.txt: the labs, their kind and test suites
  intake.py       the student folders; where a student's lab files are; copying them in
  environment.py  the environment and folder every program starts with: trusted ones apart from students'
  sandbox.py      one command in the sandbox (bubblewrap, or sandbox.sh's unshare), with limits, as an
                  unprivileged user; the containment probe; stopping them all
  users.py        who student code runs as (never root); handing a build tree over to that user
  visible.py      what a bubblewrap sandbox shows: system and toolchain folders, the masks of a tree
  install.py      bubblewrap (the default level's tool) installed as root with apt-get, or the line to run
  limits.py       a cgroup per command: memory (with shared memory) and processes of the whole sandbox
  build.py        the starter tree (snapshot of this checkout), building it and a student's tree
  doctest_xml.py  doctest's --test-case filter and its XML report
  checker.py      the trusted checker and the untrusted runner: paths, command lines, running the checker
  testcases.py    listing the lab's test cases, running one (through the checker); the --perf target
  gpu_lease.py    the GPU as a graded resource: one student's GPU test or performance run at a time on each GPU
  calibration.py  each test on the untouched starter and the reference: free tests, time limits
  review.py       review flags: code worth an instructor's look (never a score), with its own time budget
  score.py        the weights file; one student's points
  student.py      one student, from their folder to their results
  outputs.py      grades.csv, results.json, feedback.txt, summary.txt; OUT replaced whole
  run_state.py    the per-student state of a run that can be resumed: rows, fingerprints (local and Slurm)
  resume.py       a local run's state beside OUT: a killed class rerun grades only the students not done
  escape.py       student text made safe for where it is shown (terminal, files, CSV, Gradescope)
  similarity.py   --similarity: pairs of submissions sharing code beyond the starter (winnowed fingerprints
                  of normalized tokens)
  simtokens.py    --similarity's C++/CUDA lexer and normalizations
  similarity_report.py  similarity.html and similarity.csv
  class_run.py    the whole run over a class, step by step
  slurm.py        the same run as Slurm jobs (--slurm): a prepare job, a job array, the merge; restartable
  slurm_state.py  the Slurm run's state folder and the plan the prepare job hands to the tasks
  slurm_worker.py the jobs' side (--slurm-worker): the prepare job, an array task
  slurm_commands.py  sbatch, squeue, sacct, scancel by absolute path (system folders or --slurm-bin)
  common.py       the repository's path, the run-ending errors, printing

handouts/grading.md is the instructors' manual (layout of a submission,
scoring, weights, containment and its limits); tests/grading/ holds the
tests (test_grade.py end to end, test_<module>.py per module). Python 3.10+
standard library only: the XML, JSON and CSV handling, the time limits and
the parallel runs would be fragile in a shell script.
"""
