// Lab 1: the six loop orders of the triple loop. You write them in
// labs/lab1/loop_orders.cpp. All matrices are row-major float32:
//   A is M x K: element (i,k) is A[i*K + k]
//   B is K x N: element (k,j) is B[k*N + j]
//   C is M x N: element (i,j) is C[i*N + j]
// Each function must overwrite every element of C with (A*B)[i][j].
#pragma once

#include <cstdint>

namespace student::lab1 {

void matmul_ijk(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_ikj(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_jik(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_jki(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_kij(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_kji(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);

}  // namespace student::lab1
