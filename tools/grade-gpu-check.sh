#!/usr/bin/env bash
# The grader on a GPU machine, end to end, for the labs named: for each lab N
# two submissions, "good" (the reference's files of lab N handed in as a
# student's: namespace student::labN, includes from labs/labN) and "starter"
# (the untouched starter), graded by tools/grade.py through the checker.
# Expect full marks for good and 0 for starter (not for lab 3: its answer is
# solutions/lab3/strassen_recursion.cpp, code given compiled to lab 4, not a
# file a lab 3 submission holds; tests/grading/test_given.py builds a real one); the summaries and feedback go
# to $OUT (or build/grade-gpu-check).
#   bash tools/grade-gpu-check.sh 8 11 12     (GRADE_FLAGS="--sandbox unshare": more flags for grade.py)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/grade-gpu-check}
mkdir -p "$out"
[ $# -gt 0 ] || { echo "usage: tools/grade-gpu-check.sh LAB..." >&2; exit 2; }
for lab in "$@"; do
  [ -d "solutions/lab$lab" ] || { echo "grade-gpu-check: no solutions/lab$lab (run it in the instructors' repository)" >&2; exit 2; }
  subs=$(mktemp -d) res=$(mktemp -d)
  mkdir -p "$subs/good/lab$lab" "$subs/starter/labs"
  for f in solutions/lab$lab/*; do
    sed -e "s/reference::lab$lab/student::lab$lab/g" -e "s|solutions/lab$lab|labs/lab$lab|g" "$f" > "$subs/good/lab$lab/$(basename "$f")"
  done
  cp -r "labs/lab$lab" "$subs/starter/labs/"
  echo "== lab $lab"
  # shellcheck disable=SC2086
  python3 tools/grade.py "$subs" --lab "$lab" --out "$res/out" -j 2 ${GRADE_FLAGS:-} > "$out/grade$lab.log" 2>&1
  echo "grade.py exit $?"
  grep -E "^\[[0-9]+/[0-9]+\]|^containment|WARNING" "$out/grade$lab.log" | cut -c1-300
  cp "$res/out/grades.csv" "$out/grades$lab.csv" 2>/dev/null
  for who in good starter; do cp "$res/out/$who/feedback.txt" "$out/feedback$lab-$who.txt" 2>/dev/null; done
  rm -rf "$subs" "$res"
done
