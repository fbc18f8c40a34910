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
//
// The kernel itself is in double_buffer_impl.cuh, a template over the tile
// configuration, so that stage 6 (06_autotile.cu) runs the same kernel with
// other tiles and split-K; this file chooses its two configurations.
#include "solutions/lab8/lab8.h"
#include "solutions/lab8/double_buffer_impl.cuh"  // the kernel

namespace reference::lab8 {
using namespace mml::gpu;  // tiles_covering (gpu/tile_io.cuh)
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

}  // namespace

// The large tile when there are at least as many of them as SMs, else the small one.
void double_buffer(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                   std::int64_t K) {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (tiles_covering(M, LargeTiles::BM) * tiles_covering(N, LargeTiles::BN) >= sms)
        launch_double_buffer<LargeTiles>(A, B, C, M, N, K, K, 1);
    else
        launch_double_buffer<SmallTiles>(A, B, C, M, N, K, K, 1);
}

}  // namespace reference::lab8
