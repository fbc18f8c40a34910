#include "labs/common/lab8_tiles.h"

#include <algorithm>
#include <cmath>

namespace common::lab8 {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
}  // namespace

GpuFacts gpu_facts(const mml::gpu::DeviceInfo& info) {
    GpuFacts g;
    g.sms = info.sm_count;
    // fp32_peak_gflops = SMs x lanes x 2 flops (one FMA) x clock.
    g.fma_per_s_per_sm = info.sm_count > 0 ? info.fp32_peak_gflops * 1e9 / 2.0 / info.sm_count : 0;
    g.dram_bytes_per_s = info.dram_peak_gbs * 1e9;
    g.async_copy = info.cc_major >= 8;
    return g;
}

double ffma_share(const TileConfig& c) {
    const double floats_a = double(c.bm) * c.bk / threads_of(c), floats_b = double(c.bn) * c.bk / threads_of(c);
    const double ffma = double(c.bk) * c.tm * c.tn;
    const double fragments = c.bk * (c.tm + c.tn) / 4.0;  // LDS.128
    const double other = c.stages == 0
                             // stage 4: per float4 of A one LDG.128 and four STS, of B one LDG.128 and one STS.128; one barrier
                             ? fragments + floats_a / 4 * (1 + 4) + floats_b / 4 * (1 + 1) + 1
                             // stage 5: per float of A one 4-byte cp.async, per float4 of B one 16-byte cp.async;
                             // commit, wait, barrier
                             : fragments + floats_a + floats_b / 4 + 3;
    return ffma / (ffma + other);
}

bool split_considered(std::int64_t K, int split) {
    if (split == 1) return true;
    if (split < 1 || split > kMaxSplit) return false;
    const std::int64_t k_slice = ceil_div(ceil_div(K, split), kBK) * kBK;
    return k_slice >= kMinSliceK && ceil_div(K, k_slice) == split;
}

Plan plan_for(std::int64_t M, std::int64_t N, std::int64_t K, int tile, int split, const GpuFacts& g) {
    const TileConfig& c = kTileConfigs[tile];
    Plan p;
    p.tile = tile;
    // Slices of whole k-steps; the split actually made never has an empty slice.
    p.k_slice = split <= 1 ? K : ceil_div(ceil_div(K, split), kBK) * kBK;
    p.split = int(ceil_div(K, p.k_slice));
    if (p.split == 1) p.k_slice = K;
    p.tiles = ceil_div(M, c.bm) * ceil_div(N, c.bn);
    p.blocks = p.tiles * p.split;
    const double slots = double(std::max(g.sms, 1)) * c.blocks_per_sm;
    p.waves = double(p.blocks) / slots;
    // Every block of a wave does a whole tile's work (edge tiles too: their
    // missing rows are zeros, computed all the same) over whole k-steps.
    const double block_fmas = double(c.bm) * c.bn * double(ceil_div(p.k_slice, c.bk) * c.bk);
    const double rate = std::max(g.fma_per_s_per_sm, 1.0) * ffma_share(c);
    p.gemm_s = std::ceil(p.waves) * c.blocks_per_sm * block_fmas / rate;
    // Split-K writes split slabs of partials where one C would do, reads them
    // back and writes C: 2 * split slabs more than no split.
    const double extra_bytes = p.split > 1 ? 2.0 * p.split * double(M) * double(N) * 4.0 : 0.0;
    p.reduce_s = extra_bytes / std::max(g.dram_bytes_per_s, 1.0);
    p.predicted_s = p.gemm_s + p.reduce_s;
    return p;
}

Plan choose_plan(std::int64_t M, std::int64_t N, std::int64_t K, const GpuFacts& g, int tile, int split) {
    Plan best;
    bool have = false;
    auto consider = [&](const Plan& p) {
        if (!have || p.predicted_s < best.predicted_s) best = p, have = true;  // strict: ties keep the earlier
    };
    for (int t = 0; t < kTileConfigCount; ++t) {
        if (tile >= 0 && t != tile) continue;
        if (tile < 0 && kTileConfigs[t].stages > 0 && (!g.async_copy || N % 4 != 0)) continue;
        if (split >= 1) {
            consider(plan_for(M, N, K, t, split, g));
            continue;
        }
        for (int s = 1; s <= kMaxSplit; ++s)
            if (split_considered(K, s)) consider(plan_for(M, N, K, t, s, g));
    }
    return best;
}

}  // namespace common::lab8
