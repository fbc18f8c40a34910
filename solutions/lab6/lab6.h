// Lab 6 reference: the host launch functions of the CUDA basics kernels.
// Plain C++ (no CUDA types), so the registration in harness/stages/lab6/stages.cpp
// is ordinary C++. A, B, C are DEVICE pointers; every function launches on the
// default stream and returns without waiting (the harness synchronises).
//   A is M x K (A[i*K + k]), B is K x N (B[k*N + j]), C is M x N (C[i*N + j]).
#pragma once

#include <cstdint>

#include "gpu/occupancy.h"

namespace reference::lab6 {

// One thread per element of C, threadIdx.x along C's columns (coalesced).
void matmul_naive_coalesced(const float* A, const float* B, float* C, std::int64_t M,
                            std::int64_t N, std::int64_t K);
// The same kernel with threadIdx.x along C's rows (uncoalesced).
void matmul_naive_uncoalesced(const float* A, const float* B, float* C, std::int64_t M,
                              std::int64_t N, std::int64_t K);
// One block per element of C (Cao's survey): `threads` (a power of two, 32..1024)
// strided partial sums over k, then a halving reduction in shared memory.
void matmul_block_reduce(const float* A, const float* B, float* C, std::int64_t M,
                         std::int64_t N, std::int64_t K, int threads);

// For lab 10's performance model: the naive coalesced kernel's address and
// block size (its registers and occupancy are read through gpu/occupancy.h).
mml::gpu::KernelHandle naive_coalesced_handle();

}  // namespace reference::lab6
