// Lab 8, stage 4 - your code: double buffering, warp tiles, a larger tile.
//
//  1. Double buffering: two copies of the shared tiles (As[2][..], Bs[2][..]).
//     While the block computes on copy `buf`, each thread's loads of the NEXT
//     k-step are already in flight into registers (a_next, b_next); after the
//     FFMAs they go into copy buf ^ 1. One barrier per k-step instead of two,
//     and the global latency hides behind the FFMAs.
//  2. Warp tiles: 8 warps, each owning a 64 x 64 warp tile (2 down, 4
//     across); inside it the 32 lanes sit 4 down x 8 across, each with its
//     thread tile in 4 x 4 pieces (16 rows and 32 columns apart). A warp then
//     reads only 4 distinct float4 of A and 8 of B per k: one shared-memory
//     pass per LDS.128.
//  3. A larger tile: block tile 128 x 256, thread tile 16 x 8 (128
//     accumulators): more FFMAs per load at both levels; small products,
//     which would leave SMs without a tile, take 128 x 128 with 8 x 8 thread
//     tiles (the launcher picks). All sizes live in the LargeTiles and
//     SmallTiles structs below; try others once your loop works.
//  4. Tile order: blocks go down groups of 8 block-rows before moving right,
//     so blocks running together share rows of A and columns of B in L2.
// The kernel is in double_buffer_impl.cuh (a template over the tile
// configuration, so that stage 6 can launch it with other tiles). Its set-up
// (tile order, which rows and columns a thread owns, which float4 it loads,
// load_next / store_next) is given; you write the main loop and the stores.
//
// Tasks (handouts/lab8.md, task 4): TODO 4.1 and 4.2 in double_buffer_impl.cuh.
#include "labs/lab8/lab8.h"
#include "labs/lab8/double_buffer_impl.cuh"  // the kernel: your TODOs 4.1 and 4.2

namespace student::lab8 {
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

}  // namespace student::lab8
