#!/usr/bin/env bash
# Finds what the build needs and writes build/config.mk.
#
# Needs (Debian/Ubuntu packages): doctest-dev, libbenchmark-dev, libopenblas-dev,
# pkg-config, and a C++17 compiler with OpenMP. Optional: the CUDA toolkit
# (nvcc, cuBLAS; without it the GPU labs are left out and everything else
# builds) and BLIS (libblis-dev: a second CPU peer row where installed).
# Lab 12: OpenMPI (libopenmpi-dev, openmpi-bin) is installed like the
# required packages where configure runs as root with apt-get (CI runs lab
# 12's MPI tests), but is not required: without it lab 12's MPI programs are
# left out, everything else builds, and the hint names the packages. So is
# python3-hypothesis (the grader's property tests; skipped, saying so, without). NCCL
# (nccl.h under the CUDA include folder or /usr/include, libnccl) comes with
# the CUDA toolkit or libnccl-dev; with MPI and CUDA it adds lab 12's GPU program.
#
# OpenBLAS is detected as OpenBLAS, never as "some cblas.h": netlib's
# reference BLAS (libblas-dev, a common package) also installs a cblas.h, but
# lacks openblas_set_num_threads and is 10-50x slower, so a peer row built on
# it would be wrong twice. The test is the `openblas` pkg-config module or
# openblas_config.h, plus a program that calls openblas_get_num_threads and
# links (tests/setup/test_configure.sh simulates a netlib-only machine).
#
# Missing packages: as root with apt-get, installed (DEBIAN_FRONTEND=
# noninteractive); otherwise, or with NO_INSTALL=1, nothing is installed and
# the one command to run is printed (with the dnf, pacman and Homebrew names
# where apt-get is not here). Exit 1 then, and no config.mk is written.
# Installing prints one line per step (apt-get update, apt-get install); the
# package manager's own output (screens of dpkg progress) goes to a log that
# is printed in full only when the step fails.
set -euo pipefail
build=${1:-build}
cxx=${CXX:-g++}

# Package names per package manager, in the order of `wanted` below.
wanted=(compiler doctest benchmark openblas pkgconfig)
declare -A apt=([compiler]=g++ [doctest]=doctest-dev [benchmark]=libbenchmark-dev [openblas]=libopenblas-dev [pkgconfig]=pkg-config)
declare -A dnf=([compiler]=gcc-c++ [doctest]=doctest-devel [benchmark]=google-benchmark-devel [openblas]=openblas-devel [pkgconfig]=pkgconf-pkg-config)
declare -A pacman=([compiler]=gcc [doctest]=doctest [benchmark]=benchmark [openblas]=openblas [pkgconfig]=pkgconf)
declare -A brew=([compiler]=gcc [doctest]=doctest [benchmark]=google-benchmark [openblas]=openblas [pkgconfig]=pkg-config)

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# step WHAT [quietly] COMMAND...: one line saying what runs; the command's
# output is kept aside and printed in full only when it fails (then step
# fails too; `quietly`: a failure that the caller handles, nothing printed).
step() {
  local what=$1; shift
  echo "configure: $what" >&2
  local quiet=0
  [ "$1" = quietly ] && { quiet=1; shift; }
  local rc=0
  "$@" > "$scratch/step.log" 2>&1 || rc=$?
  [ $rc = 0 ] && return 0
  [ $quiet = 1 ] && return 1
  echo "configure: $what failed (exit $rc); its output:" >&2
  sed 's/^/  | /' "$scratch/step.log" >&2
  return 1
}
apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"; }

have_header() { echo "#include <$1>" | $cxx -std=c++17 -x c++ -fsyntax-only - $2 >/dev/null 2>&1; }

# OpenBLAS's flags: its pkg-config module, else its header where Debian and
# most distributions put it (openblas_config.h next to its own cblas.h).
openblas_flags() {
  if pkg-config --exists openblas 2>/dev/null; then
    echo "$(pkg-config --cflags openblas)|$(pkg-config --libs openblas)"
    return
  fi
  local dir
  for dir in /usr/include/openblas /usr/include/x86_64-linux-gnu/openblas-pthread \
             /usr/include/x86_64-linux-gnu/openblas-openmp /usr/include/x86_64-linux-gnu /usr/include \
             /opt/homebrew/opt/openblas/include /usr/local/opt/openblas/include; do
    if [ -f "$dir/openblas_config.h" ]; then echo "-I$dir|-lopenblas"; return; fi
  done
  echo "|"
}

# True when a program that calls OpenBLAS's own functions compiles and links.
openblas_links() {
  local cflags=$1 libs=$2
  cat > "$scratch/ob.cpp" <<'CPP'
#include <cblas.h>
#include <openblas_config.h>
int main() {
    float a = 1, b = 2, c = 0;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1);
    return openblas_get_num_threads() > 0 && c == 2 ? 0 : 1;
}
CPP
  # shellcheck disable=SC2086
  $cxx -std=c++17 $cflags "$scratch/ob.cpp" -o "$scratch/ob" $libs >/dev/null 2>&1
}

check_all() {
  missing=()
  # (CXX may carry a launcher: CXX="ccache g++" needs both programs.)
  local word
  for word in $cxx; do command -v "$word" >/dev/null 2>&1 || { missing+=(compiler); return; }; done
  have_header doctest/doctest.h "" || missing+=(doctest)
  have_header benchmark/benchmark.h "" || missing+=(benchmark)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkgconfig)
  IFS='|' read -r blas_cflags blas_libs <<< "$(openblas_flags)"
  if [ -z "$blas_libs" ] || ! openblas_links "$blas_cflags" "$blas_libs"; then missing+=(openblas); fi
}

names_for() {  # names_for apt|dnf|pacman|brew: the missing packages in that manager's names
  local -n table=$1
  local out=() m
  for m in "${missing[@]}"; do out+=("${table[$m]}"); done
  echo "${out[*]}"
}

install_hint() {
  local hint="run: sudo apt-get install $(names_for apt)"
  if ! command -v apt-get >/dev/null 2>&1; then
    hint="install them with one of: sudo apt-get install $(names_for apt) (Debian/Ubuntu);"
    hint+=" sudo dnf install $(names_for dnf) (Fedora/RHEL); sudo pacman -S $(names_for pacman) (Arch);"
    hint+=" brew install $(names_for brew) (macOS)"
  fi
  echo "$hint"
}

check_all
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "${NO_INSTALL:-0}" != 1 ]; then
    pkgs=$(names_for apt)
    echo "configure: missing packages: $pkgs; installing them (as root, with apt-get)" >&2
    # shellcheck disable=SC2086
    { step "apt-get update (the package lists)" apt-get update -q &&
      step "apt-get install $pkgs" apt_install $pkgs; } || {
      echo "configure: error: installing $pkgs failed (above); install them and run make again" >&2; exit 1; }
    check_all
    [ ${#missing[@]} -eq 0 ] || { echo "configure: error: still missing after install: $(names_for apt)" >&2; exit 1; }
  else
    why=""
    [ "${NO_INSTALL:-0}" = 1 ] && why=" (NO_INSTALL=1: nothing installed)"
    echo "configure: error: missing packages: $(names_for apt)$why; $(install_hint)" >&2
    exit 1
  fi
fi

# BLIS (optional): a second CPU peer where libblis-dev is installed.
blis_cflags=""; blis_libs=""; have_blis=0
for dir in /usr/include/blis /usr/include/x86_64-linux-gnu/blis-openmp /usr/include/x86_64-linux-gnu/blis-pthread /usr/include; do
  if [ -f "$dir/blis.h" ]; then
    printf '#include <blis.h>\nint main(){ return bli_info_get_version_str() ? 0 : 1; }\n' > "$scratch/blis.cpp"
    if $cxx -std=c++17 -I"$dir" "$scratch/blis.cpp" -o "$scratch/blis" -lblis >/dev/null 2>&1; then
      have_blis=1; blis_cflags="-I$dir"; blis_libs="-lblis"
    fi
    break
  fi
done

# CUDA: nvcc on PATH or in /usr/local/cuda, unless CUDA=0 asks for a CPU-only build.
nvcc=""
if [ "${CUDA:-}" != 0 ]; then
  nvcc=$(command -v nvcc || true)
  [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
fi
have_cuda=0; cuda_home=""; cuda_arch=""; arch_note=""
if [ -n "$nvcc" ]; then
  have_cuda=1
  cuda_home=$(cd "$(dirname "$nvcc")/.." && pwd)
  # Build for the GPU that is present; `make CUDA_ARCH=86` overrides.
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .' || true)
  if [[ "$cap" =~ ^[0-9]+$ ]]; then cuda_arch=$cap; arch_note="detected"
  else cuda_arch=80; arch_note="default (no GPU found; PTX included so newer GPUs run it)"; fi
fi

# OpenMPI (lab 12): the compile and link flags of mpicxx, else of pkg-config's
# ompi-cxx or mpi module; only the C API is used (OMPI_SKIP_MPICXX), and a
# program calling MPI_Init must link. mpirun is looked up on PATH.
mpi_flags() {
  if command -v mpicxx >/dev/null 2>&1 && mpicxx --showme:compile >/dev/null 2>&1; then
    echo "$(mpicxx --showme:compile)|$(mpicxx --showme:link)"
    return
  fi
  local mod
  for mod in ompi-cxx mpi; do
    if pkg-config --exists "$mod" 2>/dev/null; then
      echo "$(pkg-config --cflags "$mod")|$(pkg-config --libs "$mod")"
      return
    fi
  done
  echo "|"
}
mpi_links() {
  printf '#include <mpi.h>\nint main(int c, char** v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' > "$scratch/mpi.cpp"
  # shellcheck disable=SC2086
  $cxx -std=c++17 -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1 $1 "$scratch/mpi.cpp" -o "$scratch/mpi" $2 >/dev/null 2>&1
}
check_mpi() {
  IFS='|' read -r mpi_cflags mpi_libs <<< "$(mpi_flags)"
  have_mpi=0
  if [ -n "$mpi_libs" ] && mpi_links "$mpi_cflags" "$mpi_libs"; then have_mpi=1; fi
  mpirun=$(command -v mpirun || true)
}
check_mpi
mpi_note=""
if [ $have_mpi = 0 ] || [ -z "$mpirun" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "${NO_INSTALL:-0}" != 1 ]; then
    # Without an update first where the package lists are fresh enough; where
    # they are not, that try's failure is expected and stays quiet.
    mpi_pkgs="libopenmpi-dev openmpi-bin"
    # shellcheck disable=SC2086
    { step "apt-get install $mpi_pkgs (OpenMPI, for lab 12)" quietly apt_install $mpi_pkgs ||
      { step "apt-get update (the package lists)" apt-get update -q &&
        step "apt-get install $mpi_pkgs (OpenMPI, for lab 12)" apt_install $mpi_pkgs; }; } ||
      echo "configure: warning: OpenMPI could not be installed (above); lab 12's MPI part is left out" >&2
    check_mpi
  fi
  if [ $have_mpi = 0 ]; then mpi_note="no - lab 12's MPI programs left out (sudo apt-get install libopenmpi-dev openmpi-bin)"
  elif [ -z "$mpirun" ]; then mpi_note="yes, but no mpirun on PATH (sudo apt-get install openmpi-bin)"; fi
fi
[ -z "$mpi_note" ] && mpi_note="yes ($mpirun)"

# The grader's property tests (the instructors' tests/grading/test_properties.py) need hypothesis for the system's python3:
# installed like OpenMPI where configure runs as root with apt-get; elsewhere those tests say they are skipped.
if [ -x /usr/bin/python3 ] && ! /usr/bin/python3 -c 'import hypothesis' >/dev/null 2>&1 &&
   [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "${NO_INSTALL:-0}" != 1 ]; then
  # One line per step like every other package (dpkg's progress only when it fails).
  { step "apt-get install python3-hypothesis (the grader's property tests)" quietly apt_install python3-hypothesis ||
    { step "apt-get update (the package lists)" apt-get update -q &&
      step "apt-get install python3-hypothesis (the grader's property tests)" apt_install python3-hypothesis; }; } ||
    echo "configure: warning: python3-hypothesis could not be installed (above); the grader's property tests are skipped" >&2
fi
[ $have_mpi = 1 ] && mpi_cflags="$mpi_cflags -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1"

# NCCL (lab 12's GPU program): nccl.h in the CUDA toolkit or /usr/include, and
# a program calling ncclGetVersion must link against libnccl.
have_nccl=0; nccl_cflags=""; nccl_libs=""; nccl_note="no (needs CUDA)"
if [ $have_cuda = 1 ]; then
  nccl_note="no - lab 12's GPU program left out (NCCL comes with the CUDA toolkit, or: sudo apt-get install libnccl-dev)"
  for dir in "$cuda_home/include" "$cuda_home/targets/x86_64-linux/include" /usr/include; do
    [ -f "$dir/nccl.h" ] || continue
    printf '#include <nccl.h>\nint main() { int v = 0; return ncclGetVersion(&v) == ncclSuccess && v > 0 ? 0 : 1; }\n' > "$scratch/nccl.cpp"
    for libdir in "$cuda_home/lib64" "$cuda_home/targets/x86_64-linux/lib" /usr/lib/x86_64-linux-gnu; do
      if $cxx -std=c++17 -I"$dir" -I"$cuda_home/include" "$scratch/nccl.cpp" -o "$scratch/nccl" -L"$libdir" -lnccl \
           -Wl,-rpath,"$libdir" >/dev/null 2>&1; then
        have_nccl=1; nccl_cflags="-I$dir"; nccl_libs="-L$libdir -lnccl -Wl,-rpath,$libdir"
        nccl_note="yes ($dir/nccl.h)"
        break 2
      fi
    done
  done
fi

mkdir -p "$build"
tmp="$build/config.mk.tmp"
cat > "$tmp" <<MK
# Written by tools/configure.sh; delete it (or 'make clean') to configure again.
HAVE_CUDA := $have_cuda
CUDA_CHOSEN_OFF := $([ "${CUDA:-}" = 0 ] && echo 1 || echo 0)
NVCC := $nvcc
CUDA_HOME := $cuda_home
DETECTED_CUDA_ARCH := $cuda_arch
BLAS_CFLAGS := $blas_cflags
BLAS_LIBS := $blas_libs
HAVE_BLIS := $have_blis
BLIS_CFLAGS := $blis_cflags
BLIS_LIBS := $blis_libs
HAVE_MPI := $have_mpi
MPI_CFLAGS := $mpi_cflags
MPI_LIBS := $mpi_libs
MPIRUN := $mpirun
HAVE_NCCL := $have_nccl
NCCL_CFLAGS := $nccl_cflags
NCCL_LIBS := $nccl_libs
MK
mv "$tmp" "$build/config.mk"
cuda_note="no - GPU labs left out"
[ "${CUDA:-}" = 0 ] && cuda_note="off (CUDA=0) - GPU labs left out"
[ $have_cuda = 1 ] && cuda_note="yes, sm_$cuda_arch $arch_note"
echo "configure: ok (OpenBLAS: ${blas_libs}; BLIS: $([ $have_blis = 1 ] && echo yes || echo "no (optional: libblis-dev)");" \
     "CUDA: $cuda_note;" \
     "MPI: $mpi_note; NCCL: $nccl_note)" >&2
