// Lab 5 reference: T = B^T, so that a column of B becomes a row of T and the
// dot products of stage 1 read both operands along rows (seed 003's first
// step: "transpose B, then compute").
#pragma once

#include <cstdint>

namespace reference::lab5 {

// B is K x N (row-major); T (N x K, row-major) gets T[j*K + k] = B[k*N + j].
void transpose(const float* B, float* T, std::int64_t K, std::int64_t N);

}  // namespace reference::lab5
