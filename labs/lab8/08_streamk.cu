// Lab 8, stage 8 - your code: stage 5's kernel under a persistent tile
// scheduler that shares out the LAST wave by k-steps (stream-K, hybrid with
// data-parallel tiles), deterministic. handouts/lab8.md, stage 8, explains
// the last wave with the H100's numbers (4096^3: 512 tiles on 132 SMs).
//
// Given: the tile's product and its store (your pipeline_product and
// store_thread_tile of stage 5, async_copy_impl.cuh), the Schedule (which
// tiles are data-parallel, which stream-K, over how many blocks:
// plan_stream_k), piece() that finds a block's pieces of work (its DP
// tiles, then its SK range cut at tile ends), the kernel's loop, the flags
// (labs/common/streamk_flags.cuh), the partials' workspace, B copied into
// 16-byte-aligned rows where N % 4 != 0, and the cooperative launch (all
// blocks resident: a block may wait for another).
//
// Tasks (handouts/lab8.md, task 8):
//   TODO 8.1  range_start(): cut the SK line of sk_iters k-steps into
//             sk_blocks ranges as equal as possible (lengths differ by <= 1)
//   TODO 8.2  write_partial(): a block whose range starts inside a tile
//             stores its sums to its slot, then raises its flag
//   TODO 8.3  add_partials(): the tile's owner (the block that did its first
//             k-steps) waits for each later block's flag and adds its slot,
//             in block order - the same order every run
#include "labs/lab8/lab8.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "labs/common/lab8_tiles.h"
#include "labs/common/streamk_flags.cuh"          // flag_release, wait_for_flag
#include "labs/lab8/async_copy_impl.cuh"     // your stage-5 pipeline

namespace student::lab8 {
namespace {

// Stage 5's configuration: 128 x 256 tiles, 8 warps, 3 stages, one block an SM.
using Tiles = common::lab8::PipelineConfigTiles<0>;
constexpr int kThreads = Tiles::WARPS_M * Tiles::WARPS_N * 32;
constexpr int kAcc = Tiles::TM * Tiles::TN;  // accumulators a thread

// Which block does what (host-made, passed by value).
struct Schedule {
    int tiles, k_steps;  // block tiles of C; k-steps of BK in K
    int dp_tiles;        // tiles 0 .. dp_tiles-1: whole, block b takes b, b + gridDim.x, ...
    int sk_blocks;       // blocks 0 .. sk_blocks-1 share the rest by k-steps
    long long sk_iters;  // (tiles - dp_tiles) * k_steps: the SK line, cut into sk_blocks ranges
    float* partials;     // one slot a block: kThreads x kAcc floats
    unsigned* flags;     // one a block: == epoch once its slot is written in this launch
    unsigned epoch;      // this launch's number (flags are never reset: each launch counts up)
};

// TODO(lab8, task 8.1): s.sk_blocks ranges, one after the other, covering
// [0, s.sk_iters): range b is [range_start(b), range_start(b + 1)), and
// range_start(s.sk_blocks) == s.sk_iters. Spread the remainder: the first
// sk_iters % sk_blocks ranges are one longer. Hints 8.8.x.
__device__ __forceinline__ long long range_start(const Schedule& s, long long b) {
    (void)s;
    (void)b;
    return 0;
}

// One piece of work: k-steps [kb, ke) of one tile.
struct Unit {
    int tile, kb, ke;
};
// Piece j of this block: its DP tiles first (with stream-K every block has
// dp_tiles / gridDim.x of them, so all reach the SK line together - and keep stage 5's
// order until then: the blocks at work at the same time read the same rows
// of A and columns of B, L2 hits), then its SK range cut at tile ends.
// False past the last. Computed afresh for each piece: no state to keep in
// registers, which the pipeline needs all of.
__device__ bool piece(const Schedule& s, int j, Unit& u) {
    const int b = int(blockIdx.x), dp_count = b < s.dp_tiles ? (s.dp_tiles - 1 - b) / int(gridDim.x) + 1 : 0;
    if (j < dp_count) {
        u = {b + j * int(gridDim.x), 0, s.k_steps};
        return true;
    }
    if (b >= s.sk_blocks) return false;
    const long long first = range_start(s, b), end = range_start(s, b + 1);
    const long long tile = first / s.k_steps + (j - dp_count);  // on the SK line
    const long long from = max(first, tile * s.k_steps), to = min(end, (tile + 1) * s.k_steps);
    if (from >= to) return false;
    u = {s.dp_tiles + int(tile), int(from - tile * s.k_steps), int(to - tile * s.k_steps)};
    return true;
}

// Block b's slot: thread t's float4 number j at [j][t], so that a warp's 32
// float4 are 512 consecutive bytes.
[[maybe_unused]] __device__ __forceinline__ float4* slot(const Schedule& s, int block) {
    return reinterpret_cast<float4*>(s.partials) + std::int64_t(block) * kThreads * (kAcc / 4);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// TODO(lab8, task 8.2): hand this block's partial sums to the tile's owner.
// Contract: every thread's TM x TN sums are in this block's slot, float4 by
// float4 (float4 number q = (i * TN + j) / 4 of thread t at
// slot(s, blockIdx.x)[q * kThreads + t], stored through to L2, where the
// owner on another SM reads it), and s.flags[blockIdx.x] reaches s.epoch
// (flag_release) only once ALL of them are visible GPU-wide. Hints 8.8.x.
__device__ __forceinline__ void write_partial(const Schedule& s, const float (&acc)[Tiles::TM][Tiles::TN]) {
    (void)s;
    (void)acc;
}

// TODO(lab8, task 8.3): this block's range ends at k-step u.ke of the tile,
// which is tile u.tile - s.dp_tiles of the SK line; blocks blockIdx.x + 1,
// + 2, ... did the rest (each its whole range, the last one up to the tile's
// end on the line: (u.tile - s.dp_tiles + 1) * s.k_steps).
// Contract: acc gains the slots of those blocks, in block order (the same bits
// every run), each read (from L2: __ldcg) in 8.2's layout and only after its
// flag has reached s.epoch (wait_for_flag). Hints 8.8.x.
__device__ __forceinline__ void add_partials(const Schedule& s, float (&acc)[Tiles::TM][Tiles::TN], const Unit& u) {
    (void)s;
    (void)acc;
    (void)u;
}
#endif

// B's rows are ldb floats apart (N, or N rounded up to a multiple of 4 when
// B was copied into aligned rows: the columns past N only feed columns of C
// that are never stored).
template <bool kVecC>
__global__ void __launch_bounds__(kThreads, 1)
    streamk_kernel(const float* __restrict__ A, const float* __restrict__ B, std::int64_t ldb, float* __restrict__ C,
                   std::int64_t M, std::int64_t N, std::int64_t K, Schedule s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ float4 smem4[];
    __shared__ Unit unit;  // the piece at hand: thread 0 picks it, all read it (in shared memory, not registers)
    for (int j = 0;; ++j) {
        __syncthreads();  // every thread done with the ring (the last piece's fragments) and with `unit`
        if (threadIdx.x == 0 && !piece(s, j, unit)) unit.tile = -1;
        __syncthreads();
        if (unit.tile < 0) break;
        {
            const TileOrigin o = grouped_tile_origin(unit.tile, M, N, Tiles::BM, Tiles::BN, Tiles::kGroupRows);
            const std::int64_t k_first = std::int64_t(unit.kb) * Tiles::BK;
            const std::int64_t k_len = min(K, std::int64_t(unit.ke) * Tiles::BK) - k_first;
            float acc[Tiles::TM][Tiles::TN] = {};
            pipeline_product<Tiles, true>(A, B, M, ldb, K, o.m0, o.n0, k_first, k_len,
                                          reinterpret_cast<float*>(smem4), acc);
            if (unit.kb > 0) {  // the tile's first k-steps are another block's: hand the sums over
                write_partial(s, acc);
                continue;
            }
            if (unit.ke < s.k_steps) add_partials(s, acc, unit);
            const TileOrigin c = grouped_tile_origin(unit.tile, M, N, Tiles::BM, Tiles::BN, Tiles::kGroupRows);
            store_thread_tile<Tiles, kVecC>(C, M, N, c.m0, c.n0, acc);
        }
    }
#else
    // cp.async needs sm_80: streamk() refuses older GPUs before launching.
    (void)A, (void)B, (void)ldb, (void)C, (void)M, (void)N, (void)K, (void)s;
#endif
}

// B (K rows of N floats) into rows of ldb >= N floats, zeros past N; reads
// and writes coalesced (consecutive threads, consecutive columns of a row).
__global__ void copy_to_aligned_rows(const float* __restrict__ B, float* __restrict__ out, std::int64_t K,
                                     std::int64_t N, std::int64_t ldb) {
    for (std::int64_t row = blockIdx.y; row < K; row += gridDim.y)
        for (std::int64_t col = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; col < ldb;
             col += std::int64_t(gridDim.x) * blockDim.x)
            out[row * ldb + col] = col < N ? B[row * N + col] : 0.0f;
}

// Which tiles go to stream-K, over how many of the `blocks` resident blocks:
//  - the tiles of the last, partial wave (all tiles when there are fewer
//    than blocks): a piece costs its owner one partial to read, 128 KB from
//    L2, about the time of one k-step of 128 x 256 x 8 FFMAs - small beside
//    the hundreds of k-steps a block gains (lab 11's wgmma k-tile is 8 times
//    deeper: there a fuller last wave is not worth sharing);
//  - each tile split among at most sqrt(k_steps) blocks: a piece of
//    k_steps / p k-steps, then p - 1 partials for its owner to read, about a
//    k-step each, so p = sqrt(k_steps) keeps the owner's sum smallest.
// stream_k false: every tile whole (DP), the last wave as it falls - the
// loss stream-K removes, measured with the same kernel (--param sk=0).
void plan_stream_k(Schedule& s, int blocks, bool stream_k) {
    const int tail = s.tiles % blocks;
    s.dp_tiles = s.tiles;
    s.sk_blocks = 0;
    s.sk_iters = 0;
    if (tail == 0 || !stream_k) return;
    const long long max_split = (long long)std::ceil(std::sqrt(double(s.k_steps)));
    s.dp_tiles = s.tiles - tail;
    s.sk_blocks = int(std::min<long long>(blocks, tail * max_split));
    s.sk_iters = (long long)tail * s.k_steps;
}

struct Workspace {
    mml::gpu::DeviceBuffer<float> partials, aligned_b;
    mml::gpu::DeviceBuffer<unsigned> flags;
    unsigned epoch = 0;
};

// Blocks of the kernel resident at once on the GPU (the cooperative launch's limit).
int resident_blocks() {
    constexpr int kSmemBytes = async_copy_smem_floats<Tiles>() * int(sizeof(float));
    int device = 0, major = 0, sms = 0, cooperative = 0, per_sm_aligned = 0, per_sm_scalar = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    if (major < 8) throw std::runtime_error("lab8.streamk: cp.async needs a GPU of compute capability 8.0 or newer");
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (!cooperative) throw std::runtime_error("lab8.streamk: this GPU cannot launch cooperatively");
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaFuncSetAttribute(streamk_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    CUDA_CHECK(cudaFuncSetAttribute(streamk_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_aligned, streamk_kernel<true>, kThreads,
                                                             kSmemBytes));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_scalar, streamk_kernel<false>, kThreads,
                                                             kSmemBytes));
    const int per_sm = std::min(per_sm_aligned, per_sm_scalar);
    if (per_sm < 1) throw std::runtime_error("lab8.streamk: the kernel does not fit on an SM");
    return sms * per_sm;
}

}  // namespace

void streamk(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
             bool stream_k) {
    static const int blocks = resident_blocks();
    static Workspace* ws = new Workspace;  // kept for the process (no freeing after CUDA's teardown)
    constexpr int kSmemBytes = async_copy_smem_floats<Tiles>() * int(sizeof(float));
    const std::int64_t tiles = tiles_covering(M, Tiles::BM) * tiles_covering(N, Tiles::BN);
    if (tiles > INT_MAX || K > INT_MAX - Tiles::BK)  // the schedule counts tiles and k in ints
        throw std::runtime_error("lab8.streamk: " + std::to_string(M) + " x " + std::to_string(N) + " x " +
                                 std::to_string(K) + " has too many tiles or too deep a K for the schedule");
    Schedule s{};
    s.tiles = int(tiles);
    s.k_steps = int((K + Tiles::BK - 1) / Tiles::BK);
    plan_stream_k(s, blocks, stream_k);

    // B into rows of a multiple of 4 floats where its rows are not 16-byte aligned.
    std::int64_t ldb = N;
    if (!rows_are_float4_aligned(B, N)) {
        ldb = (N + 3) / 4 * 4;
        const std::size_t floats = std::size_t(K) * std::size_t(ldb);
        if (ws->aligned_b.count() < floats) ws->aligned_b = mml::gpu::DeviceBuffer<float>(floats);
        const dim3 grid(unsigned(std::min<std::int64_t>((ldb + 255) / 256, 64)),
                        unsigned(std::min<std::int64_t>(K, 65535)));
        copy_to_aligned_rows<<<grid, 256>>>(B, ws->aligned_b.get(), K, N, ldb);
        CUDA_CHECK_LAUNCH();
        B = ws->aligned_b.get();
    }
    const std::size_t slot_floats = std::size_t(blocks) * kThreads * kAcc;
    if (ws->partials.count() < slot_floats) ws->partials = mml::gpu::DeviceBuffer<float>(slot_floats);
    if (ws->flags.count() < std::size_t(blocks)) {
        ws->flags = mml::gpu::DeviceBuffer<unsigned>(std::size_t(blocks));
        CUDA_CHECK(cudaMemset(ws->flags.get(), 0, ws->flags.bytes()));
    }
    if (++ws->epoch == 0) {  // wrapped after 2^32 launches: start the flags over
        CUDA_CHECK(cudaMemset(ws->flags.get(), 0, ws->flags.bytes()));
        ws->epoch = 1;
    }
    s.partials = ws->partials.get(), s.flags = ws->flags.get(), s.epoch = ws->epoch;

    // A block for every DP tile up to `blocks`; without DP tiles, the SK blocks.
    const unsigned grid = unsigned(s.dp_tiles > 0 ? std::min<std::int64_t>(blocks, s.tiles) : s.sk_blocks);
    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    // Only stream-K waits for other blocks: only then the cooperative launch.
    cudaLaunchConfig_t config{dim3(grid), dim3(kThreads), std::size_t(kSmemBytes), nullptr, &cooperative,
                              s.sk_blocks > 0 ? 1u : 0u};
    if (rows_are_float4_aligned(C, N))
        CUDA_CHECK(cudaLaunchKernelEx(&config, streamk_kernel<true>, A, B, ldb, C, M, N, K, s));
    else
        CUDA_CHECK(cudaLaunchKernelEx(&config, streamk_kernel<false>, A, B, ldb, C, M, N, K, s));
    CUDA_CHECK_LAUNCH();
}

}  // namespace student::lab8
