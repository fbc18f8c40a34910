// Given code (lab 8, stage 6): you use it, you do not write it. The block-tile
// configurations lab8.autotile can launch, and the model that picks one for a
// shape: wave quantization, split-K and the price of the reduction.
// `mmlab tune` prints the model beside the measured time of every
// configuration, so you can see where it is right and where it is not.
//
// The model (handouts/lab8.md, "Wave quantization and the tail"):
//   blocks  = tiles of C x split            (one block per tile and k-slice)
//   slots   = SMs x blocks_per_sm           (blocks the GPU runs at once)
//   waves   = blocks / slots
//   GEMM    = ceil(waves) x (the time of one full wave)
//           = ceil(waves) x blocks_per_sm x BM*BN*k_slice FMAs / (FMA rate of
//             one SM x the share of the main loop's instructions that are FFMAs)
//   reduce  = the extra bytes split-K moves (split slabs of M x N partials
//             written and read back instead of one C written) / DRAM bandwidth
//   time    = GEMM + reduce
// A partial last wave costs a whole one: its blocks take as long as any
// others, and the SMs without a block wait. That is the whole lesson of the
// ceil(): 64 blocks on 132 SMs cost as much as 132.
// Every number comes from the configuration (its tiles) or the device (SMs,
// clock, FP32 lanes, memory clock and bus width): nothing is fitted to the
// times it predicts. What it leaves out (the pipeline's start and end, a
// lone block per SM running below the SM's full rate, partials that stay in
// L2, the second kernel's launch) is what tune shows as the gap.
#pragma once

#include <cstdint>

#include "gpu/device_info.h"

namespace common::lab8 {

constexpr int kBK = 8;  // the k-step of stage 4's configurations, and the unit of a k-slice

// One instantiation of stage 4's or stage 5's kernel (CUTLASS's names for the levels).
struct TileConfig {
    const char* name;       // "128x256": the block tile, BM x BN (stage 5's kernel: "128x256 async")
    int bm, bn;             // block tile
    int warps_m, warps_n;   // warps in the block tile (warp tile: BM / warps_m x BN / warps_n)
    int tm, tn;             // thread tile (4 x 4 pieces); a warp's lanes sit 4 down x 8 across
    int blocks_per_sm;      // what __launch_bounds__ asks for: registers are capped so that this many fit
    int stages = 0;         // 0: stage 4's kernel (registers, two shared copies); >= 2: stage 5's
                            // (cp.async, this many shared copies in the pipeline)
    int bk = kBK;           // the k-step
};

// Largest first: the more FFMAs per loaded value, the faster a full GPU runs
// (handouts/lab8.md, H100, % of cuBLAS at 8192^3: 128 x 256 88-90 % with
// stage 4's kernel, 94.5 % with stage 5's; 128 x 128 85.6 %). Smaller tiles make more
// blocks: fewer idle SMs on small products. Stage 5's kernel runs the
// 128 x 256 tile where B's rows are float4-aligned (choose_plan says why);
// stage 5's versions of the smaller tiles, measured beside stage 4's, were
// no faster (handouts/lab8.md).
constexpr TileConfig kTileConfigs[] = {
    {"128x256 async", 128, 256, 2, 4, 16, 8, 1, 3},  // stage 5's PipelineTiles: 8 warps, 128 accumulators, 3 stages
    {"128x256", 128, 256, 2, 4, 16, 8, 1},           // stage 4's LargeTiles: 8 warps, 128 accumulators a thread
    {"128x128", 128, 128, 4, 2, 8, 8, 2},            // stage 4's SmallTiles: 8 warps, 64 accumulators
    {"128x64", 128, 64, 4, 1, 8, 8, 3},              // 4 warps, 64 accumulators (at 4 blocks, 128 registers: spills)
    {"64x64", 64, 64, 2, 2, 8, 4, 4},                // 4 warps, 32 accumulators
};
constexpr int kTileConfigCount = int(sizeof(kTileConfigs) / sizeof(kTileConfigs[0]));

constexpr int threads_of(const TileConfig& c) { return c.warps_m * c.warps_n * 32; }

// Configuration I in the names the kernels' templates read (stage 4's
// double_buffer_impl.cuh; PipelineConfigTiles adds stage 5's kStages, for
// async_copy_impl.cuh). Stages 6 and 8 launch the kernels with them.
template <int I>
struct ConfigTiles {
    static constexpr int BM = kTileConfigs[I].bm, BN = kTileConfigs[I].bn, BK = kTileConfigs[I].bk;
    static constexpr int WARPS_M = kTileConfigs[I].warps_m, WARPS_N = kTileConfigs[I].warps_n;
    static constexpr int LANES_M = 4, LANES_N = 8;
    static constexpr int TM = kTileConfigs[I].tm, TN = kTileConfigs[I].tn;
    static constexpr int kPadA = 4;
    static constexpr int kMinBlocksPerSM = kTileConfigs[I].blocks_per_sm;
    static constexpr int kGroupRows = 8;
};
template <int I>
struct PipelineConfigTiles : ConfigTiles<I> {
    static constexpr int kStages = kTileConfigs[I].stages;
};

// Split-K: K is cut into `split` slices of k_slice (a multiple of kBK, so
// every slice of A starts 16-byte aligned when K is a multiple of 4). The
// model considers slices down to kMinSliceK deep (16 k-steps: shallower
// slices spend a larger share of their time filling and draining the
// pipeline, which the model does not count) and at most kMaxSplit of them.
constexpr std::int64_t kMinSliceK = 16 * kBK;
constexpr int kMaxSplit = 16;

// What the model needs to know about the GPU.
struct GpuFacts {
    int sms = 0;
    double fma_per_s_per_sm = 0;  // FP32 lanes x clock (spec)
    double dram_bytes_per_s = 0;  // memory clock x bus width x 2 (spec)
    bool async_copy = true;       // cp.async (compute capability 8.0 and newer): stage 5's kernel can run
};
GpuFacts gpu_facts(const mml::gpu::DeviceInfo& info);

// One configuration at one shape, with the model's numbers.
struct Plan {
    int tile = 0;                  // index into kTileConfigs
    int split = 1;                 // k-slices actually made (1: no split-K)
    std::int64_t k_slice = 0;      // k of each slice but the last (K when split == 1)
    std::int64_t tiles = 0;        // block tiles covering C
    std::int64_t blocks = 0;       // tiles x split
    double waves = 0;              // blocks / (SMs x blocks_per_sm)
    double gemm_s = 0, reduce_s = 0, predicted_s = 0;  // the model
};

// The share of the main loop's instructions that are FFMAs, counted per
// thread per k-step from the kernel's code (float4 paths): BK * tm * tn
// FFMAs; BK * (tm + tn) / 4 LDS.128 (the fragments); stage 4: for each float4
// of A one LDG.128 and four STS (stored transposed, down a column), for each
// of B one LDG.128 and one STS.128, one barrier; stage 5: one 4-byte cp.async
// per float of A, one 16-byte cp.async per float4 of B, a commit, a wait and
// a barrier. Bigger thread and block tiles spread the loads over more FFMAs.
double ffma_share(const TileConfig& c);

// The plan of configuration `tile` with K cut into about `split` slices
// (split >= 1; the slices made are ceil(K / k_slice), never an empty one).
Plan plan_for(std::int64_t M, std::int64_t N, std::int64_t K, int tile, int split, const GpuFacts& g);

// Whether the model considers `split` for this K: 1 always; more when
// every slice is at least kMinSliceK deep and split <= kMaxSplit.
bool split_considered(std::int64_t K, int split);

// The plan the model predicts fastest over the configurations and splits it
// considers. tile >= 0 fixes the configuration, split >= 1 the split (then
// taken as given, even below kMinSliceK). Ties go to the larger tile, then
// the smaller split (the order of kTileConfigs; no reduction when it is not needed).
// Stage 5's configurations only where the GPU has cp.async and N is a
// multiple of 4: where B's rows are not float4-aligned its kernel copies B a
// float at a time, each warp request touching the same sectors four times,
// and on an H100 it ran slower than stage 4's (2047^3: 83 % of cuBLAS against
// 83 %, 4095^3: 88.5 % against 91 %) - a rule from the kernels' code and one
// measurement, not a constant fitted to times.
Plan choose_plan(std::int64_t M, std::int64_t N, std::int64_t K, const GpuFacts& g, int tile = -1, int split = 0);

}  // namespace common::lab8
