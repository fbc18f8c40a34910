// Lab 7, task 2 - your code. Read handouts/lab7.md first.
//
// The bank-conflict lesson. Take your tiled kernel with TILE = 32 and store
// B's tile TRANSPOSED (row c of BsT is column c of B's tile) so that each thread
// reads its column of B as a row of shared memory (the trick that made lab 2
// fast on the CPU). The template parameter PAD is the number of extra columns
// of BsT: the launch code runs PAD = 0 as lab7.transposed_b and PAD = 1 as
// lab7.transposed_b_padded. Predict before you time: which is faster, and by
// how much? (Shared memory: 32 banks, word w in bank w % 32.)
#include "gpu/cuda_check.h"
#include "gpu/grid.h"
#include "labs/lab7/lab7.h"

namespace student::lab7 {
namespace {

constexpr int kTile = 32;

template <int PAD>
__global__ void __launch_bounds__(kTile * kTile)
transposed_b_kernel(const float* __restrict__ A, const float* __restrict__ B,
                    float* __restrict__ C, std::int64_t M, std::int64_t N, std::int64_t K) {
    __shared__ float As[kTile][kTile];         // As[r][k] = A[row0 + r][k0 + k]
    __shared__ float BsT[kTile][kTile + PAD];  // BsT[c][k] = B[k0 + k][col0 + c]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const std::int64_t row = blockIdx.y * kTile + ty;
    const std::int64_t col = blockIdx.x * kTile + tx;
    float acc = 0.0f;
    for (std::int64_t k0 = 0; k0 < K; k0 += kTile) {
        // zeros outside the matrices: the last tile adds nothing
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        BsT[tx][ty] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < kTile; ++k) acc += As[ty][k] * BsT[tx][k];
        __syncthreads();  // before the next tile overwrites this one
    }
    if (row < M && col < N) C[row * N + col] = acc;
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

}  // namespace student::lab7
