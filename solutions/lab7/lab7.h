// Lab 7 reference: the host launch functions of the shared-memory kernels.
// Plain C++ (no CUDA types). A, B, C are DEVICE pointers; every function
// launches on the default stream and returns without waiting.
//   A is M x K (A[i*K + k]), B is K x N (B[k*N + j]), C is M x N (C[i*N + j]).
#pragma once

#include <cstdint>

#include "gpu/occupancy.h"

namespace reference::lab7 {

// Square shared-memory tiles of A and B, TILE x TILE threads a block.
void matmul_tiled16(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_tiled32(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Tile 32 with B's tile stored transposed: [32][32] (32-way bank conflicts)
// and [32][33] (padded: none).
void matmul_transposed_b(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_transposed_b_padded(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// Volkov-Demmel: one operand's tile in shared memory, the other streamed from
// global memory, a strip of C per thread in registers.
void matmul_volkov(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
// The layout of the RTX 4090 GEMM walk-through (B's tile in shared, A
// streamed, a row strip of C per thread), for comparison: A is then read 32 rows apart across a warp.
void matmul_volkov_stream_a(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);

// For lab 10's performance model: each kernel's address and block size (its
// registers and occupancy are read through gpu/occupancy.h).
mml::gpu::KernelHandle tiled16_handle();
mml::gpu::KernelHandle tiled32_handle();
mml::gpu::KernelHandle volkov_handle();

}  // namespace reference::lab7
