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

// Element (r, c) of a rows x cols row-major matrix, or 0 outside it.
__device__ float load_or_zero(const float* X, std::int64_t rows, std::int64_t cols, std::int64_t r,
                              std::int64_t c) {
    if (r < rows && c < cols) return X[r * cols + c];
    return 0.0f;
}

constexpr int kTile = 32;

template <int PAD>
__global__ void __launch_bounds__(kTile * kTile)
transposed_b_kernel(const float* __restrict__ A, const float* __restrict__ B,
                    float* __restrict__ C, std::int64_t M, std::int64_t N, std::int64_t K) {
    __shared__ float As[kTile][kTile];         // As[r][k] = A[row0 + r][k0 + k]
    __shared__ float BsT[kTile][kTile + PAD];  // BsT[c][k] = B[k0 + k][col0 + c]
    const std::int64_t r = blockIdx.y * (std::int64_t)kTile + threadIdx.y;
    const std::int64_t c = blockIdx.x * (std::int64_t)kTile + threadIdx.x;
    const std::int64_t tiles = (K + kTile - 1) / kTile;
    float sum = 0;
    for (std::int64_t t = 0; t < tiles; t++) {
        As[threadIdx.y][threadIdx.x] = load_or_zero(A, M, K, r, t * kTile + threadIdx.x);
        BsT[threadIdx.x][threadIdx.y] = load_or_zero(B, K, N, t * kTile + threadIdx.y, c);
        __syncthreads();
#pragma unroll
        for (int e = 0; e < kTile; e++) sum = fmaf(As[threadIdx.y][e], BsT[threadIdx.x][e], sum);
        __syncthreads();
    }
    if (r < M) {
        if (c < N) C[r * N + c] = sum;
    }
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
