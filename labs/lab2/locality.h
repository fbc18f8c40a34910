// Lab 2: memory locality. You write these in labs/lab2/locality.cpp.
// All matrices are row-major float32, as in lab 1:
//   A is M x K: element (i,k) is A[i*K + k]
//   B is K x N: element (k,j) is B[k*N + j]
//   C is M x N: element (i,j) is C[i*N + j]
// Each function must overwrite every element of C with (A*B)[i][j], for any
// M, N, K >= 1.
#pragma once

#include <cstdint>

namespace student::lab2 {

// Task 1: the i-k-j order, written for speed (row pointers, __restrict__).
void matmul_interchanged(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K);

// Task 2: transpose B into a buffer of your own, then one dot product of two
// rows per element of C.
void matmul_transposed(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K);

// Task 3: cache blocking. KC and NC are the block sizes (>= 1; the harness
// rejects other values before calling you). They need not divide K and N and
// may be larger than them.
void matmul_blocked(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                    std::int64_t K, std::int64_t KC, std::int64_t NC);

}  // namespace student::lab2
