#!/usr/bin/env bash
# make check LAB=N [TEST=name]: lab N's tests on the student's code and
# nothing else - no timing, no prompts, one line per test case (PASS/FAIL and
# why), everything on stdout (a CI log, such as the template repository's
# GitHub Actions run, then reads in order; some graders also count any stderr
# as a failure). Exit 0 only when every test case ran and passed.
#
# Each test case runs in its own process with a time limit and an output cap
# of its own, so that one endless loop or printing flood costs seconds, not
# the Actions step's 10 minutes and megabytes of log:
#   CHECK_TIME_LIMIT   seconds per test case (default 30): past it the case
#                      is stopped and fails with a line naming it and the limit
#   CHECK_OUTPUT_CAP   bytes of a test case's output shown (default 65536):
#                      past it the output is cut with a line saying so; the
#                      test's own PASS/FAIL line is still shown
# Usage: tools/check.sh BIN_DIR SUITES [TEST]
set -uo pipefail
bin=$1 suites=$2 test=${3:-}
limit=${CHECK_TIME_LIMIT:-30}
cap=${CHECK_OUTPUT_CAP:-65536}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# doctest splits --test-case at commas unless escaped (as tools/classroom/workflow.py does)
filter_of() { local n=${1//\\/\\\\}; printf '%s' "${n//,/\\,}"; }

# The test cases to run: every case of the lab's suites, or those TEST
# matches (a name, or a pattern: * matches anything), each run on its own.
filter=()
[ -n "$test" ] && filter=("--test-case=$test")  # already a filter (escaped by whoever wrote it)
mapfile -t cases < <("$bin/mmlab-tests" --test-suite="$suites" "${filter[@]}" --list-test-cases --no-version=true 2>/dev/null |
                     sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -vE '^$|^\[(doctest|tests)\]|^=====')
filters=()
for c in "${cases[@]}"; do filters+=("$(filter_of "$c")"); done

passed=0 failed=0 notes=""
for i in "${!filters[@]}"; do
  name=${cases[$i]}
  # The first CAP bytes are kept; the rest is read to the end (the program is
  # never stopped by a full pipe) and only its last 16 KiB kept, where the
  # test's own verdict line is.
  MML_IMPL=student timeout -k 5 "$limit" "$bin/mmlab-tests" --test-suite="$suites" --test-case="${filters[$i]}" \
      --reporters=check --no-version=true 2>&1 |
    { head -c "$cap" > "$scratch/head"; tail -c 16384 > "$scratch/tail"; }
  status=${PIPESTATUS[0]}
  timed_out=0
  { [ "$status" = 124 ] || [ "$status" = 137 ]; } && timed_out=1
  # (stopped by the limit, the test program's own "crashed: SIGTERM" line would say it twice)
  grep -vE '^\[(doctest|tests)\]' "$scratch/head" | grep -vE '^check: [0-9]+ passed' |
    { if [ $timed_out = 1 ]; then grep -vE '^FAIL  .*: crashed: SIG(TERM|KILL)'; else cat; fi; }
  if [ -s "$scratch/tail" ]; then
    echo "check: the output of '$name' was cut after $cap bytes (it printed more; printing is allowed, the rest is not shown; CHECK_OUTPUT_CAP changes the cap)"
    grep -E '^(PASS|FAIL)  ' "$scratch/tail" | { if [ $timed_out = 1 ]; then grep -vE ': crashed: SIG(TERM|KILL)'; else cat; fi; }
  fi
  summary=$(cat "$scratch/head" "$scratch/tail" | grep -E '^check: [0-9]+ passed' | tail -n1)
  [ -z "$notes" ] && notes=$(grep -E '^\[tests\]' "$scratch/head")
  if [ $timed_out = 1 ]; then
    echo "FAIL  $name: did not finish within check's time limit of $limit s per test case (an endless loop, or far too slow; CHECK_TIME_LIMIT changes the limit)"
    failed=$((failed + 1))
  elif [[ "$summary" =~ ^check:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
    [ "$status" = 0 ] || [ "${BASH_REMATCH[2]}" != 0 ] || {
      echo "FAIL  $name: the test program ended with exit $status after its tests"; failed=$((failed + 1)); }
  else
    echo "FAIL  $name: the tests crashed before they finished (exit $status)"
    failed=$((failed + 1))
  fi
done

if [ $((passed + failed)) = 0 ]; then
  # The test program's notes ([tests] GPU tests skipped: ...) only where they explain why nothing ran.
  [ -n "$notes" ] && echo "$notes"
  echo "check: 0 passed, 0 failed"
  echo "check: no test case ran$([ -n "$test" ] && echo " (TEST=$test matches none)")"
  exit 1
fi
echo "check: $passed passed, $failed failed"
[ "$failed" = 0 ]
