// Given code for the two WMMA kernels, lab 8's wmma_tf32 and lab 11's
// wmma_bf16 (starters and references alike): what they do the same way
// around the student's part, the tensor-core product of a k-tile.
//   zero_accumulators    every accumulator fragment of the warp tile at 0
//   store_accumulators   the warp tile out to C, only where it lies in C
// The kernels differ in what they load (float4 rounded to TF32; 16 bytes of
// bf16) and in the product; their double-buffered k loops are alike but stay
// in the kernels, around the TODO (as a function taking the product as a
// lambda the loop compiled to other machine code). Device code only, for
// kernel bodies compiled for sm_80 and newer.
#pragma once

#include <mma.h>

#include <cstdint>

namespace common::wmma_pipeline {

template <class Fragment, int FM, int FN>
__device__ __forceinline__ void zero_accumulators(Fragment (&acc)[FM][FN]) {
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) nvcuda::wmma::fill_fragment(acc[i][j], 0.0f);
}

// The warp tile whose top-left element of C is (row0, col0), FM x FN fragments
// of 16 x 16. kDirect: a fragment that lies wholly inside C goes straight to
// global memory (store_matrix_sync needs N a multiple of 4 floats and C
// 32-byte aligned: the caller knows). The others pass through `stage`, a
// 16 x 16 area of shared memory of the warp's own, and go out element by
// element.
template <bool kDirect, class Fragment, int FM, int FN>
__device__ __forceinline__ void store_accumulators(const Fragment (&acc)[FM][FN], float* stage, float* C,
                                                   std::int64_t row0, std::int64_t col0, std::int64_t M,
                                                   std::int64_t N, int lane) {
    using namespace nvcuda;
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const std::int64_t row = row0 + i * 16, col = col0 + j * 16;
            if (row >= M || col >= N) continue;  // the same for the whole warp
            if (kDirect && row + 16 <= M && col + 16 <= N) {
                wmma::store_matrix_sync(C + row * N + col, acc[i][j], unsigned(N), wmma::mem_row_major);
            } else {
                wmma::store_matrix_sync(stage, acc[i][j], 16, wmma::mem_row_major);
                __syncwarp();
                for (int e = lane; e < 16 * 16; e += 32) {
                    const std::int64_t r = row + e / 16, c = col + e % 16;
                    if (r < M && c < N) C[r * N + c] = stage[e];
                }
                __syncwarp();
            }
        }
}

}  // namespace common::wmma_pipeline
