// The CPU peer: OpenBLAS's sgemm from the OS package (libopenblas-dev, found
// by tools/configure.sh), the bar that lab 5's stages are measured against
// (the lab5.openblas row). Not a reference solution and not student work: a
// library call, so it is in every build, the grader's included.
#pragma once

#include <cstdint>
#include <string>

#include "cpu/machine.h"

namespace mml::peers {

// C = A*B (row-major float32) on `threads` threads of OpenBLAS's own pool.
// Dimensions must be below 2^31 (OpenBLAS's int); larger throws std::invalid_argument.
void matmul_openblas(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                     int threads);

// What OpenBLAS says about itself: version and build options, the kernel it
// chose for this CPU, its threading model (printed under the machine header:
// the peer's speed depends on the kernel it picked).
std::string openblas_description();
// Whether OpenBLAS's kernel uses the widest SIMD this CPU has. A narrower one
// (OPENBLAS_CORETYPE=Haswell on an AVX-512 CPU, or an OpenBLAS too old to know
// the CPU) makes the peer slower than the library can be, and a table that
// compares with a hobbled peer flatters everyone: empty when the kernel is the
// widest, else a warning that says why and what to do.
std::string openblas_weaker_than_cpu();

// Whether OpenMP threads are told to spin between parallel regions
// (OMP_WAIT_POLICY=active, or GOMP_SPINCOUNT=infinite): then the stages'
// idle OpenMP threads keep their cores busy while the OpenBLAS row runs (its
// pthreads build uses a pool of its own), and OpenBLAS loses up to half its
// speed on all cores (handouts/lab5.md, "What to expect"). Empty when not,
// else a warning that says why and what to do.
std::string openmp_threads_spin_beside_openblas();

// Called first thing in main(): when OPENBLAS_CORETYPE in the environment
// forces a kernel narrower than this CPU's widest SIMD, the program runs
// itself again without it (OpenBLAS reads the variable when it loads, so it
// cannot be undone in this process). It says nothing then: the notice stands
// once, beside the OpenBLAS peer (openblas_description), so that every other
// output - a one-line error above all - is the same as without the variable.
// MMLAB_KEEP_OPENBLAS_CORETYPE=1 keeps the setting (and the warning).
// Under MMLAB_SIMD=avx2 on a wider CPU it runs itself again with
// OPENBLAS_CORETYPE=Haswell: the peer an AVX2 machine would have.
void run_openblas_with_its_own_kernel(char** argv);
// " (OPENBLAS_CORETYPE=Haswell set aside: ...)" in the process that
// run_openblas_with_its_own_kernel ran again; empty otherwise.
std::string openblas_coretype_set_aside();

// 0 = sequential build, 1 = pthreads, 2 = OpenMP (openblas_get_parallel()).
int openblas_parallel_mode();
// The number of threads its next call will use.
int openblas_threads();

}  // namespace mml::peers
