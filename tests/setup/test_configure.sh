#!/usr/bin/env bash
# Tests of tools/configure.sh on machines that lack packages, simulated in a
# mount namespace (unshare) so that this machine's own packages stay as they
# are: inside it, OpenBLAS's headers, libraries and pkg-config module are
# hidden behind empty mounts, and the only cblas.h is a netlib-style one
# (cblas_sgemm, none of OpenBLAS's own functions) - the machine on which the
# old "any cblas.h" check passed and the build then failed.
#
#   netlib-only, NO_INSTALL=1  exit 1, names libopenblas-dev, runs no apt-get, writes no config.mk
#   ... and no apt-get         the message names the dnf, pacman and Homebrew packages too
#   installed as root          configure installs (a stand-in apt-get that prints
#                              screens of dpkg progress, then un-hides OpenBLAS):
#                              one line per step, none of the progress, exit 0
#   ... and the install fails  exit 1, the failing step's whole output shown
#   only hypothesis missing    its install: one line, none of the progress
#   the machine as it is       exit 0, config.mk names OpenBLAS's flags
#
# Needs unshare with mount namespaces (root, or unprivileged user namespaces);
# where it cannot make one, it says so and exits 77 (skipped).
# Run from the repository root; prints one line per check, exits 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ "${1:-}" = --inside ]; then
  # In the new mount namespace: hide OpenBLAS and (with $2 = no-apt) apt-get;
  # $2 = apt-ok / apt-fail: a stand-in apt-get (below).
  empty=$(mktemp -d)
  hidden=$(mktemp)  # what is mounted over, in order (apt-ok's install un-hides it)
  # hypothesis-ok: only python3-hypothesis is missing (its package made unimportable).
  if [ "${2:-}" = hypothesis-ok ]; then
    init=$(/usr/bin/python3 -c 'import hypothesis; print(hypothesis.__file__)' 2>/dev/null)
    [ -n "$init" ] || { echo "hypothesis is not installed here: nothing to hide"; exit 3; }
    gone=$(mktemp); echo 'raise ImportError("hidden by test_configure.sh")' > "$gone"
    mount --bind "$gone" "$init" && echo "$init" >> "$hidden"
  fi
  [ "${2:-}" = hypothesis-ok ] || for path in /usr/include /usr/include/x86_64-linux-gnu /usr/include/openblas /usr/lib/x86_64-linux-gnu \
              /usr/lib/x86_64-linux-gnu/pkgconfig /usr/lib/pkgconfig /usr/share/pkgconfig /usr/lib64 /usr/local/include; do
    [ -d "$path" ] || continue
    for hit in "$path"/*openblas* "$path"/*/*openblas*; do
      [ -e "$hit" ] || continue
      if [ -d "$hit" ]; then mount --bind "$empty" "$hit"; else mount --bind /dev/null "$hit"; fi
      echo "$hit" >> "$hidden"
    done
  done
  # The only cblas.h: a netlib-style header (what libblas-dev installs).
  netlib=$(mktemp -d)
  printf '%s\n' '/* netlib-style CBLAS: the standard interface, nothing of OpenBLAS */' \
    'enum CBLAS_ORDER {CblasRowMajor=101, CblasColMajor=102};' \
    'enum CBLAS_TRANSPOSE {CblasNoTrans=111, CblasTrans=112, CblasConjTrans=113};' \
    'void cblas_sgemm(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int, int, float,' \
    '                 const float*, int, const float*, int, float, float*, int);' > "$netlib/cblas.h"
  [ "${2:-}" = hypothesis-ok ] || for h in /usr/include/cblas.h /usr/include/x86_64-linux-gnu/cblas.h; do
    [ -e "$h" ] && mount --bind "$netlib/cblas.h" "$h" && echo "$h" >> "$hidden"
  done
  if [ "${2:-}" = no-apt ]; then
    # A PATH without apt-get: every program of /usr/bin and /bin but that one.
    bin=$(mktemp -d)
    for p in /usr/local/bin/* /usr/bin/* /bin/*; do
      name=${p##*/}
      [ "$name" = apt-get ] || [ -e "$bin/$name" ] || ln -s "$p" "$bin/$name"
    done
    export PATH=$bin
  fi
  if [ "${2:-}" = apt-ok ] || [ "${2:-}" = apt-fail ] || [ "${2:-}" = hypothesis-ok ]; then
    # apt-get as a fresh machine's is heard: screens of progress. Its install
    # then un-hides OpenBLAS (apt-ok) or fails as on a broken mirror (apt-fail).
    fake=$(mktemp -d)
    cat > "$fake/apt-get" <<FAKE
#!/usr/bin/env bash
for i in \$(seq 200); do echo "Unpacking libfake\$i (1.0-\$i) ... dpkg progress"; done
[ "\$1" = install ] || exit 0
[ $2 = apt-fail ] && { echo "E: Unable to locate package \${*: -1}"; exit 100; }
tac "$hidden" | while read -r m; do umount "\$m"; done
FAKE
    chmod +x "$fake/apt-get"
    export PATH="$fake:$PATH"
  fi
  shift 2
  exec "$@"
fi

failures=0
check() {  # check CONDITION-RESULT WHAT [DETAIL]
  if [ "$1" = 0 ]; then echo "ok   - $2"; else echo "FAIL - $2"; [ -n "${3:-}" ] && echo "       $3"; failures=$((failures + 1)); fi
}

if [ "$(id -u)" = 0 ]; then ns=(unshare --mount --propagation private)
else ns=(unshare --user --map-root-user --mount --propagation private); fi
if ! "${ns[@]}" true 2>/dev/null; then
  echo "skipped: cannot make a mount namespace here (unshare: needs root or unprivileged user namespaces)"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. netlib-only machine, NO_INSTALL=1 (as root: the path that would install).
out=$("${ns[@]}" bash "$0" --inside apt env NO_INSTALL=1 bash tools/configure.sh "$work/b1" 2>&1); rc=$?
check $([ $rc = 1 ] && echo 0 || echo 1) "netlib-only: configure stops (exit 1)" "exit $rc: $out"
check $(grep -q 'libopenblas-dev' <<< "$out" && echo 0 || echo 1) "netlib-only: the message names libopenblas-dev" "$out"
check $(grep -q 'installing' <<< "$out" && echo 1 || echo 0) "NO_INSTALL=1: nothing installed" "$out"
check $(grep -q 'sudo apt-get install' <<< "$out" && echo 0 || echo 1) "NO_INSTALL=1: prints the install command" "$out"
check $([ ! -e "$work/b1/config.mk" ] && echo 0 || echo 1) "netlib-only: no config.mk written"
[ "$(grep -c . <<< "$out")" = 1 ]; check $? "netlib-only: one line" "$out"

# 2. ... and no apt-get: the other package managers' names.
out=$("${ns[@]}" bash "$0" --inside no-apt env NO_INSTALL=1 bash tools/configure.sh "$work/b2" 2>&1); rc=$?
check $([ $rc = 1 ] && echo 0 || echo 1) "no apt-get: configure stops (exit 1)" "exit $rc: $out"
for want in "dnf install openblas-devel" "pacman -S openblas" "brew install openblas" "apt-get install libopenblas-dev"; do
  check $(grep -q "$want" <<< "$out" && echo 0 || echo 1) "no apt-get: names '$want'" "$out"
done

# 2b. The same through make, as a student meets it: configure's line, make's
# one line saying it stopped, exit 2, and nothing built.
out=$("${ns[@]}" bash "$0" --inside apt env NO_INSTALL=1 make --no-print-directory BUILD="$work/b4" demo 2>&1); rc=$?
check $([ $rc = 2 ] && echo 0 || echo 1) "make demo, netlib-only: make stops (exit 2)" "exit $rc: $out"
check $([ "$(grep -c . <<< "$out")" = 2 ] && echo 0 || echo 1) "make demo, netlib-only: two lines (configure's, make's)" "$out"
check $(grep -q 'configure stopped' <<< "$out" && echo 0 || echo 1) "make demo, netlib-only: make says configure stopped" "$out"
check $([ ! -e "$work/b4/config.mk" ] && [ ! -d "$work/b4/obj" ] && echo 0 || echo 1) "make demo, netlib-only: nothing built"

# 2c. Missing packages installed as root: one line per step, no dpkg progress.
out=$("${ns[@]}" bash "$0" --inside apt-ok env -u NO_INSTALL bash tools/configure.sh "$work/b5" 2>&1); rc=$?
check $rc "installed as root: configure succeeds" "$out"
check $(grep -q 'dpkg progress' <<< "$out" && echo 1 || echo 0) "installed as root: none of apt-get's progress shown" "$out"
check $(grep -q '^configure: apt-get install .*libopenblas-dev' <<< "$out" && echo 0 || echo 1) \
  "installed as root: one line names the install step" "$out"
check $([ "$(grep -c . <<< "$out")" -le 5 ] && echo 0 || echo 1) "installed as root: at most 5 lines" "$out"
out=$("${ns[@]}" bash "$0" --inside apt-fail env -u NO_INSTALL bash tools/configure.sh "$work/b6" 2>&1); rc=$?
check $([ $rc = 1 ] && echo 0 || echo 1) "install fails: configure stops (exit 1)" "exit $rc: $out"
check $(grep -q 'Unable to locate package' <<< "$out" && [ "$(grep -c 'dpkg progress' <<< "$out")" = 200 ] && echo 0 || echo 1) \
  "install fails: the failing step's whole output shown" "$out"
check $([ ! -e "$work/b6/config.mk" ] && echo 0 || echo 1) "install fails: no config.mk written"

# 2d. Only python3-hypothesis missing (the grader's property tests), as root:
# its install is one line like the others, none of dpkg's progress.
out=$("${ns[@]}" bash "$0" --inside hypothesis-ok env -u NO_INSTALL bash tools/configure.sh "$work/b7" 2>&1); rc=$?
if [ $rc = 3 ]; then echo "skipped - hypothesis's install step: $out"
else
  check $rc "hypothesis missing, as root: configure succeeds" "$out"
  check $(grep -q '^configure: apt-get install python3-hypothesis' <<< "$out" && echo 0 || echo 1) \
    "hypothesis missing: one line names its install step" "$out"
  check $(grep -q 'dpkg progress' <<< "$out" && echo 1 || echo 0) "hypothesis missing: none of apt-get's progress shown" "$out"
  check $([ "$(grep -c . <<< "$out")" -le 3 ] && echo 0 || echo 1) "hypothesis missing: at most 3 lines" "$out"
fi

# 3. The machine as it is (OpenBLAS installed here: make test-all needs it).
out=$(bash tools/configure.sh "$work/b3" 2>&1); rc=$?
check $rc "this machine: configure succeeds" "$out"
check $(grep -q '^BLAS_LIBS := .*-lopenblas' "$work/b3/config.mk" 2>/dev/null && echo 0 || echo 1) \
  "this machine: config.mk links OpenBLAS" "$(cat "$work/b3/config.mk" 2>/dev/null)"

if [ $failures -gt 0 ]; then echo "configure tests: $failures failed"; exit 1; fi
echo "configure tests: all passed"
