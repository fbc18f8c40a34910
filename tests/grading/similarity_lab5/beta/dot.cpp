// Lab 5 - your code, task 1b: the algorithm of Cao's survey with your dot product.
// Stage 1 (lab5.dot) and, on several threads, lab5.combined. What changed from
// lab 2's transposed stage: the dot product is your AVX2 dot_avx2 (8 floats per
// FMA, eight accumulators) instead of one scalar chain of dependent additions.
#include <vector>

#include "labs/lab5/gemm.h"

namespace student::lab5 {

namespace {
struct DotJob {
    const float* A;
    const float* T;  // B transposed: row j of T is column j of B
    float* C;
    std::int64_t N, K;
    const KernelSet* kernels;
};

// Rows [i0, i1) of C, on one thread.
void dot_rows(void* ctx, std::int64_t i0, std::int64_t i1) {
    const DotJob& job = *static_cast<const DotJob*>(ctx);
    const std::int64_t K = job.K;
    const std::int64_t N = job.N;
    // walk the rows' elements of C in one flat loop
    for (std::int64_t idx = i0 * N; idx < i1 * N; idx++) {
        std::int64_t i = idx / N, j = idx % N;
        job.C[idx] = job.kernels->dot(&job.A[i * K], &job.T[j * K], K);
    }
}
}  // namespace

void matmul_dot(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K, const KernelSet& kernels, int threads) {
    std::vector<float> T(static_cast<std::size_t>(N * K));
    transpose(B, T.data(), K, N);
    DotJob job{A, T.data(), C, N, K, &kernels};
    for_row_blocks(M, threads, dot_rows, &job);  // threads = 1: just dot_rows(&job, 0, M)
}

}  // namespace student::lab5
