// Lab 8, stage 5 - your code: asynchronous copies and a multi-stage pipeline - the
// Ampere/Hopper way to feed the FFMAs.
//
// What limits stage 4: one block of 8 warps per SM (~250 registers a
// thread), and every global load passes through registers (LDG into
// a_next/b_next, then STS into the other shared copy): those staging
// registers are a good part of the budget, the STS instructions compete with
// the FFMAs for issue slots, and with one block a k-step's barrier stops
// every warp of the SM at once.
//
// What changed:
//  1. cp.async (sm_80 and newer, SASS LDGSTS): global -> shared directly,
//     without registers. A thread starts the copies and goes on; it waits
//     for them only when it needs the data (cp.async.wait_group), and a
//     barrier then makes every thread's copies visible to all. A is copied
//     a float at a time (4-byte cp.async), which is how it lands transposed
//     in shared memory; B a float4 at a time (16 bytes). Edges: a copy told
//     to read fewer bytes than it writes fills the rest with zeros - the
//     same zero fill as load4_or_zero, with no branch.
//  2. A pipeline of kStages shared copies instead of two: the copies of
//     k-step s + kStages - 1 are in flight while step s is computed, so the
//     global latency is hidden kStages - 1 steps deep. Still one barrier per
//     k-step: the copy refilled at the top of step s is the one step s - 1
//     read, and every thread finished reading it before that step's barrier.
//  3. Fragments double-buffered in registers: the LDS.128 of k + 1 are issued
//     before the FFMAs of k, so the shared-memory latency hides too; the
//     first fragments of the next stage are read right after the barrier.
//  4. Cheap copies: a thread's copies of B are float4 of one row, 128
//     columns apart (constant offsets from one pointer), and k is counted in
//     a 32-bit int: a k-step is 1024 FFMAs and 57 other instructions by the
//     count of labs/common/lab8_tiles.cpp (ffma_share), 95 % FFMAs. The tile
//     stays stage 4's 128 x 256 with 16 x 8 thread tiles (255 registers, 231
//     on the scalar path for B; one block of 8 warps an SM): on an H100
//     (handouts/lab8.md, the table of stage 5's variants) it beat a 128 x 128 tile of 4 warps with
//     two blocks an SM (85 % of cuBLAS against 95 %), a k-step of 16 (90 %)
//     and 4 stages (the same as 3).
//
// The kernel is in async_copy_impl.cuh, a template over the tile
// configuration (stage 6 launches it with other tiles and split-K); this file
// chooses its configuration. Its set-up (tile order, which floats a thread
// copies, copy_next_step, load_fragments) is given; you write the pipeline
// and the stores.
//
// Tasks (handouts/lab8.md, task 5): TODO 5.1 and 5.2 in async_copy_impl.cuh.
#include "labs/lab8/lab8.h"
#include "labs/lab8/async_copy_impl.cuh"  // the kernel: your TODOs 5.1 and 5.2

namespace student::lab8 {
namespace {

// The tile hierarchy (the static_asserts of the kernel say which combinations work).
struct PipelineTiles {
    static constexpr int BM = 128, BN = 256, BK = 8;  // block tile and k-step
    static constexpr int WARPS_M = 2, WARPS_N = 4;    // 8 warps, 64 x 64 warp tiles
    static constexpr int LANES_M = 4, LANES_N = 8;    // lanes in the warp tile
    static constexpr int TM = 16, TN = 8;             // thread tile (pieces of 4 x 4)
    static constexpr int kPadA = 4;                   // floats of padding per row of As
    static constexpr int kStages = 3;                 // shared copies in the pipeline (36.4 KiB)
    static constexpr int kMinBlocksPerSM = 1;         // registers: up to 255 per thread
    static constexpr int kGroupRows = 8;              // block-rows per group of the tile order
};

}  // namespace

void async_copy(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K) {
    launch_async_copy<PipelineTiles>(A, B, C, M, N, K, K, 1);
}

}  // namespace student::lab8
