#!/usr/bin/env bash
# The build's stamps (build/toolchain.txt: g++, for every .cpp object;
# build/flags.txt: the stage flags, for labs/ and solutions/; build/nvcc.txt:
# nvcc and its flags, for every .cu object) are written only by a make that
# read the configuration.
# A goal that needs none (help, grade, student-release, gradescope, compare)
# once wrote them without nvcc's part: the next `make` compiled every object
# again, serially in make check (the classroom test's 10-20 min in CI), and
# every tree seeded from this build (make grade, Gradescope) did too.
#
# In a scratch build with a made-up configuration (CUDA on, whatever this
# machine has: the stamps' text is what is checked, nothing is compiled):
#   a configured make    writes the stamps, with nvcc's part
#   each goal above      leaves them as they were, text and modification time
#   a CUDA=0 build       keeps the .cpp and .cu objects of the CUDA build (the
#                        Gradescope set-up seeds its CUDA=0 build so: the CPU
#                        objects were compiled again, 275 s); other C++ flags
#                        or another g++ recompile every .cpp object, another
#                        nvcc or GPU target every .cu object (ccache before
#                        nvcc does not: the lead's NVCC="ccache nvcc" builds,
#                        then make test-all's scripts without it)
# Run from the repository root; prints one line per check, exits 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
# Its own makes see only the variables it names: a `make CUDA=0 test` above it
# hands CUDA=0 down through MAKEFLAGS, which would turn the made-up CUDA
# configuration off.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
# `make CUDA=0 test` exports CUDA=0 to this script: its made-up CUDA build
# would then write no nvcc stamp (3 false failures)
unset CUDA

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

stamps() { for f in toolchain.txt flags.txt nvcc.txt; do printf '%s %s\n' "$(stat -c %y "$b/$f" 2>/dev/null)" "$(cat "$b/$f" 2>/dev/null)"; done; }

make -q --no-print-directory BUILD="$b" "$b/config.mk" > /dev/null 2>&1
check $(grep -q 'g++' "$b/toolchain.txt" 2>/dev/null && grep -q 'stages:' "$b/flags.txt" && grep -q 'sm_80' "$b/nvcc.txt" && echo 0 || echo 1) \
  "a configured make writes the stamps, nvcc's with the GPU target" "$(cat "$b/toolchain.txt" "$b/flags.txt" "$b/nvcc.txt" 2>&1)"
before=$(stamps)
sleep 1  # a rewrite within the same second would still show in the text, and now in the time too
for goal in help grade compare gradescope student-release; do
  # -n: the goals' own work is not the point (and without their arguments they stop with a usage line)
  make -n --no-print-directory BUILD="$b" "$goal" > /dev/null 2>&1
  after=$(stamps)
  check $([ "$after" = "$before" ] && echo 0 || echo 1) "make $goal leaves the build's stamps as they were" \
    "before: $before | after: $after"
done

# Made-up objects, newer than the stamps (sleep: a rewrite afterwards is newer
# still); make -q then says whether each would be compiled again.
# (Each with its compile_commands entry, build/cc/: an object without one is compiled again.)
cpp_obj=$b/obj/cpu/stats.cpp.o stage_obj=$b/obj/labs/lab1/loop_orders.cpp.o cu_obj=$b/obj/gpu/bandwidth.cu.o
fresh_objects() {
  sleep 1; mkdir -p "$b/cc"
  for o in "$cpp_obj" "$stage_obj" "$cu_obj"; do
    mkdir -p "$(dirname "$o")"; touch "$o" "$b/cc/${o//\//__}.json"
  done
  sleep 1
}
up_to_date() {  # up_to_date OBJECT [MAKE VARIABLES...]: 0 when make would not compile it
  local o=$1; shift
  make -q --no-print-directory BUILD="$b" "$@" "$o" > /dev/null 2>&1
}
check_rebuild() {  # check_rebuild WANT(0 kept, 1 compiled again) WHAT OBJECT [MAKE VARIABLES...]
  local want=$1 what=$2; shift 2
  up_to_date "$@"; local got=$?
  [ "$got" -gt 1 ] && got=1
  check $([ "$got" = "$want" ] && echo 0 || echo 1) "$what" "make -q $* exited $got; stamps: $(stamps)"
}
make -q --no-print-directory BUILD="$b" "$b/config.mk" > /dev/null 2>&1
fresh_objects
check_rebuild 0 "a CUDA build's objects are up to date after it (the made-up objects are fresh)" "$cpp_obj"
sed -i 's/^HAVE_CUDA := 1/HAVE_CUDA := 0/; s/^CUDA_CHOSEN_OFF := 0/CUDA_CHOSEN_OFF := 1/' "$b/config.mk"
touch -d '+1 hour' "$b/config.mk"
check_rebuild 0 "a CUDA=0 build keeps the .cpp objects of the CUDA build" "$cpp_obj" CUDA=0
check_rebuild 0 "a CUDA=0 build keeps the stage objects of the CUDA build" "$stage_obj" CUDA=0
check_rebuild 1 "other C++ stage flags (OPT=-O1) compile the stage objects again" "$stage_obj" CUDA=0 OPT=-O1
fresh_objects
check_rebuild 1 "another g++ compiles every .cpp object again" "$cpp_obj" CUDA=0 CXX=g++-other
fresh_objects
sed -i 's/^HAVE_CUDA := 0/HAVE_CUDA := 1/; s/^CUDA_CHOSEN_OFF := 1/CUDA_CHOSEN_OFF := 0/' "$b/config.mk"
check_rebuild 0 "back to CUDA with the same nvcc: the .cu objects are kept" "$cu_obj"
check_rebuild 1 "another GPU target (CUDA_ARCH=90) compiles every .cu object again" "$cu_obj" CUDA_ARCH=90
fresh_objects
check_rebuild 1 "another nvcc compiles every .cu object again" "$cu_obj" NVCC=/other/nvcc
fresh_objects
check_rebuild 0 "... and another nvcc leaves the .cpp objects as they are" "$cpp_obj" NVCC=/other/nvcc
fresh_objects
check_rebuild 0 "a launcher before the same nvcc (NVCC='ccache /other/nvcc') compiles nothing again" "$cu_obj" \
  NVCC="ccache /other/nvcc"
# The grader builds each student's runner in a copy of the built tree without
# solutions/ (the grader's build step), where the Makefile adds
# -Iprebuilt/include: nvcc's stamp took it in, and every student's build
# compiled every .cu object again (CI: the hostile class's 60 s builds timed out).
make -q --no-print-directory BUILD="$b" "$b/config.mk" > /dev/null 2>&1  # the stamps of the plain build again
fresh_objects
student=$work/student
mkdir -p "$student"
git ls-files -z | grep -zv '^solutions/' | xargs -0 cp -p --parents -t "$student" 2>/dev/null
check_rebuild_in() {  # check_rebuild_in FOLDER WANT WHAT OBJECT [MAKE VARIABLES...]
  local folder=$1; shift
  (cd "$folder" && check_rebuild "$@"; exit $failures)
  failures=$?
}
check_rebuild_in "$student" 0 "a copy without solutions/ (the grader's student tree) keeps the .cu objects" "$cu_obj"
check_rebuild_in "$student" 0 "... and the .cpp objects" "$cpp_obj"

if [ $failures -gt 0 ]; then echo "stamp tests: $failures failed"; exit 1; fi
echo "stamp tests: all passed"
