#!/usr/bin/env python3
"""Writes the GitHub Actions workflow of one lab for students' repositories (the
template repository a course hands out): one step per test case of the lab (the lab's suites in
labs/catalog.txt, as the built test program lists them), each running `make
check LAB=N TEST=<name>`, worth its points; then a step that adds up the points
and fails the run unless every test case passed.

  python3 tools/classroom/workflow.py LAB TESTS_BINARY [--points-per-test P] > classroom.yml

The instructors' `make student-release OUT=dir LAB=N` puts it at .github/workflows/classroom.yml
of the release.

Only GitHub's own actions are used (checkout, cache): GitHub Classroom, whose
autograding actions (classroom-resources/autograding-*) the workflow once
used, was retired on 28 August 2026 and those actions are deprecated; plain
`run:` steps work in any repository made from the template, with or without
a classroom tool around it. Each test step may fail without stopping the
others (continue-on-error); its outcome, not its conclusion, is what the
points step reads (GitHub's "Contexts reference": outcome is the result
before continue-on-error applies). Each step has a time limit in minutes
(timeout-minutes) and `make check` its own per test case (tools/check.sh).

The build is cached between pushes (actions/cache), keyed on the content of
every file outside the lab's folder (labs/labN/, the student's files) and
the runner's image: a push that changes only a student's files restores the build
and compiles only what those files reach. Make decides by modification time
and a checkout gives every file the time of the checkout, so the files the
key covers are set back to one fixed old time (NON_STUDENT_MTIME): older than
the cached objects, which are then up to date, while the student's files
stay newer than them and are compiled again. Any change outside labs/labN/
is another key: a full build, never a stale object.
"""
import argparse
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
PACKAGES = "g++ make pkg-config doctest-dev libbenchmark-dev libopenblas-dev"
# The files outside the student's lab folder (labs/labN/), NUL-separated and
# sorted: the cache key is their content, and they get NON_STUDENT_MTIME.
NON_STUDENT_MTIME = "2000-01-01T00:00:00Z"


def non_student_files(lab):
    return (f"find . -path ./.git -prune -o -path ./build -prune -o -path ./labs/lab{lab} -prune "
            "-o -type f -print0 | sort -z")


def cache_key_command(lab):
    return (f'echo "key=mmlab-build-lab{lab}-$ImageOS-$ImageVersion-$({non_student_files(lab)} | xargs -0 sha256sum '
            f'| sha256sum | cut -c1-40)" >> "$GITHUB_OUTPUT"')


def mtime_command(lab):
    return f"{non_student_files(lab)} | xargs -0 touch -d {NON_STUDENT_MTIME}"


def catalog_suites(lab):
    for line in (REPO / "labs" / "catalog.txt").read_text().splitlines():
        cols = [c.strip() for c in line.split("|")]
        if len(cols) == 5 and cols[0] == str(lab):
            return cols[1], cols[2].split()
    return None, None


def test_cases(binary, suites):
    out = subprocess.run([binary, f"--test-suite={','.join(suites)}", "--list-test-cases", "--no-version=true"],
                         capture_output=True, text=True, check=True).stdout
    names = []
    for line in out.splitlines():
        line = line.strip()
        if not line or line.startswith("[doctest]") or line.startswith("[tests]") or line.startswith("====="):
            continue
        names.append(line)
    return names


def yaml_quote(text):
    return "'" + text.replace("'", "''") + "'"


def shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def doctest_filter(name):
    # doctest splits --test-case at commas unless escaped (2.4.9+)
    return name.replace("\\", "\\\\").replace(",", "\\,")


def points_command(n, points):
    """The last step's script: the points of the test steps that succeeded, in the run's summary
    ($GITHUB_STEP_SUMMARY) and as a notice; exit 1 unless all passed. OUTCOME_i is step test-i's outcome."""
    return ('passed=0; for i in $(seq 1 ' + str(n) + '); do v="OUTCOME_$i"; [ "${!v}" = success ] && passed=$((passed + 1)); done; '
            f'line="Points $(awk -v p=$passed \'BEGIN {{ print p * {points:g} }}\')/{n * points:g} ($passed of {n} test cases passed)"; '
            'echo "$line" >> "$GITHUB_STEP_SUMMARY"; echo "::notice title=Autograding::$line"; '
            f'[ "$passed" = {n} ]')


def workflow(lab, kind, names, points):
    steps = []
    for i, name in enumerate(names, 1):
        command = f"make --no-print-directory check LAB={lab} TEST={shell_quote(doctest_filter(name))}"
        steps.append(f"""    - name: {yaml_quote(name)}
      id: test-{i}
      continue-on-error: true
      timeout-minutes: 10
      # points: {points:g}
      run: {yaml_quote(command)}""")
    env = "\n".join(f"        OUTCOME_{i}: ${{{{ steps.test-{i}.outcome }}}}" for i in range(1, len(names) + 1))
    gpu_note = ("\n# Lab {0} is a GPU lab: GitHub's hosted runners have no GPU, so its tests need a\n"
                "# self-hosted runner with an NVIDIA GPU (runs-on) and CUDA=1 builds.\n".format(lab)) if kind == "gpu" else ""
    return f"""# Autograding for lab {lab} of matmul-lab on every push: one step per test
# case, each worth {points:g} point(s); the last step adds them up (the run's
# summary) and fails the run unless all passed. Written by
# tools/classroom/workflow.py from the lab's test cases; regenerate it
# (make student-release OUT=dir LAB={lab}) when the tests change, rather than
# editing it by hand.{gpu_note}
name: Autograding Tests
'on':
- push
- workflow_dispatch
permissions:
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
    - name: Checkout code
      uses: actions/checkout@v4
    - name: Install the build's packages
      run: sudo apt-get update -qq && sudo apt-get install -y -qq {PACKAGES}
    - name: The cache key (the files outside labs/lab{lab}/ and the runner's image)
      id: key
      run: {yaml_quote(cache_key_command(lab))}
    - name: The files outside labs/lab{lab}/ older than the cached build
      run: {yaml_quote(mtime_command(lab))}
    - name: Restore the build of an earlier push
      id: cache
      uses: actions/cache/restore@v4
      with:
        path: build
        key: ${{{{ steps.key.outputs.key }}}}
    - name: Build (once; the hosted runner has no CUDA, so the CPU labs only)
      run: make -j"$(nproc)" all
    - name: Save the build for the next push
      if: steps.cache.outputs.cache-hit != 'true'
      uses: actions/cache/save@v4
      with:
        path: build
        key: ${{{{ steps.key.outputs.key }}}}
{chr(10).join(steps)}
    - name: Points
      if: ${{{{ !cancelled() }}}}
      env:
{env}
      run: {yaml_quote(points_command(len(names), points))}
"""


def main(argv):
    p = argparse.ArgumentParser(description="the autograding workflow (GitHub Actions) of one lab")
    p.add_argument("lab", type=int)
    p.add_argument("tests_binary")
    p.add_argument("--points-per-test", type=float, default=1.0)
    a = p.parse_args(argv)
    kind, suites = catalog_suites(a.lab)
    if not suites:
        print(f"classroom: there is no lab {a.lab} in labs/catalog.txt", file=sys.stderr)
        return 2
    names = test_cases(a.tests_binary, suites)
    if not names:
        print(f"classroom: lab {a.lab} has no test cases in {a.tests_binary}", file=sys.stderr)
        return 2
    sys.stdout.write(workflow(a.lab, kind, names, a.points_per_test))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
