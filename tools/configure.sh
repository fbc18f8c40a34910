#!/usr/bin/env bash
# Finds what the build needs and writes build/config.mk.
#
# Needs (Debian/Ubuntu packages): doctest-dev, libbenchmark-dev, libopenblas-dev,
# and a C++17 compiler with OpenMP. Optional: the CUDA toolkit (nvcc, cuBLAS);
# without it the GPU labs are left out and everything else builds.
# Run as root, it installs missing packages with apt-get; otherwise it stops
# and prints the one command to run.
set -euo pipefail
build=${1:-build}
mkdir -p "$build"

missing=()
have_header() { echo "#include <$1>" | ${CXX:-g++} -std=c++17 -x c++ -fsyntax-only - $2 >/dev/null 2>&1; }
check_all() {
  missing=()
  command -v ${CXX:-g++} >/dev/null 2>&1 || missing+=(g++)
  have_header doctest/doctest.h "" || missing+=(doctest-dev)
  have_header benchmark/benchmark.h "" || missing+=(libbenchmark-dev)
  have_header cblas.h "$(pkg-config --cflags openblas 2>/dev/null)" || missing+=(libopenblas-dev)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
}
check_all
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "configure: installing missing packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq "${missing[@]}" >&2 || {
      echo "configure: error: 'apt-get install ${missing[*]}' failed; install them and run make again" >&2; exit 1; }
    check_all
    [ ${#missing[@]} -eq 0 ] || { echo "configure: error: still missing after install: ${missing[*]}" >&2; exit 1; }
  else
    echo "configure: error: missing packages: ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

blas_cflags=$(pkg-config --cflags openblas 2>/dev/null || true)
blas_libs=$(pkg-config --libs openblas 2>/dev/null || echo -lopenblas)

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

cat > "$build/config.mk" <<MK
# Written by tools/configure.sh; delete it (or 'make clean') to configure again.
HAVE_CUDA := $have_cuda
NVCC := $nvcc
CUDA_HOME := $cuda_home
DETECTED_CUDA_ARCH := $cuda_arch
BLAS_CFLAGS := $blas_cflags
BLAS_LIBS := $blas_libs
MK
echo "configure: ok (CUDA: $([ $have_cuda = 1 ] && echo "yes, sm_$cuda_arch $arch_note" || echo "no - GPU labs left out"))" >&2
