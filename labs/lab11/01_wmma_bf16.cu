// Lab 11, stage 1 - your code: WMMA with bf16 inputs and FP32 sums.
//
// The structure is given (as lab 8's wmma_tf32, handouts/lab11.md, stage 1):
// a 128 x 128 block tile, 8 warps of 64 x 32 (4 x 2 accumulator fragments of
// 16 x 16), k-tiles of 32 bf16 loaded 16 bytes at a time and stored to one
// of two shared-memory copies while the tensor cores work on the other.
//
// Task: TODO 11.1 below - the tensor-core inner product of one k-tile.
// Operands (labs/lab11/lab11.h): A (M x K) row-major, Bt = B transposed
// (N x K), rows ld elements apart. B transposed and stored row-major is B
// stored column-major: hence the col_major fragment for B.
#include "labs/lab11/lab11.h"

#include <cuda_bf16.h>
#include <mma.h>

#include <cstdint>
#include <stdexcept>

#include "gpu/cuda_check.h"
#include "labs/common/wmma_pipeline.cuh"

namespace student::lab11 {
namespace {

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int WARPS_M = 2, WARPS_N = 4;              // 8 warps
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // warp tile 64 x 32
constexpr int FM = WM / 16, FN = WN / 16;            // 4 x 2 accumulator fragments
constexpr int kThreads = WARPS_M * WARPS_N * 32;
// 8 bf16 (16 bytes) of padding a shared row: rows 80 bytes apart spread a
// fragment's rows over the banks; every fragment start stays 32-byte aligned
// (16 rows x 80 bytes, and k = 16 is 32 bytes), as load_matrix_sync requires.
constexpr int kPad = 8, kLd = BK + kPad;
constexpr int kChunksA = BM * BK / 8 / kThreads, kChunksB = BN * BK / 8 / kThreads;  // 2 and 2 loads of 16 bytes

__global__ void __launch_bounds__(kThreads)
    wmma_bf16_kernel(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ Bt, std::int64_t ld,
                     float* __restrict__ C, std::int64_t M, std::int64_t N, std::int64_t K) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    using namespace nvcuda;
    __shared__ __align__(32) __nv_bfloat16 As[2][BM][kLd];
    __shared__ __align__(32) __nv_bfloat16 Bs[2][BN][kLd];

    const std::int64_t tiles_n = (N + BN - 1) / BN;
    const std::int64_t m0 = std::int64_t(blockIdx.x) / tiles_n * BM, n0 = std::int64_t(blockIdx.x) % tiles_n * BN;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = warp / WARPS_N * WM, wn0 = warp % WARPS_N * WN;

    uint4 a_next[kChunksA], b_next[kChunksB];  // the next k-tile, on its way through registers
    auto load_next = [&](std::int64_t k0) {
#pragma unroll
        for (int l = 0; l < kChunksA; ++l) {
            const int f = tid + l * kThreads, r = f / (BK / 8);
            const std::int64_t k = k0 + f % (BK / 8) * 8;
            a_next[l] = (m0 + r < M && k < K) ? *reinterpret_cast<const uint4*>(A + (m0 + r) * ld + k)
                                              : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int l = 0; l < kChunksB; ++l) {
            const int f = tid + l * kThreads, r = f / (BK / 8);
            const std::int64_t k = k0 + f % (BK / 8) * 8;
            b_next[l] = (n0 + r < N && k < K) ? *reinterpret_cast<const uint4*>(Bt + (n0 + r) * ld + k)
                                              : make_uint4(0, 0, 0, 0);
        }
    };
    auto store_next = [&](int buf) {
#pragma unroll
        for (int l = 0; l < kChunksA; ++l) {
            const int f = tid + l * kThreads;
            *reinterpret_cast<uint4*>(&As[buf][f / (BK / 8)][f % (BK / 8) * 8]) = a_next[l];
        }
#pragma unroll
        for (int l = 0; l < kChunksB; ++l) {
            const int f = tid + l * kThreads;
            *reinterpret_cast<uint4*>(&Bs[buf][f / (BK / 8)][f % (BK / 8) * 8]) = b_next[l];
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
    common::wmma_pipeline::zero_accumulators(acc);

    load_next(0);
    store_next(0);
    __syncthreads();
    int buf = 0;
    for (std::int64_t k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) load_next(k0 + BK);  // in flight while the tensor cores work on `buf`
        // TODO(lab11, 11.1): the tensor-core inner product on copy `buf`:
        //   acc[i][j] += (this warp's 16-row slice i of As[buf]) x (its 16-column
        //   slice j of B) over the tile's BK = 32 values of k, with nvcuda::wmma
        //   fragments m16n16k16 of __nv_bfloat16 (leading dimension kLd). Bs
        //   holds B transposed (element (k, n) at Bs[buf][n][k]): B column-major.
        //   The whole warp calls wmma functions together: every lane must take
        //   part. Stuck: handouts/lab11.md, hints 11.1.x.
        (void)Bs[buf][0][0];  // (delete this line when done: it only keeps nvcc from warning that Bs is unused)
        if (more) store_next(buf ^ 1);
        __syncthreads();
        buf ^= 1;
    }

    // Each fragment goes through a 16 x 16 staging area of the warp's own (the
    // A tiles are free: the loop ended with a barrier) and out element by
    // element, only where it lies inside C.
    float* stage = reinterpret_cast<float*>(&As[0][0][0]) + warp * 16 * 16;
    common::wmma_pipeline::store_accumulators<false>(acc, stage, C, m0 + wm0, n0 + wn0, M, N, lane);
#endif
}

}  // namespace

void wmma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
               std::int64_t N, std::int64_t K) {
    static bool checked = false;
    if (!checked) {
        int device = 0, major = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        if (major < 8) throw std::runtime_error("lab11.wmma_bf16 needs compute capability 8.0 or newer (bf16 WMMA)");
        checked = true;
    }
    const std::int64_t tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    if (tiles > 0x7fffffff) throw std::runtime_error("lab11.wmma_bf16: too many tiles for a 1-D grid");
    wmma_bf16_kernel<<<unsigned(tiles), kThreads>>>(A, Bt, ld, C, M, N, K);
    CUDA_CHECK_LAUNCH();
}

}  // namespace student::lab11
