// Lab 2, an independent solution (alpha): helpers with __restrict__ parameters.
#include "labs/lab2/locality.h"

#include <algorithm>
#include <vector>

namespace student::lab2 {

namespace {

// c[0..n) += a * b[0..n)
inline void axpy_row(float a, const float* __restrict__ b, float* __restrict__ c, std::int64_t n) {
    for (std::int64_t j = 0; j < n; ++j) c[j] += a * b[j];
}

float dot(const float* __restrict__ x, const float* __restrict__ y, std::int64_t n) {
    float s = 0.0f;
    for (std::int64_t k = 0; k < n; ++k) s += x[k] * y[k];
    return s;
}

}  // namespace

void matmul_interchanged(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K) {
    for (std::int64_t i = 0; i < M; ++i) {
        float* row = C + i * N;
        std::fill(row, row + N, 0.0f);
        for (std::int64_t k = 0; k < K; ++k) axpy_row(A[i * K + k], B + k * N, row, N);
    }
}

void matmul_transposed(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K) {
    std::vector<float> bt(static_cast<std::size_t>(N * K));
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t j = 0; j < N; ++j) bt[j * K + k] = B[k * N + j];
    for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < N; ++j) C[i * N + j] = dot(A + i * K, bt.data() + j * K, K);
}

void matmul_blocked(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                    std::int64_t K, std::int64_t KC, std::int64_t NC) {
    std::fill(C, C + M * N, 0.0f);
    for (std::int64_t jc = 0; jc < N; jc += NC) {
        const std::int64_t nc = std::min(NC, N - jc);
        for (std::int64_t pc = 0; pc < K; pc += KC) {
            const std::int64_t kc = std::min(KC, K - pc);
            for (std::int64_t i = 0; i < M; ++i)
                for (std::int64_t k = pc; k < pc + kc; ++k) axpy_row(A[i * K + k], B + k * N + jc, C + i * N + jc, nc);
        }
    }
}

}  // namespace student::lab2
