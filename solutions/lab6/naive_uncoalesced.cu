// Lab 6 reference, stage 2: the naive kernel with the thread mapping turned
// around - threadIdx.x along C's COLUMN (consecutive rows i), as the CUDA lab
// report's tiled kernel did (`row = bx*TILE + tx`). Same arithmetic, same threads.
//
// Why it is slower: at each k the 32 threads of a warp now read
// A[i..i+31][k], 32 floats K apart, i.e. 32 different 32-byte sectors instead
// of one 128-byte line, and they write C[i..i+31][j], N floats apart. The
// load/store units split each such warp access into 32 transactions. (B[k][j]
// is the same float for the whole warp: a broadcast, cheap.) The L1 cache
// rescues part of it - the next k of each row is in the sector just fetched -
// which is why the loss is a few times, not 32 times: 274 ms against 44 ms
// for the coalesced mapping at 4096^3 on an H100 (6.2x).
#include "gpu/cuda_check.h"
#include "gpu/grid.h"
#include "solutions/lab6/lab6.h"

namespace reference::lab6 {
namespace {

constexpr int kBlockX = 32;  // threads along C's ROWS (the mistake)
constexpr int kBlockY = 8;   // columns of C per block

__global__ void naive_uncoalesced_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                         float* __restrict__ C, std::int64_t M, std::int64_t N,
                                         std::int64_t K) {
    const std::int64_t row = std::int64_t(blockIdx.y) * blockDim.x + threadIdx.x;
    const std::int64_t col = std::int64_t(blockIdx.x) * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    const float* a = A + row * K;
    float sum = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) sum += a[k] * B[k * N + col];
    C[row * N + col] = sum;
}

}  // namespace

void matmul_naive_uncoalesced(const float* A, const float* B, float* C, std::int64_t M,
                              std::int64_t N, std::int64_t K) {
    using namespace mml::gpu;
    const dim3 block(kBlockX, kBlockY);
    // Grid x walks C's columns (kBlockY per block), grid y its rows (kBlockX per block).
    for_each_row_chunk(M, kBlockX, [&](std::int64_t first_row, std::int64_t rows) {
        const dim3 grid(grid_x_blocks(N, kBlockY), grid_y_blocks(rows, kBlockX));
        naive_uncoalesced_kernel<<<grid, block>>>(A + first_row * K, B, C + first_row * N, rows, N, K);
        CUDA_CHECK_LAUNCH();
    });
}

}  // namespace reference::lab6
