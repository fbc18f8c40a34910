// Lab 5 reference, stage 2 (lab5.tile); the starter's tile_gemm.cpp is the
// same loop, given, for its one 6 x 16 tile.
//
// What changed from stage 1: instead of one C element per dot product, a whole
// MR x NR tile of C (6 x 16 on AVX2) lives in registers while k runs. Each
// step k loads NR values of row k of B (2 vectors) and broadcasts MR values
// of column k of A, then does MR x NR/W FMAs (12 on AVX2): 8 loads for 12 FMAs
// instead of 2 loads per FMA, and no horizontal sums. No transpose is needed:
// B is read along its rows. It should run at a good fraction of the FMA peak,
// limited by A and B coming from L2/L3 rather than L1 (stage 4 fixes that).
//
// Edges: M and N need not be multiples of MR and NR. The last, partial strip
// of rows of A and of columns of B are copied once into zero-padded buffers,
// so the kernel always computes a full tile; for edge tiles it writes into a
// small buffer, and only the valid part is copied to C.
#include <algorithm>
#include <vector>

#include "solutions/lab5/gemm.h"

namespace reference::lab5 {

void matmul_register_tile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                          std::int64_t K, const KernelSet& kernels) {
    const std::int64_t MR = kernels.MR, NR = kernels.NR;
    const std::int64_t m_full = M / MR * MR, n_full = N / NR * NR;  // where the full tiles end

    // Zero-padded copies of the edge strips (empty when there is no edge).
    std::vector<float> a_edge(m_full < M ? static_cast<std::size_t>(MR * K) : 0, 0.0f);
    for (std::int64_t i = m_full; i < M; ++i)
        std::copy(A + i * K, A + i * K + K, a_edge.begin() + (i - m_full) * K);
    std::vector<float> b_edge(n_full < N ? static_cast<std::size_t>(K * NR) : 0, 0.0f);
    for (std::int64_t k = 0; k < K && n_full < N; ++k)
        std::copy(B + k * N + n_full, B + k * N + N, b_edge.begin() + k * NR);
    std::vector<float> c_tile(static_cast<std::size_t>(MR * NR));

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
                kernels.tile(K, a, K, b, ldb, C + i * N + j, N);
                continue;
            }
            kernels.tile(K, a, K, b, ldb, c_tile.data(), NR);
            const std::int64_t rows = std::min(MR, M - i), cols = std::min(NR, N - j);
            for (std::int64_t r = 0; r < rows; ++r)
                std::copy(c_tile.begin() + r * NR, c_tile.begin() + r * NR + cols, C + (i + r) * N + j);
        }
    }
}

}  // namespace reference::lab5
