// Lab 4 reference: the classical product and Strassen on several threads
// (see labs/lab4/threads.h for the contract; the answers are in threads.cpp).
// Every stage runs the same classical kernel as lab 3
// (labs/common/classical_kernel.h) on each thread, so the speedup over one
// thread measures the threading alone.
#pragma once

#include <cstdint>

namespace reference::lab4 {

// pthreads: C's rows split into `threads` contiguous blocks, one thread each
// (pthread_create / pthread_join), boundaries on cache lines of C.
void matmul_pthreads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, int threads);

// OpenMP: C's rows cut into blocks of about `block_rows` rows, handed to the
// threads by `#pragma omp parallel for` with schedule(static) (contiguous
// shares fixed in advance) or schedule(dynamic) (the next block to whichever
// thread is free). The default height: labs/common/row_partition.h.
void matmul_omp_static(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K, int threads, std::int64_t block_rows);
void matmul_omp_dynamic(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                        std::int64_t K, int threads, std::int64_t block_rows);

// Strassen's top level on threads: the seven products run on up to 7
// threads, each with its own slice of one workspace; then all threads add the
// products into C, each its own rows. Below the top level, lab 3's sequential
// recursion (called, not copied) with the given cutoff.
void matmul_strassen_par(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K, int threads, std::int64_t cutoff);

}  // namespace reference::lab4
