// Lab 5 - given: stage 2's loops around your register-tile kernel (task 2).
// Full MR x NR tiles of C go straight to your kernel. For the edges (M or N
// not a multiple of 6 or 16) the last rows of A and the last columns of B are
// copied once into zero-padded strips, the kernel computes a full tile into
// a small buffer, and only the valid part is copied into C.
#include <algorithm>
#include <vector>

#include "cpu/matrix.h"
#include "labs/lab5/gemm.h"

namespace student::lab5 {

void matmul_register_tile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                          std::int64_t K, const KernelSet& kernels) {
    const std::int64_t m_full = M / MR * MR, n_full = N / NR * NR;
    std::vector<float> a_edge(m_full < M ? std::size_t(MR * K) : 0, 0.0f);
    for (std::int64_t i = m_full; i < M; ++i) std::copy(A + i * K, A + i * K + K, a_edge.begin() + (i - m_full) * K);
    std::vector<float> b_edge(n_full < N ? std::size_t(K * NR) : 0, 0.0f);
    for (std::int64_t k = 0; k < K && n_full < N; ++k)
        std::copy(B + k * N + n_full, B + k * N + N, b_edge.begin() + k * NR);
    float c_tile[MR * NR];
    for (std::int64_t j = 0; j < N; j += NR) {
        const bool full_n = j < n_full;
        const float* b = full_n ? B + j : b_edge.data();
        const std::int64_t ldb = full_n ? N : NR;
        for (std::int64_t i = 0; i < M; i += MR) {
            const bool full_m = i < m_full;
            const float* a = full_m ? A + i * K : a_edge.data();
            if (full_m && full_n) {
                kernels.tile(K, a, K, b, ldb, C + i * N + j, N);
                continue;
            }
            std::fill(c_tile, c_tile + MR * NR, mml::poison_value());  // an unwritten tile stays "never written"
            kernels.tile(K, a, K, b, ldb, c_tile, NR);
            for (std::int64_t r = 0; r < std::min<std::int64_t>(MR, M - i); ++r)
                for (std::int64_t c = 0; c < std::min<std::int64_t>(NR, N - j); ++c)
                    C[(i + r) * N + j + c] = c_tile[r * NR + c];
        }
    }
}

}  // namespace student::lab5
