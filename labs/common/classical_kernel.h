// Given code (labs 3 and 4): you use it, you do not write it. The classical
// base case that Strassen's recursion stops at, and the `lab3.classical` row
// it is compared against.
//
// It works on matrix VIEWS: a pointer to the top-left element and a row stride
// (the leading dimension, ld). A quadrant of a bigger matrix is a view with
// the parent's ld, so the recursion never copies a quadrant to multiply it.
//   A view: element (i,p) at A[i*lda + p],  m x k
//   B view: element (p,j) at B[p*ldb + j],  k x n
//   C view: element (i,j) at C[i*ldc + j],  m x n
// Labs 3 and 4 (the starters and the reference solutions) share it, so every
// comparison in them is "the same base case, organised differently".
#pragma once

#include <cstdint>

namespace common::lab3 {

// C = A*B (accumulate = false) or C += A*B (accumulate = true) on views.
// Any m, n, k >= 0 (a zero size does nothing, except that accumulate = false
// with k = 0 sets C to zero).
void classical_kernel(const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                      std::int64_t ldc, std::int64_t m, std::int64_t n, std::int64_t k,
                      bool accumulate);

// The whole product with the kernel above: the `lab3.classical` stage.
void matmul_classical(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                      std::int64_t K);

}  // namespace common::lab3
