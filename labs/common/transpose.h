// Given code (lab 5): you use it, you do not write it.
//
// T = B^T, so that a column of B becomes a row of T and the dot products of
// lab5.dot read both operands along rows (the first step of Cao's
// survey: "transpose B, then compute").
#pragma once

#include <cstdint>

namespace common::lab5 {

// B is K x N (row-major); T (N x K, row-major) gets T[j*K + k] = B[k*N + j].
void transpose(const float* B, float* T, std::int64_t K, std::int64_t N);

}  // namespace common::lab5
