// Lab 6 reference, stage 1: the naive kernel, one thread per element of C.
//
// What changed from the CPU (lab 1's ijk): the two outer loops are gone; each
// of the M*N threads computes one dot product, row i of A with column j of B.
// Why it is fast at all: thousands of threads run at once and, while some wait
// for memory, others compute.
//
// The detail that matters: a warp is 32 threads with consecutive threadIdx.x.
// Here threadIdx.x runs along a ROW of C (consecutive columns j), so at each k
// the warp reads B[k][j..j+31], 32 neighbouring floats = one 128-byte
// transaction (coalesced), and A[i][k], one float for the whole warp (a
// broadcast). The writes C[i][j..j+31] are coalesced too.
#include "gpu/cuda_check.h"
#include "gpu/grid.h"
#include "solutions/lab6/lab6.h"

namespace reference::lab6 {
namespace {

constexpr int kBlockX = 32;  // threads along C's columns: one warp per row segment
constexpr int kBlockY = 8;   // rows of C per block: 256 threads a block

__global__ void naive_coalesced_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, std::int64_t M, std::int64_t N,
                                       std::int64_t K) {
    const std::int64_t col = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t row = std::int64_t(blockIdx.y) * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;  // the last blocks stick out past C's edges
    const float* a = A + row * K;      // row `row` of A
    float sum = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) sum += a[k] * B[k * N + col];
    C[row * N + col] = sum;
}

}  // namespace

mml::gpu::KernelHandle naive_coalesced_handle() {
    return {reinterpret_cast<const void*>(&naive_coalesced_kernel), kBlockX * kBlockY};
}

void matmul_naive_coalesced(const float* A, const float* B, float* C, std::int64_t M,
                            std::int64_t N, std::int64_t K) {
    using namespace mml::gpu;
    const dim3 block(kBlockX, kBlockY);
    for_each_row_chunk(M, kBlockY, [&](std::int64_t first_row, std::int64_t rows) {
        const dim3 grid(grid_x_blocks(N, kBlockX), grid_y_blocks(rows, kBlockY));
        naive_coalesced_kernel<<<grid, block>>>(A + first_row * K, B, C + first_row * N, rows, N, K);
        CUDA_CHECK_LAUNCH();
    });
}

}  // namespace reference::lab6
