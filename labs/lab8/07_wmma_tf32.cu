// Lab 8, extension - your code: TF32 tensor cores through WMMA.
//
// The same block tile (128 x 128), double buffering and register prefetch as
// stage 4, k-step 16, but the inner product runs on the tensor cores: each of
// the 8 warps owns a 64 x 32 warp tile as 4 x 2 accumulator fragments of
// 16 x 16, and wmma::mma_sync multiplies a 16 x 8 piece of A by an 8 x 16
// piece of B (shape m16n16k8, precision::tf32, FP32 sums). Inputs are rounded
// to TF32 (10 mantissa bits) once, on their way into shared memory, so the
// check uses tf32_bound (cpu/error_bound.h), not gamma_K.
// TF32 needs sm_80 or newer: the kernel body is compiled only there, and the
// launcher refuses older GPUs with a message.
//
// Task (handouts/lab8.md, extension): TODO 7.1 below; the loads, the
// rounding and the stores of the accumulators are given.
#include "labs/lab8/lab8.h"
#include "gpu/tile_io.cuh"

#include <mma.h>

#include <stdexcept>
#include <string>

#include "gpu/cuda_check.h"
#include "labs/common/wmma_pipeline.cuh"

namespace student::lab8 {
using namespace mml::gpu;  // tiles_covering, load4_or_zero, ... (gpu/tile_io.cuh)

namespace {

constexpr int BM = 128, BN = 128, BK = 16;
constexpr int WARPS_M = 2, WARPS_N = 4;              // 8 warps
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // warp tile 64 x 32
constexpr int FM = WM / 16, FN = WN / 16;            // 4 x 2 accumulator fragments per warp
constexpr int kThreads = WARPS_M * WARPS_N * 32;     // 256
// Floats of padding per shared row: fewer bank conflicts. Rows stay a multiple
// of 4 floats long (wmma's rule for the leading dimension), and every
// fragment's first element (every 16th row of As, every 8th of Bs) stays
// 32-byte aligned, as load_matrix_sync requires.
constexpr int kPad = 4;
constexpr int kLoadsA = BM * BK / 4 / kThreads, kLoadsB = BK * BN / 4 / kThreads;  // 2 and 2 float4

template <bool kVecA, bool kVecB>
__global__ void __launch_bounds__(kThreads)
wmma_tf32_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                 std::int64_t M, std::int64_t N, std::int64_t K) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    using namespace nvcuda;
    // Two copies of each tile, row-major as in global memory, already rounded to TF32.
    __shared__ __align__(32) float As[2][BM][BK + kPad];
    __shared__ __align__(32) float Bs[2][BK][BN + kPad];

    const std::int64_t tiles_n = tiles_covering(N, BN);
    const std::int64_t m0 = std::int64_t(blockIdx.x) / tiles_n * BM;
    const std::int64_t n0 = std::int64_t(blockIdx.x) % tiles_n * BN;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = warp / WARPS_N * WM, wn0 = warp % WARPS_N * WN;  // warp tile origin

    float4 a_next[kLoadsA], b_next[kLoadsB];
    auto load_next = [&](std::int64_t k0) {
#pragma unroll
        for (int l = 0; l < kLoadsA; ++l) {
            const int f = tid + l * kThreads, m = f / (BK / 4), k = f % (BK / 4) * 4;
            a_next[l] = load4_or_zero<kVecA>(A + (m0 + m) * K + k0 + k, m0 + m < M ? K - (k0 + k) : 0);
        }
#pragma unroll
        for (int l = 0; l < kLoadsB; ++l) {
            const int f = tid + l * kThreads, k = f / (BN / 4), n = f % (BN / 4) * 4;
            b_next[l] = load4_or_zero<kVecB>(B + (k0 + k) * N + n0 + n, k0 + k < K ? N - (n0 + n) : 0);
        }
    };
    auto tf32 = [](float4 v) {  // round to nearest TF32 once, when the tile goes to shared memory
        return make_float4(wmma::__float_to_tf32(v.x), wmma::__float_to_tf32(v.y),
                           wmma::__float_to_tf32(v.z), wmma::__float_to_tf32(v.w));
    };
    auto store_next = [&](int buf) {
#pragma unroll
        for (int l = 0; l < kLoadsA; ++l) {
            const int f = tid + l * kThreads;
            *reinterpret_cast<float4*>(&As[buf][f / (BK / 4)][f % (BK / 4) * 4]) = tf32(a_next[l]);
        }
#pragma unroll
        for (int l = 0; l < kLoadsB; ++l) {
            const int f = tid + l * kThreads;
            *reinterpret_cast<float4*>(&Bs[buf][f / (BN / 4)][f % (BN / 4) * 4]) = tf32(b_next[l]);
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[FM][FN];
    common::wmma_pipeline::zero_accumulators(acc);

    load_next(0);
    store_next(0);
    __syncthreads();
    int buf = 0;
    for (std::int64_t k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) load_next(k0 + BK);
        // TODO(lab8, extension 7.1): the tensor-core inner product on copy `buf`:
        //   acc[i][j] += (this warp's 16-row slice i of As[buf]) x (its 16-column
        //   slice j of Bs[buf]) over the BK = 16 values of k, with nvcuda::wmma
        //   fragments m16n16k8 in precision::tf32 (row-major; leading dimensions
        //   BK + kPad and BN + kPad). The whole warp calls wmma functions
        //   together: every lane must take part. Hints 8.7.x.
        if (more) store_next(buf ^ 1);
        __syncthreads();
        buf ^= 1;
    }

    // Write the accumulators. A fragment that lies wholly inside C goes
    // straight to global memory when the rows allow it (store_matrix_sync
    // needs N a multiple of 4 floats); the others pass through a 16 x 16
    // staging area per warp in shared memory (the A tiles are free now: the
    // loop ended with a barrier) and are copied out element by element.
    float* stage = &As[0][0][0] + warp * 16 * 16;
    common::wmma_pipeline::store_accumulators<kVecB>(acc, stage, C, m0 + wm0, n0 + wn0, M, N, lane);
#endif
}

}  // namespace

void wmma_tf32(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K) {
    int device = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    if (major < 8)
        throw std::runtime_error("lab8.wmma_tf32: TF32 tensor cores need compute capability 8.0 or newer; this GPU is sm_" +
                                 std::to_string(major) + std::to_string(minor));
    const unsigned blocks = grid_for_tiles(tiles_covering(M, BM) * tiles_covering(N, BN));
    const bool vec_a = rows_are_float4_aligned(A, K);
    // float4 loads of B, and direct fragment stores to C (32-byte-aligned pointers, N % 4 == 0).
    const bool vec_b = rows_are_float4_aligned(B, N) && rows_are_float4_aligned(C, N) &&
                       reinterpret_cast<std::uintptr_t>(C) % 32 == 0;
    with_vector_flags(vec_a, vec_b, [&](auto va, auto vb) {
        wmma_tf32_kernel<decltype(va)::value, decltype(vb)::value><<<blocks, kThreads>>>(A, B, C, M, N, K);
    });
    CUDA_CHECK_LAUNCH();
}

}  // namespace student::lab8
