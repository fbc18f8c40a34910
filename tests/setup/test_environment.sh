#!/usr/bin/env bash
# make test in the environments that users and images really bring. A fresh
# machine whose image set OPENBLAS_CORETYPE failed 11 cases of make test (a
# notice before every one-line error); this runs the whole of make test again
# under such environments, in a copy of the built tree, so the next variable
# that breaks a newcomer's first run is caught here first.
#
#   A  an HPC image's variables, as this user: OPENBLAS_CORETYPE=Haswell,
#      OPENBLAS_NUM_THREADS=1, OMP_NUM_THREADS=1, OMP_PROC_BIND=true,
#      GOMP_CPU_AFFINITY=0, LC_ALL=C, CUDA_VISIBLE_DEVICES empty, TMPDIR in a
#      folder of its own (not /tmp), HOME unset
#   B  (as root only) a plain user (nobody) who owns the copy, a non-UTF-8
#      locale (en_US.ISO-8859-1, compiled into a private LOCPATH),
#      CUDA_VISIBLE_DEVICES naming no device, HOME unset
#
# What mmlab does with each variable is in docs/setup.md ("Your environment").
# Each run must end "N passed, 0 failed". About two minutes a run on 2 cores.
# Prints one line per check, exits 1 on a failure, 77 when it cannot run here.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${BUILD:-build}
[ -x "$build/bin/mmlab-tests" ] && [ -f "$build/config.mk" ] ||
  { echo "skipped: build the tree first (make all): the runs use its programs"; exit 77; }

failures=0
check() {  # check CONDITION-RESULT WHAT [DETAIL]
  if [ "$1" = 0 ]; then echo "ok   - $2"; else echo "FAIL - $2"; [ -n "${3:-}" ] && echo "       $3"; failures=$((failures + 1)); fi
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mmlab-env-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# A copy of the built tree (timestamps kept, so make finds nothing to build;
# not the sanitizer builds), as a user's own clone would be.
copy_tree() {
  mkdir -p "$1"
  tar -C "$root" --exclude="./$build/asan" --exclude="./$build/tsan" -cf - . | tar -C "$1" -xpf -
}

# make test as a user starts it: at the top level (none of the make that runs
# this test: no MAKEFLAGS, MAKELEVEL), with `env` doing the rest. The run's
# last line and, on a failure, its failing checks.
run_make_test() {  # run_make_test NAME LOG COMMAND...
  local name=$1 log=$2; shift 2
  "$@" > "$log" 2>&1
  local rc=$? last
  last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
  local detail
  detail="exit $rc; ${last:-no summary line}; $(grep -E '^(TEST CASE:|[^ ]*:[0-9]+: ERROR)' "$log" | head -n 12 | tr '\n' '|')"
  check $([ $rc = 0 ] && grep -qE '^[0-9]+ passed, 0 failed' <<< "$last" && echo 0 || echo 1) \
    "make test, $name: ${last:-no summary}" "$detail"
}
at_top=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKE_TERMOUT -u MAKE_TERMERR -u HOME)

# A: an HPC image's environment.
copy_tree "$scratch/a"
mkdir -p "$scratch/a-tmp"
run_make_test "an HPC image's variables (OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1 LC_ALL=C ...)" "$scratch/a.log" \
  "${at_top[@]}" OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 OMP_PROC_BIND=true \
  GOMP_CPU_AFFINITY=0 LC_ALL=C CUDA_VISIBLE_DEVICES= TMPDIR="$scratch/a-tmp" \
  make -C "$scratch/a" --no-print-directory BUILD="$build" test
# The image's OMP_NUM_THREADS=1 must not make the threaded stages run on one thread.
threads=$("${at_top[@]}" OMP_NUM_THREADS=1 make -C "$scratch/a" --no-print-directory -s -f Makefile \
            --eval 'print-threads: ; @echo $(THREADS)' print-threads 2>/dev/null | tail -n1)
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
check $([ "$threads" = "$cores" ] && echo 0 || echo 1) \
  "OMP_NUM_THREADS=1: make's THREADS is still every core ($cores)" "THREADS=$threads"

# B: a plain user with a non-UTF-8 locale (root only: it takes another user).
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null || ! command -v localedef > /dev/null; then
  echo "skipped - make test as a plain user with a latin-1 locale: needs root, setpriv and localedef"
else
  copy_tree "$scratch/b"
  mkdir -p "$scratch/b-tmp" "$scratch/locale"
  locale_ok=1
  localedef -i en_US -f ISO-8859-1 "$scratch/locale/en_US.ISO-8859-1" > /dev/null 2>&1 || locale_ok=0
  chown -R nobody "$scratch/b" "$scratch/b-tmp"
  chmod 755 "$scratch"
  if [ $locale_ok = 1 ]; then locale_env=(LOCPATH="$scratch/locale" LC_ALL=en_US.ISO-8859-1)
  else locale_env=(LC_ALL=POSIX); echo "note - no en_US locale source here (localedef): the plain user runs with LC_ALL=POSIX"; fi
  run_make_test "as nobody, ${locale_env[*]: -1}, CUDA_VISIBLE_DEVICES=99" "$scratch/b.log" \
    "${at_top[@]}" "${locale_env[@]}" CUDA_VISIBLE_DEVICES=99 TMPDIR="$scratch/b-tmp" \
    setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups \
    make -C "$scratch/b" --no-print-directory BUILD="$build" test
fi

if [ $failures -gt 0 ]; then echo "environment tests: $failures failed"; exit 1; fi
echo "environment tests: all passed"
