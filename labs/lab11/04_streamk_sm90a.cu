// Lab 11, stage 5 - your code: stage 3's kernel with a persistent tile
// scheduler that shares out the LAST wave by k-iterations (stream-K, hybrid
// with data-parallel tiles), deterministic. handouts/lab11.md, stage 5,
// explains the last wave with the H100's numbers (5000^3: 800 tiles on 132 SMs).
//
// Given: the block (one producer and two consumer warpgroups, as in stage 3),
// the ring, the Schedule (which tiles are data-parallel, which stream-K, over
// how many blocks: plan_stream_k), the Cursor that walks a block's pieces of
// work (its DP tiles, then its SK range cut at tile ends), the flags'
// release/acquire wrappers, the partials' workspace and the cooperative
// launch (all blocks resident: a block may wait for another).
//
// Tasks:
//   TODO 11.5a  range_start(): cut the SK line of sk_iters k-iterations into
//               sk_blocks ranges as equal as possible (lengths differ by <= 1)
//   TODO 11.5b  write_partial(): a block whose range starts inside a tile
//               stores its sums to its slot, then raises its flag
//   TODO 11.5c  add_partials(): the tile's owner (the block that did its
//               first k-tiles) waits for each later block's flag and adds
//               its slot, in block order - the same order every run
//   TODO 11.5d  smem_descriptor() and the product of one stage: the same as
//               your 11.3a and 11.3b (copy them from 03_wgmma_sm90a.cu)
// Built for sm_90a only (Makefile: *_sm90a.cu); the tests skip it on other GPUs.
#include "labs/lab11/lab11.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "labs/common/hopper_ptx.cuh"
#include "labs/common/streamk_flags.cuh"  // flag_release, wait_for_flag
#include "labs/common/wgmma_given.cuh"

namespace student::lab11 {
namespace {
using namespace ::lab11;  // the given PTX wrappers (labs/common/hopper_ptx.cuh)
using namespace ::common::streamk;  // the flags (labs/common/streamk_flags.cuh)

// BM, the ring and the warpgroups (kThreads, kConsumers, kProducerRegs, ...),
// Tiling<BN>, tile_origin, store_tile, sm_count and require_hopper are stage
// 3's, given in labs/common/wgmma_given.cuh.
constexpr int BK = 64;  // bf16: 64 elements = the 128 bytes of the swizzle

// Which block does what (host-made, passed by value).
struct Schedule {
    int tiles_m, tiles_n, tiles, k_tiles;
    int dp_tiles;               // tiles 0 .. dp_tiles-1: whole, block b takes b, b + gridDim.x, ...
    int sk_blocks;              // blocks 0 .. sk_blocks-1 share the rest by k-iterations
    long long sk_iters;         // (tiles - dp_tiles) * k_tiles: the SK line, cut into sk_blocks ranges
    float* partials;            // gridDim.x x kConsumers slots of 128 threads x kAccRegs floats
    unsigned* flags;            // one per slot: == epoch once the slot is written in this launch
    unsigned epoch;             // this launch's number (flags are never reset: each launch counts up)
};

// The first SK k-iteration of block b (b = sk_blocks: the end of the line).
// TODO(lab11, 11.5a): s.sk_blocks ranges, one after the other, covering
// [0, s.sk_iters): range b is [range_start(b), range_start(b + 1)), and
// range_start(s.sk_blocks) == s.sk_iters. Spread the remainder: the first
// sk_iters % sk_blocks ranges are one longer.
__device__ __forceinline__ long long range_start(const Schedule& s, long long b) {
    (void)s;
    (void)b;
    return 0;
}

// One piece of work: k-tiles [kb, ke) of one tile.
struct Unit {
    int tile, kb, ke;
};
// A block's pieces in order: its DP tiles, then its SK range (cut at tile
// ends). Every block has the same number of DP tiles, so all reach the SK
// line together - and keep stage 3's order until then (the blocks at work at
// the same time read the same k-tiles: L2 hits).
struct Cursor {
    int dp_tile;
    long long it, it_end;
    __device__ Cursor(const Schedule& s) : dp_tile(blockIdx.x), it(0), it_end(0) {
        if (int(blockIdx.x) < s.sk_blocks) it = range_start(s, blockIdx.x), it_end = range_start(s, blockIdx.x + 1);
    }
    __device__ bool next(const Schedule& s, Unit& u) {
        if (dp_tile < s.dp_tiles) {
            u = {dp_tile, 0, s.k_tiles};
            dp_tile += gridDim.x;
            return true;
        }
        if (it >= it_end) return false;
        const long long tile = it / s.k_tiles;
        const int kb = int(it - tile * s.k_tiles);
        const int ke = int(min((long long)s.k_tiles, kb + (it_end - it)));
        u = {s.dp_tiles + int(tile), kb, ke};
        it += ke - kb;
        return true;
    }
};

// TODO(lab11, 11.5d): your smem_descriptor() of stage 3 (11.3a).
__device__ __forceinline__ std::uint64_t smem_descriptor(const void* tile) {
    (void)tile;
    return 0;
}

// The 128 threads of one consumer warpgroup (named barrier 1 or 2; 0 is __syncthreads).
[[maybe_unused]] __device__ __forceinline__ void warpgroup_sync(int consumer) {
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + consumer) : "memory");
}

// Slot of (block, consumer): thread t's float4 number j at [j][t], so that a
// warp's 32 float4 are 512 consecutive bytes.
template <int BN>
__device__ __forceinline__ float4* slot(const Schedule& s, int block, int consumer) {
    return reinterpret_cast<float4*>(s.partials) + (std::int64_t(block) * kConsumers + consumer) * 128 * (BN / 8);
}

template <int BN>
__device__ void write_partial(const Schedule& s, const float (&acc)[Tiling<BN>::kAccRegs], int consumer, int t) {
    // TODO(lab11, 11.5b): hand this consumer's partial sums over to the tile's owner.
    //   Contract: every thread's BN / 2 sums are in this (block, consumer)'s slot
    //     (slot<BN>(), in the layout described above it), visible to another SM;
    //     only after ALL 128 threads' sums are there, one thread sets
    //     s.flags[blockIdx.x * kConsumers + consumer] to s.epoch (flag_release).
    //   Ask yourself: the owner runs on another SM - which store sends the sums
    //     past this SM's L1? Which barrier in this file waits for exactly this
    //     warpgroup? What keeps the other SM from seeing the flag before the sums?
    //   Background: handouts/lab11.md, stage 5, "The fix-up, deterministic".
    (void)s;
    (void)acc;
    (void)consumer;
    (void)t;
}

// The owner of a tile adds the partials of the blocks after it, in block order.
template <int BN>
__device__ void add_partials(const Schedule& s, float (&acc)[Tiling<BN>::kAccRegs], const Unit& u, int consumer,
                             int t) {
    // TODO(lab11, 11.5c): add the partials of the blocks after this one, in block order.
    //   Facts: this block's range ends at k-tile u.ke of tile u.tile, which is
    //     tile number u.tile - s.dp_tiles of the SK line (s.k_tiles k-tiles a
    //     tile); the blocks after this one (blockIdx.x + 1, + 2, ...) did the
    //     rest of the tile, each its whole range.
    //   Contract: for each of those blocks, in increasing order, once its flag for
    //     this consumer holds s.epoch (wait_for_flag), every thread adds that
    //     block's slot to its own acc registers, in write_partial's layout.
    //   Ask yourself: where on the SK line does this tile end, and so which is
    //     the last block to add (range_start tells where ranges begin)? One
    //     thread waits for the flag: what must happen before the other 127 read
    //     the slot, and which load reads what another SM wrote past this L1?
    (void)s;
    (void)acc;
    (void)u;
    (void)consumer;
    (void)t;
}

template <int BN>
__global__ void __launch_bounds__(kThreads, 1)
    streamk_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   float* __restrict__ C, int M, int N, Schedule s, bool pairs_aligned) {
#ifdef LAB11_SM90A
    constexpr int kSteps = BK / 16;
    constexpr int kStages = Tiling<BN>::kStages, kStageBytes = Tiling<BN>::kStageBytes;
    extern __shared__ unsigned char smem_raw[];
    unsigned char* ring = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) &
                                                           ~std::uintptr_t(1023));
    __shared__ __align__(8) std::uint64_t full[kStages], empty[kStages];
    const int warpgroup = threadIdx.x / 128;
    if (threadIdx.x == 0) {
        for (int i = 0; i < kStages; ++i) {
            mbar_init(&full[i], 1);
            mbar_init(&empty[i], kConsumers * 4);
        }
        mbar_fence_init();
    }
    __syncthreads();

    Cursor cursor(s);
    Unit u;
    if (warpgroup == 0) {  // the producer: the same pieces, in the same order
        setmaxnreg_dec<kProducerRegs>();
        if (threadIdx.x == 0) {
            int stage = 0;
            unsigned phase = 0;
            while (cursor.next(s, u)) {
                const TileOrigin o = tile_origin<BN>(u.tile, s.tiles_m, s.tiles_n);
                for (int kt = u.kb; kt < u.ke; ++kt) {
                    mbar_wait(&empty[stage], phase ^ 1);
                    unsigned char* dst = ring + stage * kStageBytes;
                    mbar_arrive_expect_tx(&full[stage], kStageBytes);
                    tma_load_2d(dst, &map_a, kt * BK, o.m0, &full[stage]);
                    tma_load_2d(dst + kATileBytes, &map_b, kt * BK, o.n0, &full[stage]);
                    if (++stage == kStages) stage = 0, phase ^= 1;
                }
            }
        }
    } else {
        setmaxnreg_inc<kConsumerRegs>();
        const int consumer = warpgroup - 1, t = threadIdx.x % 128;
        const int lane = t % 32;
        float acc[Tiling<BN>::kAccRegs];
#pragma unroll
        for (int i = 0; i < Tiling<BN>::kAccRegs; ++i) acc[i] = 0.0f;
        int stage = 0;
        unsigned phase = 0;
        while (cursor.next(s, u)) {
            int previous = 0;
            for (int kt = u.kb; kt < u.ke; ++kt) {
                mbar_wait(&full[stage], phase);
                const unsigned char* a = ring + stage * kStageBytes + consumer * 64 * kRowBytes;
                const unsigned char* b = ring + stage * kStageBytes + kATileBytes;
                const std::uint64_t desc_a = smem_descriptor(a), desc_b = smem_descriptor(b);
                // TODO(lab11, 11.5d): your product of one stage (11.3b), with one
                // change: the first product of a PIECE, not of a tile, overwrites
                // acc - a piece may start inside a tile (which k-tile and k-step
                // is that, in this loop's variables?). BN == 256:
                // wgmma_m64n256k16_bf16, BN == 128: wgmma_m64n128k16_bf16.
                (void)desc_a;
                (void)desc_b;
                (void)kSteps;
                wgmma_wait<1>();
                fence_accumulators(acc);
                if (kt > u.kb && lane == 0) mbar_arrive(&empty[previous]);
                previous = stage;
                if (++stage == kStages) stage = 0, phase ^= 1;
            }
            wgmma_wait<0>();
            fence_accumulators(acc);
            if (lane == 0) mbar_arrive(&empty[previous]);

            if (u.kb > 0) {  // the tile's first k-tiles are another block's: hand the sums over
                write_partial<BN>(s, acc, consumer, t);
                continue;
            }
            if (u.ke < s.k_tiles) add_partials<BN>(s, acc, u, consumer, t);
            const TileOrigin o = tile_origin<BN>(u.tile, s.tiles_m, s.tiles_n);
            store_tile(C, acc, o.m0, o.n0, consumer, M, N, pairs_aligned);
        }
    }
#else
    __trap();
#endif
}

// Which tiles go to stream-K, over how many blocks (measured on the H100:
// stream-K's partials cost more than they save unless the last wave is
// mostly idle):
//  - only the tiles of the last, partial wave, and only when it is less than
//    half full: a fuller last wave wastes less than the partials cost
//    (4096^3: 512 tiles, the 4th wave 116/132 full: no stream-K);
//  - each tile split among at most sqrt(k_tiles) blocks: a piece of k_tiles /
//    s k-tiles, then s - 1 partials of 128 KB for its owner to read - about
//    a k-tile's time each, so s = sqrt(k_tiles) keeps the sum smallest.
// Fewer tiles than blocks: no full wave to fill around, stage 3's way (DP).
void plan_stream_k(Schedule& s, int blocks) {
    const int tail = s.tiles % blocks;
    s.dp_tiles = s.tiles;
    s.sk_blocks = 0;
    s.sk_iters = 0;
    if (s.tiles < blocks || tail == 0 || 2 * tail >= blocks) return;
    const long long max_split = (long long)std::ceil(std::sqrt(double(s.k_tiles)));
    s.dp_tiles = s.tiles - tail;
    s.sk_blocks = int(std::min<long long>(blocks, tail * max_split));
    s.sk_iters = (long long)tail * s.k_tiles;
}

struct Workspace {
    mml::gpu::DeviceBuffer<float> partials;
    mml::gpu::DeviceBuffer<unsigned> flags;
    unsigned epoch = 0;
};

template <int BN>
void launch_streamk(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
                    std::int64_t N, std::int64_t K, int sms) {
    constexpr int kSmemBytes = Tiling<BN>::kSmemBytes;
    static bool configured = false;
    static const void* cached_a = nullptr;
    static const void* cached_bt = nullptr;
    static std::int64_t cached[4] = {0, 0, 0, 0};
    static CUtensorMap map_a{}, map_b{};
    static Workspace* ws = new Workspace;  // kept for the process (no freeing after CUDA's teardown)
    if (!configured) {
        CUDA_CHECK(cudaFuncSetAttribute(streamk_kernel<BN>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
        configured = true;
    }
    if (cached_a != A || cached_bt != Bt || cached[0] != ld || cached[1] != M || cached[2] != N || cached[3] != K) {
        map_a = make_tensor_map_2d(A, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, M, K, ld, BM, BK);
        map_b = make_tensor_map_2d(Bt, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, N, K, ld, BN, BK);
        cached_a = A, cached_bt = Bt, cached[0] = ld, cached[1] = M, cached[2] = N, cached[3] = K;
    }
    Schedule s{};
    s.tiles_m = int((M + BM - 1) / BM), s.tiles_n = int((N + BN - 1) / BN), s.tiles = s.tiles_m * s.tiles_n;
    s.k_tiles = int((K + BK - 1) / BK);
    const int blocks = int(std::min<long long>(sms, s.tiles));  // persistent: one block per SM
    plan_stream_k(s, blocks);
    const std::size_t slot_floats = std::size_t(blocks) * kConsumers * 128 * (BN / 2);
    if (ws->partials.count() < slot_floats) ws->partials = mml::gpu::DeviceBuffer<float>(slot_floats);
    if (ws->flags.count() < std::size_t(blocks) * kConsumers) {
        ws->flags = mml::gpu::DeviceBuffer<unsigned>(std::size_t(blocks) * kConsumers);
        CUDA_CHECK(cudaMemset(ws->flags.get(), 0, ws->flags.count() * sizeof(unsigned)));
    }
    if (++ws->epoch == 0) {  // wrapped after 2^32 launches: start the flags over
        CUDA_CHECK(cudaMemset(ws->flags.get(), 0, ws->flags.count() * sizeof(unsigned)));
        ws->epoch = 1;
    }
    s.partials = ws->partials.get(), s.flags = ws->flags.get(), s.epoch = ws->epoch;
    const bool pairs_aligned = N % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;

    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    // Only stream-K waits for other blocks: only then the cooperative launch.
    cudaLaunchConfig_t config{dim3(unsigned(blocks)), dim3(kThreads), std::size_t(kSmemBytes), nullptr, &cooperative,
                              s.sk_blocks > 0 ? 1u : 0u};
    CUDA_CHECK(cudaLaunchKernelEx(&config, streamk_kernel<BN>, map_a, map_b, C, int(M), int(N), s, pairs_aligned));
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void wgmma_streamk(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
                   std::int64_t N, std::int64_t K) {
    static const int sms = [] {
        require_hopper("lab11.wgmma_streamk");
        return sm_count();
    }();
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX - 64 || (M / BM + 1) * (N / 128 + 1) > INT_MAX)
        throw std::runtime_error("lab11.wgmma_streamk: the TMA takes 32-bit coordinates; this shape is too large");
    // The tile width as stage 3 chooses it (its launch()): 128 x 128 where
    // 256-wide tiles would leave SMs idle (1000^3: 32 tiles, or 64 of 128 x 128:
    // stream-K is not used there, and 256-wide tiles ran at 70 % of stage 3).
    const std::int64_t tiles_256 = ((M + BM - 1) / BM) * ((N + 255) / 256);
    const std::int64_t tiles_128 = ((M + BM - 1) / BM) * ((N + 127) / 128);
    const double waves_256 = double((tiles_256 + sms - 1) / sms), waves_128 = double((tiles_128 + sms - 1) / sms);
    if (0.55 * waves_128 < waves_256)
        launch_streamk<128>(A, Bt, ld, C, M, N, K, sms);
    else
        launch_streamk<256>(A, Bt, ld, C, M, N, K, sms);
}

}  // namespace student::lab11
