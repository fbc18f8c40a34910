// Given code for the two WMMA kernels, lab 8's wmma_tf32 and lab 11's
// wmma_bf16 (starters and references alike): everything around the
// tensor-core product of one k-tile, which is the student's part.
//   zero_accumulators        every accumulator fragment of the warp tile at 0
//   double_buffered_k_loop   the k loop over two shared-memory copies: the next
//                            k-tile is loaded into registers while the tensor
//                            cores work on one copy, then stored to the other
//   store_accumulators       the warp tile out to C, only where it lies in C
// The kernels differ in what they load (float4 rounded to TF32; 16 bytes of
// bf16) and in the product, so those stay in the kernels as the lambdas
// passed here. Device code only, for kernel bodies compiled for sm_80 and newer.
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

// load_next(k0): k-tile k0 from global memory into the thread's registers;
// store_next(buf): those registers into shared copy `buf`; product(buf): the
// tensor-core product of copy `buf` into the accumulators. The barrier after
// each step makes the copy just stored visible and the other one free.
template <int BK, class LoadNext, class StoreNext, class Product>
__device__ __forceinline__ void double_buffered_k_loop(std::int64_t K, LoadNext&& load_next, StoreNext&& store_next,
                                                       Product&& product) {
    load_next(0);
    store_next(0);
    __syncthreads();
    int buf = 0;
    for (std::int64_t k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) load_next(k0 + BK);  // in flight while the tensor cores work on `buf`
        product(buf);
        if (more) store_next(buf ^ 1);
        __syncthreads();
        buf ^= 1;
    }
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
