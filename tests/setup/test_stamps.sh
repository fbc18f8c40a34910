#!/usr/bin/env bash
# The build's stamps (build/toolchain.txt, build/flags.txt: every object
# depends on one) are written only by a make that read the configuration.
# A goal that needs none (help, grade, student-release, gradescope, compare)
# once wrote them without nvcc's part: the next `make` compiled every object
# again, serially in make check (the classroom test's 10-20 min in CI), and
# every tree seeded from this build (make grade, Gradescope) did too.
#
# In a scratch build with a made-up configuration (CUDA on, whatever this
# machine has: the stamps' text is what is checked, nothing is compiled):
#   a configured make    writes the stamps, with nvcc's part
#   each goal above      leaves them as they were, text and modification time
# Run from the repository root; prints one line per check, exits 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

failures=0
check() {  # check CONDITION-RESULT WHAT [DETAIL]
  if [ "$1" = 0 ]; then echo "ok   - $2"; else echo "FAIL - $2"; [ -n "${3:-}" ] && echo "       $3"; failures=$((failures + 1)); fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
b=$work/build
mkdir -p "$b"
# What tools/configure.sh writes, for a machine with CUDA (written by hand: no
# probe runs, and the check is as sharp on a machine without nvcc).
cat > "$b/config.mk" <<'MK'
HAVE_CUDA := 1
CUDA_CHOSEN_OFF := 0
NVCC := /nonexistent/nvcc
CUDA_HOME := /nonexistent
DETECTED_CUDA_ARCH := 80
BLAS_CFLAGS :=
BLAS_LIBS := -lopenblas
HAVE_BLIS := 0
HAVE_MPI := 0
HAVE_NCCL := 0
MK
touch -d '+1 hour' "$b/config.mk"  # newer than tools/configure.sh: not configured again

stamps() { for f in toolchain.txt flags.txt; do printf '%s %s\n' "$(stat -c %y "$b/$f" 2>/dev/null)" "$(cat "$b/$f" 2>/dev/null)"; done; }

make -q --no-print-directory BUILD="$b" "$b/config.mk" > /dev/null 2>&1
check $(grep -q 'nvcc -O3 sm_80' "$b/toolchain.txt" 2>/dev/null && grep -q 'nvcc -O3 sm_80' "$b/flags.txt" && echo 0 || echo 1) \
  "a configured make writes the stamps with nvcc's part" "$(cat "$b/toolchain.txt" "$b/flags.txt" 2>&1)"
before=$(stamps)
sleep 1  # a rewrite within the same second would still show in the text, and now in the time too
for goal in help grade compare gradescope student-release; do
  # -n: the goals' own work is not the point (and without their arguments they stop with a usage line)
  make -n --no-print-directory BUILD="$b" "$goal" > /dev/null 2>&1
  after=$(stamps)
  check $([ "$after" = "$before" ] && echo 0 || echo 1) "make $goal leaves the build's stamps as they were" \
    "before: $before | after: $after"
done

if [ $failures -gt 0 ]; then echo "stamp tests: $failures failed"; exit 1; fi
echo "stamp tests: all passed"
