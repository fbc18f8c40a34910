// Lab 8's given wave model (labs/common/lab8_tiles.h), which lab8.autotile
// uses to choose a tile configuration and split-K: its arithmetic, the
// slices it makes, and its choices at the shapes the handout discusses. No
// GPU needed: the GPU's facts are the H100's spec numbers (132 SMs,
// 128 FP32 lanes at 1.98 GHz, 3.35 TB/s). Suite lab8-given: given code,
// tested here, not graded.
#include <doctest/doctest.h>

#include <cmath>

#include "labs/common/lab8_tiles.h"

namespace lab8 = common::lab8;

namespace {

lab8::GpuFacts h100() {
    mml::gpu::DeviceInfo info;
    info.cc_major = 9;  // sm_90: cp.async, so stage 5's configurations count
    info.sm_count = 132;
    info.sm_clock_ghz = 1.98;
    info.fp32_peak_gflops = 132 * 128 * 2 * 1.98;
    info.dram_peak_gbs = 3352;
    return lab8::gpu_facts(info);
}

}  // namespace

TEST_SUITE("lab8-given") {
    TEST_CASE("the GPU's facts come from the device info") {
        const lab8::GpuFacts g = h100();
        CHECK(g.sms == 132);
        CHECK(g.fma_per_s_per_sm == doctest::Approx(128 * 1.98e9));
        CHECK(g.dram_bytes_per_s == doctest::Approx(3.352e12));
    }

    TEST_CASE("blocks and waves: 1000^3 with 128x128 tiles leaves half the SMs idle, split 4 fills them") {
        const lab8::GpuFacts g = h100();
        const lab8::Plan one = lab8::plan_for(1000, 1000, 1000, 2, 1, g);
        CHECK(one.tiles == 64);
        CHECK(one.blocks == 64);
        CHECK(one.split == 1);
        CHECK(one.k_slice == 1000);
        CHECK(one.waves == doctest::Approx(64.0 / 264));
        CHECK(one.reduce_s == 0);
        const lab8::Plan four = lab8::plan_for(1000, 1000, 1000, 2, 4, g);
        CHECK(four.split == 4);
        CHECK(four.k_slice == 256);
        CHECK(four.blocks == 256);
        CHECK(four.waves == doctest::Approx(256.0 / 264));
        // Both take one wave; split 4's blocks run a quarter of the k-loop.
        CHECK(four.gemm_s == doctest::Approx(one.gemm_s * 256 / 1000));
        CHECK(four.reduce_s == doctest::Approx(2.0 * 4 * 1000 * 1000 * 4 / 3.352e12));
    }

    TEST_CASE("a partial wave costs a whole one") {
        const lab8::GpuFacts g = h100();
        // 128x256 tiles, one a block per SM: 132 blocks (1 wave) and 133 (2 waves).
        const lab8::Plan full = lab8::plan_for(128 * 12, 256 * 11, 512, 0, 1, g);
        const lab8::Plan over = lab8::plan_for(128 * 7, 256 * 19, 512, 0, 1, g);
        REQUIRE(full.blocks == 132);
        REQUIRE(over.blocks == 133);
        CHECK(over.gemm_s == doctest::Approx(2 * full.gemm_s));
        const lab8::Plan few = lab8::plan_for(128, 256, 512, 0, 1, g);  // 1 block: a whole wave's time too
        CHECK(few.gemm_s == doctest::Approx(full.gemm_s));
    }

    TEST_CASE("split-K slices cover K once, none empty, each a whole number of k-steps") {
        const lab8::GpuFacts g = h100();
        for (long long K : {1LL, 7LL, 8LL, 9LL, 45LL, 257LL, 1000LL, 1029LL, 4096LL, 100003LL})
            for (int split = 1; split <= 70; ++split) {
                const lab8::Plan p = lab8::plan_for(300, 200, K, 2, split, g);
                CAPTURE(K);
                CAPTURE(split);
                CHECK(p.split >= 1);
                CHECK(p.split <= split);
                CHECK(p.k_slice * (p.split - 1) < K);  // the last slice is not empty
                CHECK(p.k_slice * p.split >= K);       // the slices reach K
                if (p.split > 1) CHECK(p.k_slice % lab8::kBK == 0);
                else CHECK(p.k_slice == K);
                CHECK(p.blocks == p.tiles * p.split);
            }
    }

    TEST_CASE("splits considered: slices at least kMinSliceK deep, at most kMaxSplit, each made as asked") {
        CHECK(lab8::split_considered(1, 1));
        CHECK_FALSE(lab8::split_considered(100, 2));   // slices of 56: under 128
        CHECK(lab8::split_considered(1000, 7));        // slices of 144
        CHECK_FALSE(lab8::split_considered(1000, 9));  // slices of 112
        CHECK(lab8::split_considered(100000, lab8::kMaxSplit));
        CHECK_FALSE(lab8::split_considered(100000, lab8::kMaxSplit + 1));
    }

    TEST_CASE("the model's choices: no split where the tiles fill the GPU, split-K where they do not") {
        const lab8::GpuFacts g = h100();
        for (long long n : {4096LL, 8192LL}) {
            const lab8::Plan p = lab8::choose_plan(n, n, n, g);
            CAPTURE(n);
            CHECK(p.tile == 0);  // 128x256: the most FFMAs per load
            CHECK(p.split == 1);
        }
        // N not a multiple of 4: stage 4's 128x256 instead (B's rows are not float4-aligned).
        for (long long n : {2047LL, 4095LL}) {
            CAPTURE(n);
            CHECK(lab8::choose_plan(n, n, n, g).tile == 1);
            CHECK(lab8::choose_plan(n, n, n, g, 0).tile == 0);  // forced: as asked
        }
        // A GPU without cp.async (before sm_80) never gets stage 5's kernel unless it is forced.
        lab8::GpuFacts old = g;
        old.async_copy = false;
        for (long long n : {1000LL, 4096LL, 8192LL}) {
            CAPTURE(n);
            CHECK(lab8::kTileConfigs[lab8::choose_plan(n, n, n, old).tile].stages == 0);
        }
        // 1000^3: 32 tiles of 128x256, 64 of 128x128 for 132 SMs.
        const lab8::Plan small = lab8::choose_plan(1000, 1000, 1000, g);
        CHECK(small.split > 1);
        CHECK(small.waves > 0.9);
        CHECK(small.predicted_s < lab8::plan_for(1000, 1000, 1000, 2, 1, g).predicted_s / 1.5);
        // Short and wide, tall and narrow: 64 tiles of 128x256.
        CHECK(lab8::choose_plan(256, 8192, 4096, g).split > 1);
        CHECK(lab8::choose_plan(8192, 256, 8192, g).split > 1);
        // K too short to split: the smallest tile instead.
        const lab8::Plan flat = lab8::choose_plan(512, 512, 64, g);
        CHECK(flat.split == 1);
        CHECK(flat.tile == lab8::kTileConfigCount - 1);
        // Forced: the tile and split asked for.
        const lab8::Plan forced = lab8::choose_plan(1000, 1000, 1000, g, 2, 3);
        CHECK(forced.tile == 2);
        CHECK(forced.split == 3);
        CHECK(lab8::choose_plan(1000, 1000, 1000, g, 3).tile == 3);
        CHECK(lab8::choose_plan(1000, 1000, 1000, g, -1, 1).split == 1);
    }

    TEST_CASE("the FFMA share of the main loop grows with the tiles") {
        // Per thread and k-step: FFMAs; LDS.128; stage 5 (config 0): a 4-byte cp.async per float of A, a
        // 16-byte one per float4 of B, commit + wait + barrier; stage 4 (the others): LDG.128 + 4 STS per
        // float4 of A, LDG.128 + STS.128 per float4 of B; a barrier.
        CHECK(lab8::ffma_share(lab8::kTileConfigs[0]) == doctest::Approx(1024.0 / (1024 + 48 + 4 + 2 + 3)));
        CHECK(lab8::ffma_share(lab8::kTileConfigs[1]) == doctest::Approx(1024.0 / (1024 + 48 + 5 + 4 + 1)));
        CHECK(lab8::ffma_share(lab8::kTileConfigs[2]) == doctest::Approx(512.0 / (512 + 32 + 5 + 2 + 1)));
        CHECK(lab8::ffma_share(lab8::kTileConfigs[3]) == doctest::Approx(512.0 / (512 + 32 + 10 + 2 + 1)));
        CHECK(lab8::ffma_share(lab8::kTileConfigs[4]) == doctest::Approx(256.0 / (256 + 24 + 5 + 2 + 1)));
        for (const lab8::TileConfig& c : lab8::kTileConfigs) {
            CAPTURE(c.name);
            CHECK(c.bm == c.warps_m * 4 * c.tm);  // warp tiles (4 x 8 lanes) cover the block tile
            CHECK(c.bn == c.warps_n * 8 * c.tn);
            CHECK(c.bn * c.bk % (4 * lab8::threads_of(c)) == 0);  // B's tile: whole float4 per thread
            if (c.stages == 0) {
                CHECK(c.bm * c.bk % (4 * lab8::threads_of(c)) == 0);  // A's tile: whole float4 per thread
            } else {
                CHECK(c.stages >= 2);                         // stage 5: a pipeline
                CHECK(lab8::threads_of(c) % c.bk == 0);       // A's tile: single floats, whole rows of k per thread group
                CHECK(c.bm * c.bk % lab8::threads_of(c) == 0);
            }
        }
    }
}
