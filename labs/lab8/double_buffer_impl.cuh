// Lab 8, stage 4 - your code: the double-buffered kernel, a template over its
// tile configuration. 04_double_buffer.cu (stage 4) launches it with two
// configurations, 06_autotile.cu (stage 6) with four and split-K; the opening
// comment of 04_double_buffer.cu says what the kernel does.
//
// A configuration T names the tile hierarchy in CUTLASS's words:
//   BM, BN, BK            block tile and k-step
//   WARPS_M, WARPS_N      warps in the block tile
//   LANES_M, LANES_N      lanes in the warp tile (4 x 8)
//   TM, TN                thread tile (pieces of 4 x 4)
//   kPadA                 floats of padding per row of As
//   kMinBlocksPerSM       __launch_bounds__' minimum: registers are capped to fit that many
//   kGroupRows            block-rows per group of the tile order
// The static_asserts say which combinations work.
//
// Tasks (handouts/lab8.md, task 4): TODO 4.1 and 4.2 below.
#pragma once

#include <cstdint>

#include "gpu/cuda_check.h"
#include "gpu/float4_moves.cuh"
#include "gpu/tile_io.cuh"

namespace student::lab8 {
namespace {
using namespace mml::gpu;  // tiles_covering, load4_or_zero, ... (gpu/tile_io.cuh), copy4 ... (gpu/float4_moves.cuh)

// One block per block tile of C (grid x) and k-slice (grid y).
template <typename T, bool kVecA, bool kVecB>
__global__ void __launch_bounds__(T::WARPS_M * T::WARPS_N * 32, T::kMinBlocksPerSM)
double_buffer_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                     std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t k_slice) {
    constexpr int BM = T::BM, BN = T::BN, BK = T::BK, TM = T::TM, TN = T::TN;
    constexpr int kThreads = T::WARPS_M * T::WARPS_N * 32;
    constexpr int WM = T::LANES_M * TM, WN = T::LANES_N * TN;  // warp tile
    static_assert(T::LANES_M * T::LANES_N == 32, "a warp has 32 lanes");
    static_assert(T::WARPS_M * WM == BM && T::WARPS_N * WN == BN, "warp tiles cover the block tile");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 pieces");
    constexpr int kLoadsA = BM * BK / 4 / kThreads, kLoadsB = BK * BN / 4 / kThreads;  // float4 per thread
    static_assert(kLoadsA * kThreads * 4 == BM * BK && kLoadsB * kThreads * 4 == BK * BN,
                  "the tiles split evenly into float4 per thread");

    __shared__ __align__(16) float As[2][BK][BM + T::kPadA];  // two copies, A transposed
    __shared__ __align__(16) float Bs[2][BK][BN];

    // Which block tile: down a group of kGroupRows block-rows, then right.
    const std::int64_t tiles_m = tiles_covering(M, BM), tiles_n = tiles_covering(N, BN);
    const std::int64_t per_group = std::int64_t(T::kGroupRows) * tiles_n;
    const std::int64_t first_row = std::int64_t(blockIdx.x) / per_group * T::kGroupRows;
    const std::int64_t rows_here = min(tiles_m - first_row, std::int64_t(T::kGroupRows));
    const std::int64_t in_group = std::int64_t(blockIdx.x) % per_group;
    const std::int64_t m0 = (first_row + in_group % rows_here) * BM;
    const std::int64_t n0 = in_group / rows_here * BN;

    // This block's k-slice (split-K, stage 6): grid row z = blockIdx.y sums
    // k in [z * k_slice, z * k_slice + k_len) and writes that partial product
    // to the z-th M x N slab from C on. With one slice (stage 4), k_slice = K:
    // nothing moves. A keeps its row length K as the stride. Your loop below
    // runs over the k_len values of k of this slice.
    const std::int64_t k_first = std::int64_t(blockIdx.y) * k_slice;
    const std::int64_t k_len = min(K - k_first, k_slice);
    A += k_first;
    B += k_first * N;
    C += std::int64_t(blockIdx.y) * M * N;

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    // This thread's rows of the block tile are  row0 + s * (LANES_M * 4) + r
    // (s < TM/4, r < 4) and its columns  col0 + s * (LANES_N * 4) + c.
    const int row0 = warp / T::WARPS_N * WM + lane / T::LANES_N * 4;
    const int col0 = warp % T::WARPS_N * WN + lane % T::LANES_N * 4;

    // The float4 this thread loads: A(m0 + a_m, k0 + a_k ..+3) and
    // B(k0 + b_k, n0 + b_n ..+3) (kLoadsA and kLoadsB of them, kThreads apart).
    // Pointers walk along A's rows and down B's columns, one k-step at a time.
    const float* a_ptr[kLoadsA];
    const float* b_ptr[kLoadsB];
    int a_k[kLoadsA], b_k[kLoadsB], b_cols[kLoadsB];  // b_cols: columns that exist, 0..4
    bool a_row_in[kLoadsA];
    float* a_smem[kLoadsA];  // where they go in copy 0 of the shared tiles
    float* b_smem[kLoadsB];
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
        const int f = tid + l * kThreads, a_m = f / (BK / 4);
        a_k[l] = f % (BK / 4) * 4;
        a_row_in[l] = m0 + a_m < M;
        a_ptr[l] = A + (m0 + a_m) * K + a_k[l];
        a_smem[l] = &As[0][a_k[l]][a_m];
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
        const int f = tid + l * kThreads, b_n = f % (BN / 4) * 4;
        b_k[l] = f / (BN / 4);
        b_cols[l] = int(min(max(N - (n0 + b_n), std::int64_t(0)), std::int64_t(4)));
        b_ptr[l] = B + std::int64_t(b_k[l]) * N + n0 + b_n;
        b_smem[l] = &Bs[0][b_k[l]][b_n];
    }
    constexpr int kCopyA = BK * (BM + T::kPadA), kCopyB = BK * BN;  // floats from copy 0 to copy 1

    float4 a_next[kLoadsA], b_next[kLoadsB];  // the next k-step, global -> registers
    auto load_next = [&](std::int64_t k_left) {  // k_left = k_len - (first k of that step, in the slice)
#pragma unroll
        for (int l = 0; l < kLoadsA; ++l) {
            a_next[l] = load4_or_zero<kVecA>(a_ptr[l], a_row_in[l] ? k_left - a_k[l] : 0);
            a_ptr[l] += BK;
        }
#pragma unroll
        for (int l = 0; l < kLoadsB; ++l) {
            b_next[l] = load4_or_zero<kVecB>(b_ptr[l], b_k[l] < k_left ? b_cols[l] : 0);
            b_ptr[l] += BK * N;
        }
    };
    auto store_next = [&](int buf) {  // registers -> shared copy `buf`
#pragma unroll
        for (int l = 0; l < kLoadsA; ++l)  // the transpose: 4 scalar stores down a column of As
            store4_down_column(a_smem[l] + buf * kCopyA, BM + T::kPadA, a_next[l]);
#pragma unroll
        for (int l = 0; l < kLoadsB; ++l) *reinterpret_cast<float4*>(b_smem[l] + buf * kCopyB) = b_next[l];
    };

    float acc[TM][TN] = {};
    // TODO(lab8, task 4.1): the double-buffered main loop over this slice's k_len
    //   values of k (K in stage 4), in k-steps of BK.
    //   Contract: afterwards acc[i][j] holds this thread's part of C over the
    //     slice: its rows are row0 + s*(LANES_M*4) + r, its columns
    //     col0 + s*(LANES_N*4) + c (s < TM/4 or TN/4, r, c < 4), read from the
    //     shared copies As[buf], Bs[buf]. What is given: load_next(k_left)
    //     loads the NEXT k-step (k_left values of k left from its first one)
    //     from global memory into registers and advances its pointers (call it
    //     once per step, in order; out-of-range values come as zeros);
    //     store_next(buf) puts those registers into shared copy `buf`.
    //   Goal: the global loads of step s+1 in flight while the FFMAs of step
    //     s run, with one barrier per k-step (two shared copies, not one).
    //   (Write T::LANES_M etc.: T is the configuration, LargeTiles, SmallTiles
    //   or one of stage 6's.) Stuck: handouts/lab8.md, hints 8.4.x.

    // TODO(lab8, task 4.2): write the thread tile (rows and columns as in 4.1,
    //   offset by m0, n0) with store4_in_bounds<kVecB>: rows past M skipped,
    //   N - col columns existing. Hints 8.4.x.
    (void)acc; (void)row0; (void)col0; (void)load_next; (void)store_next; (void)k_len;
}

// Runs the kernel with configuration T on every tile of C and `slices`
// k-slices of k_slice each (the last may be shorter): slice z writes its
// partial product to C + z * M * N. Stage 4: one slice, k_slice = K.
template <typename T>
void launch_double_buffer(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                          std::int64_t K, std::int64_t k_slice, int slices) {
    const dim3 grid(grid_for_tiles(tiles_covering(M, T::BM) * tiles_covering(N, T::BN)), unsigned(slices));
    // A slice starts k_slice floats into A's rows: still 16-byte aligned when
    // K and k_slice are multiples of 4 (k_slice is a multiple of BK); the
    // slabs of C are M * N floats apart, aligned when N is a multiple of 4.
    const bool vec_a = rows_are_float4_aligned(A, K) && (slices == 1 || k_slice % 4 == 0);
    const bool vec_b = rows_are_float4_aligned(B, N) && rows_are_float4_aligned(C, N);
    with_vector_flags(vec_a, vec_b, [&](auto va, auto vb) {
        double_buffer_kernel<T, decltype(va)::value, decltype(vb)::value>
            <<<grid, T::WARPS_M * T::WARPS_N * 32>>>(A, B, C, M, N, K, k_slice);
    });
    CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace student::lab8
