// Lab 8, stage 4: double buffering, warp tiles and a larger thread tile -
// the fast one.
//
// What changed from stage 3:
//  1. Double buffering. Stage 3 waits twice per k-step: for the global loads
//     to arrive before the shared stores, and at the barrier before the FFMAs.
//     Here there are two copies of the shared tiles. While the block computes
//     on copy `buf`, each thread has already issued the global loads of the
//     NEXT k-step into registers; they arrive while the FFMAs run, and go into
//     copy `buf ^ 1` after. One barrier per k-step instead of two, and the
//     global-memory latency (hundreds of cycles) hides behind the FFMAs.
//  2. Warp tiles. The 256 threads are 8 warps, each owning a 64 x 64 warp
//     tile (2 down, 4 across the block tile); inside it the 32 lanes sit 4
//     down by 8 across, each with its thread tile in 4 x 4 pieces (16 rows and
//     32 columns apart). So a warp reads only 4 distinct float4 of A's column
//     and 8 of B's row per k: each LDS.128 is one pass of shared memory (one
//     "wavefront"), where stage 3's warp (2 rows of 16 threads) read 16
//     float4 of B, two passes.
//  3. A larger tile (tuned on an H100): block tile 128 x 256, thread tile
//     16 x 8 = 128 accumulators. Per k a thread now does 128 FFMAs for 6
//     LDS.128 (stage 3: 64 for 4), and the block 128 * 256 * 8 FFMAs for
//     (128 + 256) * 8 loaded floats (85 per float, stage 3: 64). The price:
//     ~250 registers per thread, so one block (8 warps) per SM - enough,
//     because double buffering, not many warps, now hides the latency.
//     Products too small to give every SM one such tile (1024^3: 32 tiles,
//     132 SMs on an H100) take the classic 128 x 128 tile with 8 x 8 thread
//     tiles and two blocks per SM instead (SmallTiles below); on large ones
//     that classic tile runs 4-5% slower than the large one (H100, 8192^3).
//  4. Tile order. Blocks are numbered down groups of 8 block-rows before
//     moving right, so the blocks that run at the same time share rows of A
//     and columns of B, and more of their loads hit the L2 cache.
//
// Why it should be faster: the FFMA units idle less - no exposed global
// latency, half the barriers, fewer shared-memory passes per FFMA. This is
// the design of CUTLASS's SIMT SGEMM, and it gets close to cuBLAS's FP32
// kernel (see handouts/lab8.md for the numbers).
#include "solutions/lab8/lab8.h"
#include "gpu/float4_moves.cuh"
#include "gpu/tile_io.cuh"

#include "gpu/cuda_check.h"

namespace reference::lab8 {
using namespace mml::gpu;  // tiles_covering, load4_or_zero, ... (gpu/tile_io.cuh), copy4 ... (gpu/float4_moves.cuh)
namespace {

// The tile hierarchy, in CUTLASS's names. Changing a number here re-shapes the
// whole kernel (the static_asserts say which combinations work).
struct LargeTiles {
    static constexpr int BM = 128, BN = 256, BK = 8;  // block tile and k-step
    static constexpr int WARPS_M = 2, WARPS_N = 4;    // warps in the block tile
    static constexpr int LANES_M = 4, LANES_N = 8;    // lanes in the warp tile
    static constexpr int TM = 16, TN = 8;             // thread tile (pieces of 4 x 4)
    static constexpr int kPadA = 4;                   // floats of padding per row of As
    static constexpr int kMinBlocksPerSM = 1;         // registers: up to 255 per thread
    static constexpr int kGroupRows = 8;              // block-rows per group of the tile order
};
// For products too small to give every SM a 128 x 256 tile (1024^3 has 32 of
// them for the H100's 132 SMs): the classic 128 x 128 block tile, 32 x 64 warp
// tiles, 8 x 8 thread tiles, two blocks per SM (registers capped at
// 65536 / (2 * 256) = 128 per thread). Twice the blocks, half the idle SMs.
struct SmallTiles : LargeTiles {
    static constexpr int BN = 128, WARPS_M = 4, WARPS_N = 2, TM = 8;
    static constexpr int kMinBlocksPerSM = 2;
};

template <typename T, bool kVecA, bool kVecB>
__global__ void __launch_bounds__(T::WARPS_M * T::WARPS_N * 32, T::kMinBlocksPerSM)
double_buffer_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                     std::int64_t M, std::int64_t N, std::int64_t K) {
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
    auto load_next = [&](std::int64_t k_left) {  // k_left = K - (first k of that step)
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
        for (int l = 0; l < kLoadsA; ++l) {
            store4_down_column(a_smem[l] + buf * kCopyA, BM + T::kPadA, a_next[l]);  // the transpose
        }
#pragma unroll
        for (int l = 0; l < kLoadsB; ++l) *reinterpret_cast<float4*>(b_smem[l] + buf * kCopyB) = b_next[l];
    };

    float acc[TM][TN] = {};
    load_next(K);
    store_next(0);
    __syncthreads();
    int buf = 0;
    for (std::int64_t k_left = K; k_left > 0; k_left -= BK) {  // k_left: K minus this step's first k
        // Issue the next step's loads now; they are in flight during the FFMAs
        // below. Past the last step they load nothing (every element is out of
        // range) and store zeros nobody reads: no branch, so the compiler keeps
        // the loads up here instead of moving them after the FFMAs.
        load_next(k_left - BK);

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int s = 0; s < TM / 4; ++s)
                copy4(&a[4 * s], &As[buf][k][row0 + s * T::LANES_M * 4]);
#pragma unroll
            for (int s = 0; s < TN / 4; ++s)
                copy4(&b[4 * s], &Bs[buf][k][col0 + s * T::LANES_N * 4]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }

        // Copy buf ^ 1 was last read in the previous step, before its barrier:
        // free to overwrite. One barrier, then the roles swap.
        store_next(buf ^ 1);
        __syncthreads();
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const std::int64_t row = m0 + row0 + i / 4 * (T::LANES_M * 4) + i % 4;
        if (row >= M) continue;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const std::int64_t col = n0 + col0 + j / 4 * (T::LANES_N * 4);
            store4_in_bounds<kVecB>(C + row * N + col, as_float4(&acc[i][j]), N - col);
        }
    }
}

}  // namespace

namespace {

template <typename T>
void launch(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K) {
    const unsigned blocks = grid_for_tiles(tiles_covering(M, T::BM) * tiles_covering(N, T::BN));
    const bool vec_a = rows_are_float4_aligned(A, K);
    const bool vec_b = rows_are_float4_aligned(B, N) && rows_are_float4_aligned(C, N);
    with_vector_flags(vec_a, vec_b, [&](auto va, auto vb) {
        double_buffer_kernel<T, decltype(va)::value, decltype(vb)::value>
            <<<blocks, T::WARPS_M * T::WARPS_N * 32>>>(A, B, C, M, N, K);
    });
    CUDA_CHECK_LAUNCH();
}

}  // namespace

// The large tile when there are at least as many of them as SMs, else the small one.
void double_buffer(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                   std::int64_t K) {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (tiles_covering(M, LargeTiles::BM) * tiles_covering(N, LargeTiles::BN) >= sms)
        launch<LargeTiles>(A, B, C, M, N, K);
    else
        launch<SmallTiles>(A, B, C, M, N, K);
}

}  // namespace reference::lab8
