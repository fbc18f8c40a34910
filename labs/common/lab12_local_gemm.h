// Lab 12 (given code, not a TODO): the product each process computes on its
// own blocks. Every rank of lab 12's CPU algorithms multiplies with lab 5's
// packed BLIS-style GEMM (the reference, solutions/lab5), reached only through
// this narrow interface: the binding to lab 5 lives in one place,
// harness/stages/lab12/references.cpp. A build without the reference
// solutions (the grader's) has no lab 5 kernel; local_gemm then uses
// OpenBLAS, and local_kernel_description() says so.
#pragma once

#include <cstdint>
#include <string>

namespace mml::lab12 {

// C (m x n, row stride ldc) = A * B, or C += A * B when `accumulate`; A is
// m x k (row stride lda), B is k x n (row stride ldb); all row-major float32.
// m, n or k may be 0 (k = 0 without accumulate sets C to 0). Not thread-safe:
// one call at a time per process (it keeps scratch buffers).
void local_gemm(const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                std::int64_t ldc, std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate);

enum class LocalKernel { Lab5, OpenBlas };
// Which kernel local_gemm calls, on how many threads (per process). Throws
// std::runtime_error for Lab5 when this build has no lab 5 kernel.
void set_local_kernel(LocalKernel kernel, int threads);
LocalKernel local_kernel();
// "lab 5 BLIS-style GEMM (AVX2+FMA 6x16), 1 thread" - for the reports.
std::string local_kernel_description();
bool lab5_kernel_available();

// The one entry point into lab 5 that lab 12 needs: C = A*B, contiguous
// row-major (lda = k, ldb = n, ldc = n), overwriting C, on `threads` threads.
// local_gemm builds the strided and accumulating cases on it (through scratch
// buffers) until lab 5 offers them itself.
using ContiguousGemm = void (*)(const float* A, const float* B, float* C, std::int64_t m, std::int64_t n,
                                std::int64_t k, int threads);
// Called once, by harness/stages/lab12/references.cpp; `describe` names the
// kernel it picked for this CPU.
void bind_lab5_kernel(ContiguousGemm gemm, std::string (*describe)());

}  // namespace mml::lab12
