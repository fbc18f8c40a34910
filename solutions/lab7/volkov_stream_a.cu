// Lab 7 reference, a comparison row: the Volkov-Demmel kernel as the RTX 4090
// GEMM walk-through lays it out.
// No file of labs/lab7/ matches this one: students do not write it. The lab
// times it beside their volkov.cu (harness/stages/lab7/references.cpp binds
// it as the reference-only row lab7.volkov_stream_a).
//
// The mirror image of volkov.cu, kept for comparison:
// each thread computes a ROW strip of C (row i, kCols = 64 columns) in
// registers; B's tile goes through shared memory (read as float4 broadcasts)
// and A is streamed from global memory. Same arithmetic, same one shared load
// per four multiply-adds.
//
// What differs, and why it should be slower: a warp's 32 threads own 32
// consecutive ROWS, so at each k they read A[i..i+31][k], 32 floats K apart -
// the uncoalesced pattern of lab6.naive_uncoalesced. Each thread walks its
// own row contiguously, so most of those reads hit in L1 (the sector fetched
// for k also holds k+1..k+7), which is what rescues this layout; but it moves
// 32 sectors through L1 per warp load where volkov.cu moves 4. Measured on an
// H100 at 4096^3: 9.7 ms against volkov.cu's 5.8 ms (and tiled32's 16.5 ms).
#include "gpu/cuda_check.h"
#include "gpu/grid.h"
#include "solutions/lab7/lab7.h"

namespace reference::lab7 {
namespace {

constexpr int kThreads = 128;  // threads a block = rows of C a block (one each)
constexpr int kCols = 64;      // columns of C a block = accumulators a thread
constexpr int kDepth = 32;     // k-extent of B's tile in shared memory (a multiple of 4)

__global__ void __launch_bounds__(kThreads)
volkov_stream_a_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                   std::int64_t M, std::int64_t N, std::int64_t K) {
    __shared__ __align__(16) float Bs[kDepth][kCols];  // Bs[k][c] = B[k0 + k][col0 + c]
    const int t = threadIdx.x;
    const std::int64_t row = std::int64_t(blockIdx.y) * kThreads + t;
    const std::int64_t col0 = std::int64_t(blockIdx.x) * kCols;
    const bool has_row = row < M;
    float acc[kCols];
#pragma unroll
    for (int c = 0; c < kCols; ++c) acc[c] = 0.0f;

    for (std::int64_t k0 = 0; k0 < K; k0 += kDepth) {
#pragma unroll
        for (int e = t; e < kDepth * kCols; e += kThreads) {
            const int k = e / kCols, c = e % kCols;
            Bs[k][c] = (k0 + k < K && col0 + c < N) ? B[(k0 + k) * N + col0 + c] : 0.0f;
        }
        __syncthreads();
        if (has_row) {
            const float* a = A + row * K + k0;  // this thread's row of A
            const std::int64_t left = K - k0;
#pragma unroll 2
            for (int kk = 0; kk < kDepth; kk += 4) {
                float aq[4];
#pragma unroll
                for (int q = 0; q < 4; ++q) aq[q] = kk + q < left ? a[kk + q] : 0.0f;
#pragma unroll
                for (int q = 0; q < 4; ++q)
#pragma unroll
                    for (int c = 0; c < kCols; c += 4) {
                        const float4 b = *reinterpret_cast<const float4*>(&Bs[kk + q][c]);  // broadcast
                        acc[c] = fmaf(aq[q], b.x, acc[c]);
                        acc[c + 1] = fmaf(aq[q], b.y, acc[c + 1]);
                        acc[c + 2] = fmaf(aq[q], b.z, acc[c + 2]);
                        acc[c + 3] = fmaf(aq[q], b.w, acc[c + 3]);
                    }
            }
        }
        __syncthreads();
    }
    if (!has_row) return;
#pragma unroll
    for (int c = 0; c < kCols; ++c)
        if (col0 + c < N) C[row * N + col0 + c] = acc[c];
}

}  // namespace

void matmul_volkov_stream_a(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                        std::int64_t K) {
    using namespace mml::gpu;
    for_each_row_chunk(M, kThreads, [&](std::int64_t first_row, std::int64_t rows) {
        const dim3 grid(grid_x_blocks(N, kCols), grid_y_blocks(rows, kThreads));
        volkov_stream_a_kernel<<<grid, kThreads>>>(A + first_row * K, B, C + first_row * N, rows, N, K);
        CUDA_CHECK_LAUNCH();
    });
}

}  // namespace reference::lab7
