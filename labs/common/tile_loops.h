// Given code (lab 5): you use it, you do not write it.
//
// Stage 2's loops around a register-tile kernel (lab5.tile), for any tile
// MR x NR: the starter's tile.cpp runs them around your 6 x 16 AVX2
// kernel, the reference's around each of its kernel sets.
#pragma once

#include <cstdint>

namespace common::lab5 {

// The MR x NR tile at C (row stride ldc) := (MR rows of A at A, row stride
// lda) * (NR columns of B at B, row stride ldb), summed over all K.
using TileKernel = void (*)(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb,
                            float* C, std::int64_t ldc);

// C (M x N) = A (M x K) * B (K x N), row-major, one MR x NR tile at a time.
// Full tiles go straight to `tile`. For the edges (M or N not a multiple of
// MR or NR) the last rows of A and the last columns of B are copied once into
// zero-padded strips, the kernel computes a full tile into a small buffer
// (poisoned first: a tile the kernel never writes stays "never written"), and
// only the valid part is copied into C.
void tile_loops(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                std::int64_t MR, std::int64_t NR, TileKernel tile);

}  // namespace common::lab5
