// Lab 5 reference, stage 1 (lab5.dot) and seed 003's "combined" row
// (lab5.combined): transpose B, then every C[i][j] is one SIMD dot product of
// row i of A with row j of B^T.
#pragma once

#include <cstdint>

#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

// threads = 1: stage 1. threads > 1: the combined row (transpose + SIMD +
// threads over blocks of rows, as in seed 003's Table 2).
void matmul_transposed_simd(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                            std::int64_t K, const KernelSet& kernels, int threads);

}  // namespace reference::lab5
