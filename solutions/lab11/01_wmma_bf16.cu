// Lab 11, stage 1: WMMA with bf16 inputs and FP32 sums - the portable
// starting point (any GPU with bf16 tensor cores: sm_80 and newer).
//
// What changed from lab 8's wmma_tf32, and why it should be faster: the
// inputs arrive as bf16 (2 bytes, not 4), so a k-tile of 32 costs the same
// global and shared traffic as lab 8's 16, and one m16n16k16 bf16 product
// does twice the work of an m16n16k8 TF32 one at twice TF32's peak rate
// (H100: about 990 dense bf16 TFLOP/s against 495 TF32). Otherwise the same
// structure: 128 x 128 block tile, 8 warps of 64 x 32 (4 x 2 fragments of
// 16 x 16), two shared-memory copies filled through registers while the
// other is multiplied.
// Why it stalls far below the H100's peak: WMMA compiles to Ampere's
// mma.sync (HMMA in SASS), one warp and a 16 x 8 x 16 product at a time, with
// every operand passing through registers; Hopper's tensor cores run at full
// speed only through wgmma (stage 3). The fragments hide which thread holds
// what, so stage 2 drops WMMA for mma.sync and ldmatrix.
//
// Operands (gpu/lowp_operands.h): A (M x K) and Bt (N x K) both K-major, rows
// ld elements apart, ld a multiple of 8 with zeros past K: a 16-byte load of
// 8 elements that starts below K stays inside its row.
#include "solutions/lab11/lab11.h"

#include <cuda_bf16.h>
#include <mma.h>

#include <cstdint>
#include <stdexcept>

#include "gpu/cuda_check.h"
#include "labs/common/wmma_pipeline.cuh"

namespace reference::lab11 {
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
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[FM];
            // B^T row-major is B column-major: element (k, n) at Bs[n][k].
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b[FN];
#pragma unroll
            for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], &As[buf][wm0 + i * 16][kk], kLd);
#pragma unroll
            for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], &Bs[buf][wn0 + j * 16][kk], kLd);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
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

}  // namespace reference::lab11
