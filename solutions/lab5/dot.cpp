// Lab 5 reference, stage 1 (lab5.dot) and the combined row of Cao's survey
// (lab5.combined): the answer to labs/lab5/dot.cpp.
//
// What changed from lab 2's transposed product: the inner loop is now the
// SIMD dot product (kernels.h: dot), 8 floats per FMA on AVX2 and 16 on
// AVX-512, with eight independent accumulators. It should be several times
// faster, but not 8x: every FMA needs two fresh loads (one from A, one from
// B^T) and each C[i][j] ends with a horizontal sum, so the loads, not the FMA
// units, set the pace, and all of B^T streams through the caches once per
// row of A.
#include <vector>

#include "solutions/lab5/gemm.h"

namespace reference::lab5 {

namespace {

// What the threads share (for_row_blocks hands it to each block).
struct DotJob {
    const float* A;
    const float* T;  // B transposed: row j of T is column j of B
    float* C;
    std::int64_t N, K;
    const KernelSet* kernels;
};

// Rows [i0, i1) of C, on one thread: C[i][j] = row i of A . row j of T.
void dot_rows(void* ctx, std::int64_t i0, std::int64_t i1) {
    const DotJob& job = *static_cast<const DotJob*>(ctx);
    const auto dot = job.kernels->dot;
    for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = 0; j < job.N; ++j)
            job.C[i * job.N + j] = dot(job.A + i * job.K, job.T + j * job.K, job.K);
}

}  // namespace

void matmul_dot(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K, const KernelSet& kernels, int threads) {
    std::vector<float> T(static_cast<std::size_t>(N * K));
    transpose(B, T.data(), K, N);
    DotJob job{A, T.data(), C, N, K, &kernels};
    for_row_blocks(M, threads, dot_rows, &job);  // threads = 1: dot_rows(&job, 0, M) here
}

}  // namespace reference::lab5
