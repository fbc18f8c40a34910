// Lab 7 reference, stages 3-4: the bank-conflict lesson (from the RTX
// 4090 GEMM walk-through).
//
// What changed from tiled32: B's tile is stored TRANSPOSED, BsT[c][k] =
// B[k0 + k][col0 + c], so that each thread's column of B becomes a row of
// shared memory - the trick that made lab 2's CPU loop fast. On the GPU it
// backfires, and the fix is one extra column.
//
// Shared memory has 32 banks; the 4-byte word at address w lives in bank
// w % 32, and a bank serves one word per cycle. A warp (32 threads) whose
// loads hit 32 different words of ONE bank is served in 32 turns: a 32-way
// bank conflict. (Threads reading the SAME word get it broadcast: no conflict.)
//   [32][32]: in the inner loop thread tx reads BsT[tx][k], word 32*tx + k:
//             bank k for all 32 threads -> 32-way conflict on every load, and
//             the store BsT[tx][ty] (word 32*tx + ty) likewise.
//   [32][33]: word 33*tx + k, bank (tx + k) % 32: 32 different banks -> none.
// The RTX 4090 GEMM walk-through's first shared-memory kernel ran slower than its naive kernel
// (324 vs 292 ms on an RTX 4090) and the author blamed a 32-way conflict:
// this pair of stages measures one. On an H100 at 4096^3 the [32][32] version
// takes 81 ms - slower than lab 6's naive kernel (44 ms) - and the [32][33]
// one 16 ms; tools/ncu-bank-conflicts.sh counts the conflicts (handouts/lab7.md).
#include "gpu/cuda_check.h"
#include "gpu/grid.h"
#include "solutions/lab7/lab7.h"

namespace reference::lab7 {
namespace {

constexpr int kTile = 32;

template <int PAD>  // 0: [32][32], conflicts; 1: [32][33], none
__global__ void __launch_bounds__(kTile * kTile)
transposed_b_kernel(const float* __restrict__ A, const float* __restrict__ B,
                    float* __restrict__ C, std::int64_t M, std::int64_t N, std::int64_t K) {
    __shared__ float As[kTile][kTile];         // As[r][k] = A[row0 + r][k0 + k]
    __shared__ float BsT[kTile][kTile + PAD];  // BsT[c][k] = B[k0 + k][col0 + c]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const std::int64_t row = std::int64_t(blockIdx.y) * kTile + ty;
    const std::int64_t col = std::int64_t(blockIdx.x) * kTile + tx;
    float sum = 0.0f;
    for (std::int64_t k0 = 0; k0 < K; k0 += kTile) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        // The global read is coalesced (tx along B's row); the store goes down a column of BsT.
        BsT[tx][ty] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kTile; ++k) sum += As[ty][k] * BsT[tx][k];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = sum;
}

template <int PAD>
void launch_transposed_b(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K) {
    using namespace mml::gpu;
    const dim3 block(kTile, kTile);
    for_each_row_chunk(M, kTile, [&](std::int64_t first_row, std::int64_t rows) {
        const dim3 grid(grid_x_blocks(N, kTile), grid_y_blocks(rows, kTile));
        transposed_b_kernel<PAD><<<grid, block>>>(A + first_row * K, B, C + first_row * N, rows, N, K);
        CUDA_CHECK_LAUNCH();
    });
}

}  // namespace

void matmul_transposed_b(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K) {
    launch_transposed_b<0>(A, B, C, M, N, K);
}

void matmul_transposed_b_padded(const float* A, const float* B, float* C, std::int64_t M,
                                std::int64_t N, std::int64_t K) {
    launch_transposed_b<1>(A, B, C, M, N, K);
}

}  // namespace reference::lab7
