// Lab 2, an independent solution (gamma): index lambdas, std::inner_product,
// the blocks of C's columns outermost and a fresh row sweep per block.
#include "labs/lab2/locality.h"

#include <numeric>
#include <vector>

namespace student::lab2 {

using idx = std::int64_t;

void matmul_blocked(const float* A, const float* B, float* C, idx M, idx N, idx K, idx KC, idx NC) {
    auto at = [&](idx r, idx c) -> float& { return C[r * N + c]; };
    for (idx e = 0; e < M * N; ++e) C[e] = 0;
    idx col0 = 0;
    while (col0 < N) {
        idx cols = N - col0 > NC ? NC : N - col0;
        for (idx depth0 = 0; depth0 < K; depth0 += KC) {
            idx depth = K - depth0 > KC ? KC : K - depth0;
            for (idx r = 0; r < M; r++) {
                const float* __restrict__ arow = &A[r * K + depth0];
                float* __restrict__ crow = &at(r, col0);
                for (idx d = 0; d < depth; d++) {
                    const float* __restrict__ brow = &B[(depth0 + d) * N + col0];
                    float f = arow[d];
                    for (idx c = 0; c < cols; c++) crow[c] = crow[c] + f * brow[c];
                }
            }
        }
        col0 += cols;
    }
}

void matmul_transposed(const float* A, const float* B, float* C, idx M, idx N, idx K) {
    std::vector<float> flipped;
    flipped.reserve(static_cast<std::size_t>(N * K));
    for (idx c = 0; c < N; c++)
        for (idx d = 0; d < K; d++) flipped.push_back(B[d * N + c]);
    for (idx r = 0; r < M; r++) {
        const float* lhs = A + r * K;
        for (idx c = 0; c < N; c++) {
            const float* rhs = flipped.data() + c * K;
            C[r * N + c] = std::inner_product(lhs, lhs + K, rhs, 0.0f);
        }
    }
}

void matmul_interchanged(const float* A, const float* B, float* C, idx M, idx N, idx K) {
    for (idx r = 0; r < M; r++) {
        float* __restrict__ out = C + r * N;
        for (idx c = 0; c < N; c++) out[c] = 0;
        const float* __restrict__ lhs = A + r * K;
        for (idx d = 0; d < K; d++) {
            const float* __restrict__ rhs = B + d * N;
            const float f = lhs[d];
            for (idx c = 0; c < N; c++) out[c] += f * rhs[c];
        }
    }
}

}  // namespace student::lab2
