// Given code (lab 5): stage 2's loops around a register-tile kernel (tile_loops.h).
#include "labs/common/tile_loops.h"

#include <algorithm>
#include <vector>

#include "cpu/matrix.h"

namespace common::lab5 {

void tile_loops(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                std::int64_t MR, std::int64_t NR, TileKernel tile) {
    const std::int64_t m_full = M / MR * MR, n_full = N / NR * NR;  // where the full tiles end

    // Zero-padded copies of the edge strips (empty when there is no edge).
    std::vector<float> a_edge(m_full < M ? std::size_t(MR * K) : 0, 0.0f);
    for (std::int64_t i = m_full; i < M; ++i) std::copy(A + i * K, A + i * K + K, a_edge.begin() + (i - m_full) * K);
    std::vector<float> b_edge(n_full < N ? std::size_t(K * NR) : 0, 0.0f);
    for (std::int64_t k = 0; k < K && n_full < N; ++k)
        std::copy(B + k * N + n_full, B + k * N + N, b_edge.begin() + k * NR);
    std::vector<float> c_tile(std::size_t(MR * NR));

    // Columns outer: the K x NR strip of B (128 KiB at K = 2048 on AVX2) stays
    // in L2 while every row strip of A passes by.
    for (std::int64_t j = 0; j < N; j += NR) {
        const bool full_n = j < n_full;
        const float* b = full_n ? B + j : b_edge.data();
        const std::int64_t ldb = full_n ? N : NR;
        for (std::int64_t i = 0; i < M; i += MR) {
            const bool full_m = i < m_full;
            const float* a = full_m ? A + i * K : a_edge.data();
            if (full_m && full_n) {
                tile(K, a, K, b, ldb, C + i * N + j, N);
                continue;
            }
            std::fill(c_tile.begin(), c_tile.end(), mml::poison_value());
            tile(K, a, K, b, ldb, c_tile.data(), NR);
            const std::int64_t rows = std::min(MR, M - i), cols = std::min(NR, N - j);
            for (std::int64_t r = 0; r < rows; ++r)
                std::copy(c_tile.begin() + r * NR, c_tile.begin() + r * NR + cols, C + (i + r) * N + j);
        }
    }
}

}  // namespace common::lab5
