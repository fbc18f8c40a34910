// Lab 5 peer row (lab5.openblas): OpenBLAS's sgemm from the OS package, on the
// same number of threads as our stages. No student version: it is the bar.
#pragma once

#include <cstdint>
#include <string>

namespace reference::lab5 {

void matmul_openblas(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                     int threads);

// What OpenBLAS says about itself: version and build options, the kernel it
// chose for this CPU, its threading model, its current thread count.
std::string openblas_description();
// 0 = sequential build, 1 = pthreads, 2 = OpenMP (openblas_get_parallel()).
int openblas_parallel_mode();
int openblas_threads();

}  // namespace reference::lab5
