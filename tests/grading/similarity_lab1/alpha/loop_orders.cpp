// Lab 1: the product in all six loop orders. Same body everywhere, only the
// nesting changes, so a mistake shows in all six or none.
#include "labs/lab1/loop_orders.h"

namespace student::lab1 {

namespace {
// Element (r, c) of a row-major matrix with `cols` columns.
inline std::int64_t at(std::int64_t r, std::int64_t c, std::int64_t cols) { return r * cols + c; }

void zero(float* C, std::int64_t count) {
    for (std::int64_t e = 0; e < count; ++e) C[e] = 0.0f;
}
}  // namespace

void matmul_ijk(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    zero(C, M * N);  // C starts as garbage
    for (std::int64_t i = 0; i < M; ++i) {
        for (std::int64_t j = 0; j < N; ++j) {
            for (std::int64_t k = 0; k < K; ++k) {
                C[at(i, j, N)] += A[at(i, k, K)] * B[at(k, j, N)];
            }
        }
    }
}

void matmul_ikj(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    zero(C, M * N);  // C starts as garbage
    for (std::int64_t i = 0; i < M; ++i) {
        for (std::int64_t k = 0; k < K; ++k) {
            for (std::int64_t j = 0; j < N; ++j) {
                C[at(i, j, N)] += A[at(i, k, K)] * B[at(k, j, N)];
            }
        }
    }
}

void matmul_jik(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    zero(C, M * N);  // C starts as garbage
    for (std::int64_t j = 0; j < N; ++j) {
        for (std::int64_t i = 0; i < M; ++i) {
            for (std::int64_t k = 0; k < K; ++k) {
                C[at(i, j, N)] += A[at(i, k, K)] * B[at(k, j, N)];
            }
        }
    }
}

void matmul_jki(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    zero(C, M * N);  // C starts as garbage
    for (std::int64_t j = 0; j < N; ++j) {
        for (std::int64_t k = 0; k < K; ++k) {
            for (std::int64_t i = 0; i < M; ++i) {
                C[at(i, j, N)] += A[at(i, k, K)] * B[at(k, j, N)];
            }
        }
    }
}

void matmul_kij(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    zero(C, M * N);  // C starts as garbage
    for (std::int64_t k = 0; k < K; ++k) {
        for (std::int64_t i = 0; i < M; ++i) {
            for (std::int64_t j = 0; j < N; ++j) {
                C[at(i, j, N)] += A[at(i, k, K)] * B[at(k, j, N)];
            }
        }
    }
}

void matmul_kji(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    zero(C, M * N);  // C starts as garbage
    for (std::int64_t k = 0; k < K; ++k) {
        for (std::int64_t j = 0; j < N; ++j) {
            for (std::int64_t i = 0; i < M; ++i) {
                C[at(i, j, N)] += A[at(i, k, K)] * B[at(k, j, N)];
            }
        }
    }
}

}  // namespace student::lab1
