#!/usr/bin/env bash
# The advice a student reads is true of how the build was configured: make
# lab1, make check LAB=1 and make sanitize LAB=1 never tell them to install
# what configure found, nor blame a missing package for what a configuration
# leaves out on purpose. Three configurations:
#
#   the build as it is    (MMLAB's build: CI's has CUDA, no GPU, and MPI)
#   CUDA=0, no MPI        a fresh build of lab 1 alone (ONLY_LAB=1) in a mount
#                         namespace that hides Open MPI (mpicxx, mpirun, its
#                         pkg-config modules): no "install the CUDA toolkit"
#   make sanitize LAB=1   the ASan build, lab 1 alone (no other lab's objects),
#                         with MPI installed: no "OpenMPI was not found"
#   make labN, GPU labs   one line (why, what to do) and exit 2 before any build or
#                         test in a CUDA=0 build; mmlab lab-ready's line before the
#                         tests where CUDA has no usable GPU
#   make lab1's summary   no "N skipped" of the other labs' test cases (doctest's
#                         count of what the suite filter left out)
#   make lab8's summary   its skipped GPU tests' reason as the skip gave it (a
#                         stand-in test program: no build)
#   tools/*-gpu.sh        no GPU: one line, exit 2, before any build (section 5)
#   a student release     the instructors' release test (test_release.py) judges its
#                         make lab1 and make check LAB=1 (CUDA=0) by these rules
#                         (--contradictions)
#
# A contradiction: "install the CUDA toolkit" / "nvcc was not found" in a
# build configured with CUDA=0 or with CUDA; "OpenMPI was not found" / "apt-get
# install libopenmpi-dev" where configure found MPI or in a sanitizer build;
# "apt-get install" of a package configure found (doctest, Google Benchmark,
# OpenBLAS). Builds two small trees: minutes (make test-all runs it).
# Run from the repository root; one line per check, exit 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
unset MAKEFLAGS MFLAGS MAKELEVEL  # started from make test-all: not its jobserver
jobs=-j"$(nproc 2>/dev/null || echo 2)"
mmlab=${MMLAB:-build/bin/mmlab}
build=$(dirname "$(dirname "$mmlab")")

failures=0
check() {  # check CONDITION-RESULT WHAT [DETAIL]
  if [ "$1" = 0 ]; then echo "ok   - $2"; else echo "FAIL - $2"; [ -n "${3:-}" ] && echo "$3" | head -n 30 | sed 's/^/       /'; failures=$((failures + 1)); fi
}
has() { grep -s "^$1 := " "$2" | sed "s/^$1 := //"; }

# contradictions CONFIG_MK OUTPUT [sanitizer]: the lines of OUTPUT that contradict CONFIG_MK.
contradictions() {
  local mk=$1 out=$2 san=${3:-} pats=()
  pats+=("apt-get install[^;]*(doctest-dev|libbenchmark-dev|libopenblas-dev)")
  if [ "$(has HAVE_CUDA "$mk")" = 1 ]; then pats+=("this build has no CUDA" "configured with CUDA=0")
  elif [ "$(has CUDA_CHOSEN_OFF "$mk")" = 1 ] || [ -n "$san" ]; then pats+=("install the CUDA toolkit" "nvcc was not found"); fi
  if [ "$(has HAVE_MPI "$mk")" = 1 ] || [ -n "$san" ]; then pats+=("OpenMPI was not found" "apt-get install libopenmpi-dev"); fi
  local p
  for p in "${pats[@]}"; do grep -E -- "$p" <<< "$out"; done
}

# Another test's output, judged by the same rules (test_release.py: make lab1 in a
# student release): test_messages.sh --contradictions CONFIG_MK < OUTPUT prints
# the lines that contradict CONFIG_MK, exit 1 if any.
if [ "${1:-}" = --contradictions ]; then
  [ -f "${2:-}" ] || { echo "usage: test_messages.sh --contradictions CONFIG_MK < OUTPUT (no config.mk '${2:-}')" >&2; exit 2; }
  bad=$(contradictions "$2" "$(cat)")
  [ -z "$bad" ] || { echo "$bad"; exit 1; }
  exit 0
fi

# 1. The build as it is.
[ -f "$build/config.mk" ] || { echo "FAIL - no $build/config.mk: build first (make all)"; exit 1; }
out=$(make --no-print-directory "$jobs" BUILD="$build" lab1 SOLUTION=1 SIZE=96 THREADS=1 2>&1); rc=$?
check $rc "the build as it is: make lab1 runs" "$(tail -n 20 <<< "$out")"
check $(grep -qE '^\[doctest\] test cases:.*skipped' <<< "$out" && echo 1 || echo 0) \
  "the build as it is: make lab1's test summary counts no other lab's tests as skipped" "$(grep '^\[doctest\]' <<< "$out")"
bad=$(contradictions "$build/config.mk" "$out")
check $([ -z "$bad" ] && echo 0 || echo 1) "the build as it is: make lab1 gives no advice that contradicts configure" "$bad"
out=$(make --no-print-directory "$jobs" BUILD="$build" check LAB=1 2>&1); rc=$?
bad=$(contradictions "$build/config.mk" "$out")
check $([ -z "$bad" ] && echo 0 || echo 1) "the build as it is: make check LAB=1 gives none either" "$bad"
# A GPU lab where no GPU can run it (CI: CUDA, no device): the one line of mmlab lab-ready, not a test program
# whose every case is skipped first.
gpu_lab=$(awk -F'|' '$2 ~ /gpu/ {print $1 + 0; exit}' labs/catalog.txt)
if [ "$(has HAVE_CUDA "$build/config.mk")" = 1 ] && ! why=$("$mmlab" lab-ready "$gpu_lab" 2>&1); then
  out=$(make --no-print-directory "$jobs" BUILD="$build" lab$gpu_lab 2>&1); rc=$?
  check $([ $rc = 2 ] && ! grep -q "doctest" <<< "$out" && grep -qF "$why" <<< "$out" && echo 0 || echo 1) \
    "the build as it is, no usable GPU: make lab$gpu_lab gives lab-ready's line ($why), runs no tests, exit 2" "$out"
else
  echo "skipped: make lab$gpu_lab without a usable GPU (this build has no CUDA, or a GPU that can run it)"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 2. CUDA=0 and no MPI, in a mount namespace (where one can be made).
if [ "$(id -u)" = 0 ]; then ns=(unshare --mount --propagation private)
else ns=(unshare --user --map-root-user --mount --propagation private); fi
if "${ns[@]}" true 2>/dev/null; then
  hide_mpi='for p in /usr/bin/mpicxx /usr/bin/mpic++ /usr/bin/mpirun /usr/bin/mpiexec /usr/bin/orterun \
                     /usr/lib/x86_64-linux-gnu/pkgconfig/ompi* /usr/lib/x86_64-linux-gnu/pkgconfig/mpi*; do
              [ -e "$p" ] && mount --bind /dev/null "$p"; done; exec "$@"'
  out=$("${ns[@]}" bash -c "$hide_mpi" hide env NO_INSTALL=1 make --no-print-directory "$jobs" BUILD="$work/cpu" CUDA=0 \
        ONLY_LAB=1 lab1 SOLUTION=1 SIZE=96 THREADS=1 2>&1); rc=$?
  check $rc "CUDA=0, no MPI: make lab1 runs" "$(tail -n 20 <<< "$out")"
  check $([ "$(has HAVE_MPI "$work/cpu/config.mk")" = 0 ] && echo 0 || echo 1) "CUDA=0, no MPI: configure found no MPI" \
    "$(grep '^configure' <<< "$out")"
  bad=$(contradictions "$work/cpu/config.mk" "$out")
  check $([ -z "$bad" ] && echo 0 || echo 1) "CUDA=0, no MPI: make lab1 gives no advice that contradicts configure" "$bad"
  check $(grep -q "GPU tests skipped" <<< "$out" && echo 1 || echo 0) \
    "CUDA=0, no MPI: make lab1 says nothing of the GPU labs' tests (none of them runs there)" "$(grep '^\[tests\]' <<< "$out")"
  gpu=$("$work/cpu/bin/lab1/mmlab-tests" --test-suite=gpu-lab6 2>&1)
  check $(grep -q "GPU tests skipped: this build was configured with CUDA=0" <<< "$gpu" && echo 0 || echo 1) \
    "CUDA=0, no MPI: a run of GPU suites says CUDA=0 was chosen" "$(grep '^\[tests\]' <<< "$gpu")"
  out=$("${ns[@]}" bash -c "$hide_mpi" hide make --no-print-directory "$jobs" BUILD="$work/cpu" ONLY_LAB=1 check LAB=1 2>&1)
  bad=$(contradictions "$work/cpu/config.mk" "$out")
  check $([ -z "$bad" ] && echo 0 || echo 1) "CUDA=0, no MPI: make check LAB=1 gives none either" "$bad"
  # A GPU lab in this build: one line (why, what to do), exit 2, nothing built or run
  # (it once ran a test program of 0 cases first).
  for n in $(awk -F'|' '$2 ~ /gpu/ {print $1 + 0}' labs/catalog.txt); do
    out=$("${ns[@]}" bash -c "$hide_mpi" hide make --no-print-directory "$jobs" BUILD="$work/cpu" ONLY_LAB=1 lab$n 2>&1); rc=$?
    check $([ $rc = 2 ] && [ "$(wc -l <<< "$out")" = 1 ] && grep -q "make lab$n: lab $n needs a CUDA GPU, but this build was configured with CUDA=0" <<< "$out" \
            && grep -q "'make clean' then make lab$n without CUDA=0" <<< "$out" && echo 0 || echo 1) \
      "CUDA=0: make lab$n says in one line why it cannot run and what to do, exit 2 (rc $rc)" "$out"
  done
  # configure.sh newer than the configuration (a course's update): make configures
  # again, and CUDA=0 stays (it once came back with CUDA, rebuilding every GPU lab).
  touch -d '2000-01-01' "$work/cpu/config.mk"
  out=$("${ns[@]}" bash -c "$hide_mpi" hide env NO_INSTALL=1 make --no-print-directory "$jobs" BUILD="$work/cpu" ONLY_LAB=1 \
        check LAB=1 2>&1)
  check $([ "$(has CUDA_CHOSEN_OFF "$work/cpu/config.mk")" = 1 ] && grep -q "CUDA: off (CUDA=0)" <<< "$out" && echo 0 || echo 1) \
    "CUDA=0 stays when configure runs again (tools/configure.sh newer than the configuration)" "$(grep '^configure' <<< "$out")"
else
  echo "skipped: CUDA=0, no MPI (cannot make a mount namespace here: unshare needs root or user namespaces)"
fi

# 3. make sanitize LAB=1 (MPI installed or not: a sanitizer build leaves it out on purpose).
out=$(make --no-print-directory "$jobs" BUILD="$work/san" sanitize LAB=1 SOLUTION=1 2>&1); rc=$?
check $rc "make sanitize LAB=1 runs clean" "$(tail -n 20 <<< "$out")"
bad=$(contradictions "$work/san/asan/config.mk" "$out" sanitizer)
check $([ -z "$bad" ] && echo 0 || echo 1) "make sanitize LAB=1 gives no advice that contradicts configure" "$bad"
others=$(find "$work/san/asan/obj/labs" "$work/san/asan/obj/solutions" -name '*.o' 2>/dev/null | grep -vE '/lab1/|/common/' | head -n 5)
check $([ -z "$others" ] && [ -x "$work/san/asan/bin/lab1/mmlab-tests" ] && echo 0 || echo 1) \
  "make sanitize LAB=1 builds lab 1 alone (no other lab's objects)" "$others"

# 4. make labN's summary of a GPU lab whose GPU tests were skipped gives the skip's
# own reason (a stand-in test program prints each), not "no usable GPU here" for a
# build configured with CUDA=0.
printf '#!/bin/sh\necho "[tests] GPU tests skipped: $WHY"\necho "[doctest] test cases: 0 | 0 passed | 0 failed | 9 skipped"\n' \
  > "$work/fake-tests" && chmod +x "$work/fake-tests"
for why in "this build was configured with CUDA=0: CPU labs only (make clean ...)" \
           "this is a sanitizer build (make sanitize): CPU stages" "no CUDA device found (no driver)"; do
  out=$(WHY="$why" bash tools/run-tests.sh "$work/fake-tests" --test-suite=lab8,gpu-lab8 | tail -n1)
  short=${why%%[:(]*}; short=${short% }
  check $(grep -qF "lab 8's GPU tests NOT run: $short;" <<< "$out" && ! grep -q "no usable GPU" <<< "$out" && echo 0 || echo 1) \
    "make lab8's summary gives the skip's reason: $short" "$out"
done

# 5. The GPU-machine scripts the handouts name (tools/lab8-gpu.sh, ...) where no
# GPU is (an nvidia-smi that lists none): one line, exit 2, nothing built (a
# student ran lab8-gpu.sh: "nvidia-smi: command not found", then a build).
mkdir -p "$work/no-gpu" && printf '#!/bin/sh\nexit 9\n' > "$work/no-gpu/nvidia-smi" && chmod +x "$work/no-gpu/nvidia-smi"
for script in tools/gpu-check.sh tools/lab*-gpu.sh; do
  out=$(PATH="$work/no-gpu:$PATH" OUT="$work/gpu-out" timeout 60 bash "$script" 2>&1); rc=$?
  check $([ $rc = 2 ] && [ "$(wc -l <<< "$out")" = 1 ] && grep -q "no NVIDIA GPU here" <<< "$out" && echo 0 || echo 1) \
    "$script without a GPU: one line, exit 2, nothing built (rc $rc)" "$out"
done

if [ $failures -gt 0 ]; then echo "message tests: $failures failed"; exit 1; fi
echo "message tests: all passed"
