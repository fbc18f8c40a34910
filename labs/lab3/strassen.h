// Lab 3: Strassen's algorithm with a cutoff. You write the seven products and
// the four combinations in labs/lab3/strassen.cpp; everything else is given.
// All matrices are row-major float32: A is M x K, B is K x N, C is M x N.
#pragma once

#include <cstdint>

namespace student::lab3 {

// C = A*B with Strassen's recursion, stopping at the classical kernel when
// any of M, N, K is <= cutoff. Must overwrite every element of C.
void matmul_strassen(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, std::int64_t cutoff);

}  // namespace student::lab3
