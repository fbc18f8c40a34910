// Lab 2 reference: memory locality (see labs/lab2/locality.h for the contract).
// The answers are in locality.cpp, one section per task, as in the starter.
#pragma once

#include <cstdint>

namespace reference::lab2 {

void matmul_interchanged(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K);
void matmul_transposed(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K);
// KC, NC >= 1: the block of B is KC x NC (rows of B x columns of B).
void matmul_blocked(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                    std::int64_t K, std::int64_t KC, std::int64_t NC);

}  // namespace reference::lab2
