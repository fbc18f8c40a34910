// Lab 8 reference: the body of the stage-5 kernel (asynchronous copies, a
// multi-stage shared-memory pipeline, fragments double-buffered in
// registers), a template over its tile configuration. Two files instantiate
// it: 05_async_copy.cu (stage 5) and 06_autotile.cu (stage 6: the
// configurations of labs/common/lab8_tiles.h, with split-K). 05_async_copy.cu's
// opening comment explains the kernel. A header with bodies: named *_impl.cuh
// so that a student release leaves it out, and included by nothing outside
// solutions/lab8/.
//
// A configuration T names the tile hierarchy as stage 4's does (BM, BN, BK,
// WARPS_M, WARPS_N, LANES_M, LANES_N, TM, TN, kPadA, kMinBlocksPerSM,
// kGroupRows), plus
//   kStages               shared-memory copies of the tiles in the pipeline (>= 2)
// The static_asserts say which combinations work.
#pragma once

#include <cstdint>

#include "gpu/cuda_check.h"
#include "gpu/float4_moves.cuh"
#include "gpu/tile_io.cuh"
#include "labs/common/ampere_ptx.cuh"

namespace reference::lab8 {
namespace {
using namespace mml::gpu;  // tiles_covering, grouped_tile_origin, store4_in_bounds (gpu/tile_io.cuh), copy4 ...

// Shared memory of one block: kStages copies of As[BK][BM + kPadA] (A
// transposed) and of Bs[BK][BN]. More than the 48 KB a block gets without
// asking for some configurations, so it is dynamic (launch_async_copy asks).
template <typename T>
constexpr int async_copy_smem_floats() {
    return T::kStages * (T::BK * (T::BM + T::kPadA) + T::BK * T::BN);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// This thread's first row and column in the block tile: lanes sit LANES_M
// down x LANES_N across a warp tile, 4 x 4 pieces each (as in stage 4).
template <typename T>
__device__ __forceinline__ int thread_row0() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return warp / T::WARPS_N * (T::LANES_M * T::TM) + lane / T::LANES_N * 4;
}
template <typename T>
__device__ __forceinline__ int thread_col0() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return warp % T::WARPS_N * (T::LANES_N * T::TN) + lane % T::LANES_N * 4;
}

// The product of one block tile (rows m0.., columns n0..) over k in
// [k_first, k_first + k_len), added to acc: the pipeline, in one function so
// that stage 5's kernel (a tile a block) and stage 8's persistent kernel
// (08_streamk.cu: pieces of tiles, one after the other) run the same code.
// Every thread of the block calls it (it holds barriers) with the shared
// memory of async_copy_smem_floats<T>(). It leaves no copy in flight; a
// caller that fills `smem` again must __syncthreads() first (the threads'
// last fragment loads). B's rows are N floats long (its bounds and stride).
template <typename T, bool kVecB>
__device__ __forceinline__ void pipeline_product(const float* __restrict__ A, const float* __restrict__ B,
                                                 std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t m0,
                                                 std::int64_t n0, std::int64_t k_first, std::int64_t k_len,
                                                 float* smem, float (&acc)[T::TM][T::TN]) {
    using namespace ::lab11;  // cp_async_4, cp_async_16_first, ... (labs/common/ampere_ptx.cuh)
    constexpr int BM = T::BM, BN = T::BN, BK = T::BK, TM = T::TM, TN = T::TN, S = T::kStages;
    constexpr int kThreads = T::WARPS_M * T::WARPS_N * 32;
    constexpr int WM = T::LANES_M * TM, WN = T::LANES_N * TN;  // warp tile
    constexpr int kRowA = BM + T::kPadA;                       // floats per row of As
    constexpr int kStageA = BK * kRowA, kStageB = BK * BN;     // floats per pipeline stage
    static_assert(S >= 2, "a pipeline needs at least two stages");
    static_assert(BK % 2 == 0, "the fragments alternate between two register sets over the k-step");
    static_assert(T::LANES_M * T::LANES_N == 32, "a warp has 32 lanes");
    static_assert(T::WARPS_M * WM == BM && T::WARPS_N * WN == BN, "warp tiles cover the block tile");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 pieces");
    // A: single floats, BK consecutive threads along a row of A (one 32-byte
    // sector); B: float4 along a row of B.
    constexpr int kCopiesA = BM * BK / kThreads, kCopiesB = BK * BN / 4 / kThreads;
    static_assert(kThreads % BK == 0 && kCopiesA * kThreads == BM * BK, "A's tile splits evenly into floats");
    static_assert(kCopiesB * kThreads * 4 == BK * BN, "B's tile splits evenly into float4");
    constexpr int kRowsApartA = kThreads / BK;

    float* const As = smem;
    float* const Bs = As + S * kStageA;

    // The k-slice: k in [k_first, k_first + k_len) of A's rows and B's columns.
    A += k_first;
    B += k_first * N;

    const int tid = threadIdx.x;
    const int row0 = thread_row0<T>(), col0 = thread_col0<T>();

    // What this thread copies each k-step: A(m0 + a_m + l * kRowsApartA, k0 + a_k)
    // for l < kCopiesA into As[a_k][a_m + l * kRowsApartA] (the transpose;
    // BK threads in a row read one 32-byte sector), and the float4
    // B(k0 + b_k, n0 + b_n + l * kColsApartB ..+3) for l < kCopiesB into
    // Bs[b_k][b_n + l * kColsApartB ..] (a warp reads whole rows of B's tile).
    const int a_k = tid % BK, a_m = tid / BK;
    constexpr int kColsApartB = BN / kCopiesB;
    static_assert(kThreads % (kColsApartB / 4) == 0 && kThreads / (kColsApartB / 4) == BK,
                  "B's tile: each thread copies kCopiesB float4 of one row");
    const int b_n = tid % (kColsApartB / 4) * 4, b_k = tid / (kColsApartB / 4);
    unsigned a_rows_in = 0;  // bit l: row a_m + l * kRowsApartA exists
#pragma unroll
    for (int l = 0; l < kCopiesA; ++l) a_rows_in |= unsigned(m0 + a_m + l * kRowsApartA < M) << l;
    int b_bytes[kCopiesB];  // bytes of each float4 of B that exist (0..16: the columns left of N)
#pragma unroll
    for (int l = 0; l < kCopiesB; ++l)
        b_bytes[l] = 4 * int(min(max(N - (n0 + b_n + l * kColsApartB), std::int64_t(0)), std::int64_t(4)));
    const std::int64_t a_stride = std::int64_t(kRowsApartA) * K;
    const float* a_src = A + (m0 + a_m) * K + a_k;  // walks along A's rows, BK a step
    const float* b_src = B + std::int64_t(b_k) * N + n0 + b_n;  // walks down B's columns
    float* const a_dst = As + a_k * kRowA + a_m;
    float* const b_dst = Bs + b_k * BN + b_n;
    // k left in the slice from the step copied next (an int: a slice is at
    // most K <= 2^31 - 1 deep, and 32-bit compares are one instruction).
    int k_left_copy = int(k_len);

    // Starts the copies of the next k-step into pipeline stage `stage`. Past
    // the slice's end (k_left_copy <= 0) every copy reads nothing and writes zeros.
    auto copy_next_step = [&](int stage) {
        const bool a_k_in = a_k < k_left_copy, b_k_in = b_k < k_left_copy;
#pragma unroll
        for (int l = 0; l < kCopiesA; ++l)
            cp_async_4(a_dst + stage * kStageA + l * kRowsApartA, a_src + l * a_stride, (a_rows_in >> l & 1) && a_k_in);
#pragma unroll
        for (int l = 0; l < kCopiesB; ++l) {
            const float* src = b_src + l * kColsApartB;
            float* dst = b_dst + stage * kStageB + l * kColsApartB;
            if (kVecB) {
                cp_async_16_first(dst, src, b_k_in ? b_bytes[l] : 0);
            } else {
#pragma unroll
                for (int c = 0; c < 4; ++c) cp_async_4(dst + c, src + c, b_k_in && 4 * c < b_bytes[l]);
            }
        }
        a_src += BK;
        b_src += BK * N;
        k_left_copy -= BK;
    };

    // Fragments: this thread's TM values of A's column k and TN of B's row k
    // (LDS.128 each, conflict-free as in stage 4), in two register sets: the
    // next k's are loaded while the FFMAs use this k's.
    float a[2][TM], b[2][TN];
    auto load_fragments = [&](int set, const float* As_stage, const float* Bs_stage, int k) {
#pragma unroll
        for (int s = 0; s < TM / 4; ++s) copy4(&a[set][4 * s], As_stage + k * kRowA + row0 + s * T::LANES_M * 4);
#pragma unroll
        for (int s = 0; s < TN / 4; ++s) copy4(&b[set][4 * s], Bs_stage + k * BN + col0 + s * T::LANES_N * 4);
    };

    // The pipeline: S - 1 k-steps in flight ahead of the one computed. Each
    // thread commits one group of copies per k-step (empty past the end), so
    // "at most S - 2 groups pending" means: the step about to be read is here.
    const int steps = int((k_len + BK - 1) / BK);
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
        if (s < steps) copy_next_step(s);
        cp_async_commit();
    }
    cp_async_wait<S - 2>();
    __syncthreads();

    int read = 0, write = S - 1;  // the stage computed on, the stage refilled
    load_fragments(0, As, Bs, 0);
    for (int step = 0; step < steps; ++step) {
        // Refill the stage that the previous step read: every thread finished
        // reading it before the barrier at the end of that step.
        if (step + S - 1 < steps) copy_next_step(write);
        cp_async_commit();
        write = write + 1 == S ? 0 : write + 1;
        const int next = read + 1 == S ? 0 : read + 1;
        const float* As_read = As + read * kStageA;
        const float* Bs_read = Bs + read * kStageB;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k < BK - 1) {
                load_fragments((k + 1) % 2, As_read, Bs_read, k + 1);
            } else {
                // The next stage's copies (all threads') done and visible,
                // then its first fragments, before this k's FFMAs.
                cp_async_wait<S - 2>();
                __syncthreads();
                load_fragments(0, As + next * kStageA, Bs + next * kStageB, 0);
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[k % 2][i] * b[k % 2][j];
        }
        read = next;
    }
    cp_async_wait<0>();  // no copy may still be writing when the block exits (only empty groups are left)
}

// Writes this thread's part of the block tile at (m0, n0) of C (M x N, rows
// N floats apart), leaving out what lies past M or N.
template <typename T, bool kVecC>
__device__ __forceinline__ void store_thread_tile(float* __restrict__ C, std::int64_t M, std::int64_t N,
                                                  std::int64_t m0, std::int64_t n0,
                                                  const float (&acc)[T::TM][T::TN]) {
    constexpr int TM = T::TM, TN = T::TN;
    const int row0 = thread_row0<T>(), col0 = thread_col0<T>();
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const std::int64_t row = m0 + row0 + i / 4 * (T::LANES_M * 4) + i % 4;
        if (row >= M) continue;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const std::int64_t col = n0 + col0 + j / 4 * (T::LANES_N * 4);
            store4_in_bounds<kVecC>(C + row * N + col, as_float4(&acc[i][j]), N - col);
        }
    }
}
#endif

// One block per block tile of C (grid x) and k-slice (grid y).
template <typename T, bool kVecB>
__global__ void __launch_bounds__(T::WARPS_M * T::WARPS_N * 32, T::kMinBlocksPerSM)
async_copy_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, std::int64_t M,
                  std::int64_t N, std::int64_t K, std::int64_t k_slice) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ float4 smem4[];  // float4: 16-byte aligned
    const TileOrigin tile = grouped_tile_origin(blockIdx.x, M, N, T::BM, T::BN, T::kGroupRows);
    // This block's k-slice (split-K, stage 6), as in stage 4: slice z sums
    // k in [z * k_slice, z * k_slice + k_len) into the z-th M x N slab from C on.
    const std::int64_t k_first = std::int64_t(blockIdx.y) * k_slice;
    const std::int64_t k_len = min(K - k_first, k_slice);
    float acc[T::TM][T::TN] = {};
    pipeline_product<T, kVecB>(A, B, M, N, K, tile.m0, tile.n0, k_first, k_len, reinterpret_cast<float*>(smem4), acc);
    store_thread_tile<T, kVecB>(C + std::int64_t(blockIdx.y) * M * N, M, N, tile.m0, tile.n0, acc);
#else
    // cp.async needs sm_80: launch_async_copy refuses older GPUs before launching.
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K, (void)k_slice;
#endif
}

// Runs the kernel with configuration T on every tile of C and `slices`
// k-slices of k_slice each (the last may be shorter): slice z writes its
// partial product to C + z * M * N. Stage 5: one slice, k_slice = K.
template <typename T>
void launch_async_copy(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                       std::int64_t k_slice, int slices) {
    constexpr int kSmemBytes = async_copy_smem_floats<T>() * int(sizeof(float));
    // Once per instantiation: the compute capability, and the dynamic
    // shared-memory limit raised above the default 48 KB where needed.
    static const bool ready = [] {
        int device = 0, major = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        if (major < 8) return false;
        CUDA_CHECK(cudaFuncSetAttribute(async_copy_kernel<T, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        kSmemBytes));
        CUDA_CHECK(cudaFuncSetAttribute(async_copy_kernel<T, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        kSmemBytes));
        return true;
    }();
    if (!ready) throw std::runtime_error("lab8: cp.async needs a GPU of compute capability 8.0 or newer");
    if (k_slice > 2147483647LL)  // the kernel counts k in an int
        throw std::runtime_error("lab8: a k-slice of " + std::to_string(k_slice) + " is deeper than 2^31 - 1");
    const dim3 grid(grid_for_tiles(tiles_covering(M, T::BM) * tiles_covering(N, T::BN)), unsigned(slices));
    // B's rows (and the slabs of C, M * N floats apart) are 16-byte aligned
    // when N is a multiple of 4. A needs nothing: it is copied a float at a time.
    const bool vec_b = rows_are_float4_aligned(B, N) && rows_are_float4_aligned(C, N);
    constexpr int kThreads = T::WARPS_M * T::WARPS_N * 32;
    if (vec_b)
        async_copy_kernel<T, true><<<grid, kThreads, kSmemBytes>>>(A, B, C, M, N, K, k_slice);
    else
        async_copy_kernel<T, false><<<grid, kThreads, kSmemBytes>>>(A, B, C, M, N, K, k_slice);
    CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace reference::lab8
