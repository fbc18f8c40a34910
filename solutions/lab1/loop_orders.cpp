// Lab 1 reference: the triple loop in all six orders.
//
// All six do the same 2*M*N*K flops; they differ only in which index moves
// fastest, i.e. in the stride of the innermost memory accesses (row-major):
//   inner j (ikj, kij): B and C walked along rows, stride 1  -> fast, vectorizes
//   inner k (ijk, jik): A along a row (1), B down a column (N) -> one cache line per element of B
//   inner i (jki, kji): A and C walked down columns (K and N)  -> slowest
#include "solutions/lab1/loop_orders.h"

#include <algorithm>

namespace reference::lab1 {

// The baseline: one dot product per element, accumulated in a register.
void matmul_ijk(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < N; ++j) {
            float sum = 0.0f;
            for (std::int64_t k = 0; k < K; ++k) sum += A[i * K + k] * B[k * N + j];
            C[i * N + j] = sum;
        }
}

void matmul_ikj(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::fill(C, C + M * N, 0.0f);  // C holds garbage on entry
    for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t k = 0; k < K; ++k) {
            const float a = A[i * K + k];  // loaded once, reused along the whole row
            for (std::int64_t j = 0; j < N; ++j) C[i * N + j] += a * B[k * N + j];
        }
}

void matmul_jik(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    for (std::int64_t j = 0; j < N; ++j)
        for (std::int64_t i = 0; i < M; ++i) {
            float sum = 0.0f;
            for (std::int64_t k = 0; k < K; ++k) sum += A[i * K + k] * B[k * N + j];
            C[i * N + j] = sum;
        }
}

void matmul_jki(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::fill(C, C + M * N, 0.0f);  // C holds garbage on entry
    for (std::int64_t j = 0; j < N; ++j)
        for (std::int64_t k = 0; k < K; ++k) {
            const float b = B[k * N + j];
            for (std::int64_t i = 0; i < M; ++i) C[i * N + j] += A[i * K + k] * b;
        }
}

void matmul_kij(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::fill(C, C + M * N, 0.0f);  // C holds garbage on entry
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t i = 0; i < M; ++i) {
            const float a = A[i * K + k];
            for (std::int64_t j = 0; j < N; ++j) C[i * N + j] += a * B[k * N + j];
        }
}

void matmul_kji(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    std::fill(C, C + M * N, 0.0f);  // C holds garbage on entry
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t j = 0; j < N; ++j) {
            const float b = B[k * N + j];
            for (std::int64_t i = 0; i < M; ++i) C[i * N + j] += A[i * K + k] * b;
        }
}

}  // namespace reference::lab1
