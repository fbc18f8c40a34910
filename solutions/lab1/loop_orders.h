// Lab 1 reference: the six loop orders (see labs/lab1/loop_orders.h).
#pragma once

#include <cstdint>

namespace reference::lab1 {

void matmul_ijk(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_ikj(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_jik(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_jki(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_kij(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void matmul_kji(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);

}  // namespace reference::lab1
