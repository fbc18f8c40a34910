// Lab 4: the product on several threads. You write the four functions in
// labs/lab4/threads.cpp. All matrices are row-major float32:
//   A is M x K, B is K x N, C is M x N; every element of C must be overwritten.
// `threads` >= 1 is the number of threads to use (mmlab --threads T,
// make lab4 THREADS=T); it may be larger than M, or than the cores.
#pragma once

#include <cstdint>

namespace student::lab4 {

void matmul_pthreads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, int threads);
void matmul_omp_static(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K, int threads, std::int64_t block_rows);
void matmul_omp_dynamic(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                        std::int64_t K, int threads, std::int64_t block_rows);
void matmul_strassen_par(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K, int threads, std::int64_t cutoff);

}  // namespace student::lab4
