#!/usr/bin/env bash
# make check LAB=N [TEST=name]: lab N's tests on the student's code and
# nothing else - no timing, no prompts, one line per test case (PASS/FAIL and
# why), everything on stdout (GitHub Classroom's command grader counts any
# stderr as a failure). Exit 0 only when every test case ran and passed.
# Usage: tools/check.sh BIN_DIR SUITES [TEST]
set -uo pipefail
bin=$1 suites=$2 test=${3:-}
filter=()
[ -n "$test" ] && filter=("--test-case=$test")
out=$(MML_IMPL=student "$bin/mmlab-tests" --test-suite="$suites" "${filter[@]}" --reporters=check --no-version=true 2>&1)
status=$?
summary=$(echo "$out" | grep -E '^check: [0-9]+ passed' | tail -n1)
# The test program's notes ([tests] GPU tests skipped: ...) only where they
# explain why nothing ran; doctest's own banner never.
if [[ "$summary" == *"0 passed, 0 failed"* ]]; then echo "$out" | grep -vE '^\[doctest\]'
else echo "$out" | grep -vE '^\[(doctest|tests)\]'; fi
if [ -z "$summary" ]; then
  echo "check: the tests crashed before they finished (exit $status)"
  exit 1
fi
case "$summary" in
  *"0 passed, 0 failed"*) echo "check: no test case ran$([ -n "$test" ] && echo " (TEST=$test matches none)")"; exit 1 ;;
esac
[ $status -eq 0 ] && [[ "$summary" == *" 0 failed"* ]]
