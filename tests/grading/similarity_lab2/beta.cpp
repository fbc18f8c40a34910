// Lab 2, an independent solution (beta): pointers walked along, a blocked
// transpose, four k at a time in the blocked kernel.
#include "labs/lab2/locality.h"

#include <cstring>
#include <memory>

namespace student::lab2 {

void matmul_interchanged(const float* A_in, const float* B_in, float* C_out, std::int64_t M, std::int64_t N,
                         std::int64_t K) {
    const float* __restrict__ a = A_in;
    const float* __restrict__ bbase = B_in;
    float* __restrict__ c = C_out;
    std::memset(c, 0, sizeof(float) * static_cast<std::size_t>(M * N));
    for (std::int64_t row = 0; row < M; ++row, a += K, c += N) {
        const float* b = bbase;
        for (std::int64_t p = 0; p < K; ++p, b += N) {
            const float scale = a[p];
            if (scale == 0.0f) continue;
            for (std::int64_t col = 0; col < N; ++col) c[col] += scale * b[col];
        }
    }
}

void matmul_transposed(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K) {
    std::unique_ptr<float[]> t(new float[static_cast<std::size_t>(N * K)]);
    constexpr std::int64_t T = 32;  // transpose in tiles: both sides stay in the cache
    for (std::int64_t k0 = 0; k0 < K; k0 += T)
        for (std::int64_t j0 = 0; j0 < N; j0 += T) {
            const std::int64_t kend = k0 + T < K ? k0 + T : K, jend = j0 + T < N ? j0 + T : N;
            for (std::int64_t k = k0; k < kend; ++k)
                for (std::int64_t j = j0; j < jend; ++j) t[j * K + k] = B[k * N + j];
        }
    float* out = C;
    for (const float* arow = A; arow != A + M * K; arow += K) {
        const float* trow = t.get();
        for (std::int64_t j = 0; j < N; ++j, trow += K) {
            float acc0 = 0.0f;
            std::int64_t k = 0;
            while (k < K) { acc0 += arow[k] * trow[k]; ++k; }
            *out++ = acc0;
        }
    }
}

void matmul_blocked(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                    std::int64_t K, std::int64_t KC, std::int64_t NC) {
    std::memset(C, 0, sizeof(float) * static_cast<std::size_t>(M * N));
    for (std::int64_t pc = 0; pc < K; pc += KC) {
        const std::int64_t pend = pc + KC < K ? pc + KC : K;
        for (std::int64_t jc = 0; jc < N; jc += NC) {
            const std::int64_t width = jc + NC < N ? NC : N - jc;
            for (std::int64_t r = 0; r < M; ++r) {
                float* __restrict__ dst = C + r * N + jc;
                const float* src = A + r * K;
                std::int64_t p = pc;
                for (; p + 4 <= pend; p += 4) {
                    const float a0 = src[p], a1 = src[p + 1], a2 = src[p + 2], a3 = src[p + 3];
                    const float* b0 = B + p * N + jc;
                    const float* b1 = b0 + N;
                    const float* b2 = b1 + N;
                    const float* b3 = b2 + N;
                    for (std::int64_t q = 0; q < width; ++q) dst[q] += a0 * b0[q] + a1 * b1[q] + a2 * b2[q] + a3 * b3[q];
                }
                for (; p < pend; ++p) {
                    const float ap = src[p];
                    const float* bp = B + p * N + jc;
                    for (std::int64_t q = 0; q < width; ++q) dst[q] += ap * bp[q];
                }
            }
        }
    }
}

}  // namespace student::lab2
