#!/usr/bin/env bash
# Runs the doctest program with the given arguments and ends with one line
# "N passed, N failed, N skipped" (test cases; skipped = GPU tests on a machine
# without a GPU). Exits non-zero on any failure.
set -uo pipefail
bin=$1; shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$bin" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
line=$(grep -E '^\[doctest\] test cases:' "$log" | tail -n1)
if [ -z "$line" ]; then
  echo "0 passed, 1 failed (the test program crashed or printed no summary; exit $status)"
  exit 1
fi
passed=$(echo "$line" | sed -E 's/.*\| *([0-9]+) passed.*/\1/')
failed=$(echo "$line" | sed -E 's/.*\| *([0-9]+) failed.*/\1/')
# (No "skipped" where a suite or test case was selected: tests/main.cpp leaves it out.)
skipped=$(echo "$line" | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+' || echo 0)
# A GPU lab's suite (make lab6..) on a machine without a GPU: its GPU tests
# did not run, and "N passed, 0 failed" alone would read as a pass.
# The reason is the skip line's own first clause (CUDA=0, no nvcc, a sanitizer
# build, no GPU): "no usable GPU here" would blame the machine for a choice.
gpu_note=""
if grep -q '^\[tests\] GPU tests skipped' "$log"; then
  why=$(grep -m1 '^\[tests\] GPU tests skipped' "$log" | sed -E 's/^\[tests\] GPU tests skipped: ?//; s/[:(].*//; s/ +$//')
  for n in $(echo " $* " | grep -oE 'gpu-lab[0-9]+' | sed 's/gpu-lab//'); do
    [ -f "tests/gpu/test_lab$n.cpp" ] && gpu_note=" (lab $n's GPU tests NOT run: ${why:-see the first line}; the first line says more)"
  done
fi
# Lab 12's MPI (or NCCL) tests where the MPI programs or mpirun are missing:
# skipped with the reason printed first ("[tests] lab 12's MPI tests skipped: ...").
# Only where lab 12's suites were asked for (or every suite): a run of lab 5's
# tests alone says nothing about lab 12.
lab12_asked=1
case " $* " in *" --test-suite="*) [[ " $* " =~ --test-suite=[^\ ]*lab12 ]] || lab12_asked=0 ;; esac
if [ "$lab12_asked" = 1 ] && grep -q "^\[tests\] lab 12's [A-Z]* tests skipped" "$log"; then
  gpu_note+=" (NOT run: $(grep "^\[tests\] lab 12's [A-Z]* tests skipped" "$log" | sed 's/^\[tests\] //' | head -n2 | tr '\n' ' ' | sed 's/ $//'))"
fi
case " $* " in
  *" --test-suite="*) echo "$passed passed, $failed failed$gpu_note" ;;  # one lab: the other labs' tests are not "skipped"
  *" --test-suite-exclude="*)  # make test: doctest counts the excluded suites (make test-all's) as skipped
    echo "$passed passed, $failed failed, $skipped skipped (with the instructor tooling's tests, make test-all runs)" ;;
  *) echo "$passed passed, $failed failed, $skipped skipped" ;;
esac
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
