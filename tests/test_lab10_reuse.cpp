// Lab 10's cache-aware model (models/lh_reuse.h and Memory::Caches in
// models/lh_kernels.h): the reuse analysis's shares, its limits (a matrix
// that fits the L2 never waits for DRAM, one far larger than the L2 always
// does), and one load block worked out by hand. Given code, not a task:
// suite lab10-given (never graded).
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "models/lh_kernels.h"
#include "models/lh_reuse.h"

using namespace mml;
using namespace mml::lh;

namespace {

void check_levels(const Levels& l, const std::string& what) {
    INFO(what << ": L1 " << l.l1 << ", L2 " << l.l2 << ", DRAM " << l.dram);
    for (double x : {l.l1, l.l2, l.dram}) {
        CHECK(x >= 0);
        CHECK(x <= 1);
    }
    CHECK(l.l1 + l.l2 + l.dram == doctest::Approx(1.0));
}

// The recorded H100's launch geometry of one kernel at n (resident blocks from its occupancy).
LaunchGeometry h100_geometry(long long n, long long rows, long long cols, int blocks_per_sm) {
    LaunchGeometry g;
    g.grid_x = (n + cols - 1) / cols, g.grid_y = (n + rows - 1) / rows;
    g.block_rows = rows, g.block_cols = cols;
    g.resident = std::min<long long>(g.grid_x * g.grid_y, 132LL * blocks_per_sm);
    return g;
}

}  // namespace

TEST_SUITE("lab10-given") {
    TEST_CASE("reuse analysis: every share is a fraction and the three levels add up to 1") {
        for (double dram : {0.0, 0.01, 0.5, 1.0})
            for (double wait : {0.0, 0.3, 1.0}) {
                const L2Share l2{dram, wait};
                for (double uses : {1.0, 2.0, 8.0, 32.0})
                    for (double per_wait : {1.0, 2.0, 4.0, 16.0}) {
                        const StreamShare s = own_reuse(uses, per_wait, l2);
                        check_levels(s.bytes, "own_reuse bytes");
                        check_levels(s.wait, "own_reuse wait");
                    }
                for (double warps : {1.0, 8.0, 32.0}) {
                    const StreamShare s = convoy(warps, l2);
                    check_levels(s.bytes, "convoy bytes");
                    check_levels(s.wait, "convoy wait");
                    CHECK(s.wait.l1 == 0);  // a convoy saves bytes, never a wait
                }
                check_levels(no_l1_reuse(l2).bytes, "no_l1_reuse bytes");
                CHECK(no_l1_reuse(l2).bytes.l1 == 0);
            }
        CHECK_THROWS_AS(own_reuse(8, 2, L2Share{1.5, 0}), std::invalid_argument);
        CHECK_THROWS_AS(convoy(0.5, L2Share{0, 0}), std::invalid_argument);
        CHECK_THROWS_AS(no_l1_reuse(L2Share{0, -0.1}), std::invalid_argument);
    }

    TEST_CASE("reuse analysis: A's sector serves 8 steps; a wait every 2 steps ends past the L1 a quarter of the time") {
        const StreamShare a = own_reuse(8, 2, L2Share{0.25, 1});
        CHECK(a.bytes.l1 == doctest::Approx(7.0 / 8));
        CHECK(a.bytes.dram == doctest::Approx(1.0 / 8 * 0.25));
        CHECK(a.wait.l1 == doctest::Approx(0.75));
        CHECK(a.wait.dram == doctest::Approx(0.25));  // every miss waits for DRAM (dram_wait 1)
        CHECK(a.wait.l2 == doctest::Approx(0));
        // Steps per wait past the sector's uses: every wait misses.
        CHECK(own_reuse(8, 16, L2Share{0, 0}).wait.l1 == 0);
        // The block's 8 warps read B's segment together: 7 in 8 bytes from the L1, no wait saved.
        const StreamShare b = convoy(8, L2Share{0, 0});
        CHECK(b.bytes.l1 == doctest::Approx(7.0 / 8));
        CHECK(b.wait.l2 == doctest::Approx(1));
    }

    TEST_CASE("reuse analysis: the L2 side, from a tiny matrix (all warm in the L2) to a huge one (B re-read every wave)") {
        const double l2 = 50.0 * 1048576;
        // Tiny: A, B and C fit together, so the previous timed run left them in the L2.
        const Shape tiny{64, 64, 64};
        CHECK(inputs_stay_in_l2(tiny, l2));
        const LaunchGeometry gt = h100_geometry(64, 8, 32, 8);
        CHECK(a_panel_l2(tiny, gt, l2).dram_bytes == 0);
        CHECK(a_panel_l2(tiny, gt, l2).dram_wait == 0);
        CHECK(b_strip_l2(tiny, gt, l2).dram_bytes == 0);
        CHECK(b_strip_l2(tiny, gt, l2).dram_wait == 0);
        // n = 2080 is the largest of our sizes that stays (3 x 17.3 MB), 4096 the first that does not.
        CHECK(inputs_stay_in_l2({2080, 2080, 2080}, l2));
        CHECK_FALSE(inputs_stay_in_l2({4096, 4096, 4096}, l2));
        // The naive kernel at 4096: 1056 blocks resident, 128 a grid row: 8.25 block rows a wave.
        const Shape big{4096, 4096, 4096};
        const LaunchGeometry g = h100_geometry(4096, 8, 32, 8);
        CHECK(rows_per_wave(g) == doctest::Approx(1056.0 / 128));
        CHECK_FALSE(b_stays_in_l2(big, g, l2));  // B is 64 MB
        CHECK(b_strip_l2(big, g, l2).dram_bytes == doctest::Approx(128.0 / 1056));
        CHECK(b_strip_l2(big, g, l2).dram_wait == 1);
        // So B comes from DRAM 512 / 8.25 times: 4.16 GB (Nsight Compute read 4.27 GB
        // for the whole kernel on the H100, 2026-11-25; the instructors' handouts/data/lab10/history.md).
        const double b_dram = double(g.grid_y) * b_strip_l2(big, g, l2).dram_bytes * 4.0 * 4096 * 4096;
        CHECK(b_dram == doctest::Approx(4.165e9).epsilon(0.001));
        // A's panel: only the first block of its grid row fetches it, and that row is in one wave.
        CHECK(a_panel_l2(big, g, l2).dram_bytes == doctest::Approx(1.0 / 128));
        CHECK(a_panel_l2(big, g, l2).dram_wait == 1);
        // B that stays though the inputs do not: DRAM once, only the first wave waits for it.
        const Shape fits{16384, 1024, 1024};  // A 64 MB, B 4 MB, C 64 MB
        const LaunchGeometry gf = h100_geometry(1024, 8, 32, 8);
        LaunchGeometry gtall = gf;
        gtall.grid_y = 16384 / 8;
        CHECK_FALSE(inputs_stay_in_l2(fits, l2));
        CHECK(b_stays_in_l2(fits, gtall, l2));
        CHECK(b_strip_l2(fits, gtall, l2).dram_bytes == doctest::Approx(1.0 / 2048));
        CHECK(b_strip_l2(fits, gtall, l2).dram_wait == doctest::Approx(rows_per_wave(gtall) / 2048));
        // Huge: every wave fetches B again, and every wait ends at DRAM.
        const Shape huge{16384, 16384, 16384};
        const LaunchGeometry gh = h100_geometry(16384, 8, 32, 8);
        CHECK(rows_per_wave(gh) == doctest::Approx(2.0625));
        CHECK(b_strip_l2(huge, gh, l2).dram_bytes == doctest::Approx(1 / 2.0625));
        CHECK(b_strip_l2(huge, gh, l2).dram_wait == 1);
        CHECK(a_panel_l2(huge, gh, l2).dram_wait == 1);  // a grid row (512 blocks) fits in a wave
        // A grid row longer than a wave (N = 65536: 2048 blocks): only the first wave's blocks wait for A's fill.
        const LaunchGeometry wide = h100_geometry(65536, 8, 32, 8);
        CHECK(a_panel_l2({8, 65536, 65536}, wide, l2).dram_wait == doctest::Approx(1056.0 / 2048));
        CHECK(a_panel_l2({8, 65536, 65536}, wide, l2).dram_bytes == doctest::Approx(1.0 / 2048));
    }

    TEST_CASE("cache-aware naive kernel on the recorded H100 at 4096: one loop block worked out by hand") {
        const Hardware hw = recorded_h100();
        REQUIRE(hw.has_caches());
        const Kernel k = naive_model(hw, {4096, 4096, 4096}, kNaiveBlockX, kNaiveBlockY, recorded_h100_occupancy("naive"),
                                     Memory::Caches);
        // Setup, ceil(K / 2) - 1 loop blocks of 2 steps, the store.
        REQUIRE(k.blocks.size() == 1 + 2047 + 1);
        const Block& step = k.blocks[1];
        // 2 steps: 6 ALU (FMA, 2 address adds each) x 0.25 + 4 loads x 1.
        CHECK(step.ilp == doctest::Approx(5.5));
        // B's convoy waits for DRAM (B does not stay in the L2): 688 cycles; A's wait alone would be
        // 0.75 x 39.6 + 0.25 x 688 = 201.7.
        CHECK(step.latency == doctest::Approx(688));
        // Bytes: A 2 x 32 and B 2 x 128 requested through the L1 (128 bytes a cycle): 320 / 128 = 2.5 cycles,
        // more than the L2's 40 bytes at 23.3 a cycle (1.72) or DRAM's 3.94 at 11.6 (0.34).
        CHECK(step.bandwidth == doctest::Approx(2.5));
        CHECK(step.what.find("L1/L2/DRAM 88/11/1%") != std::string::npos);
    }

    TEST_CASE("cache-aware blocks are never slower than the DRAM-only ones, and equal them where all goes to DRAM") {
        const Hardware hw = recorded_h100();
        for (const std::string& name : modelled_kernels())
            for (long long n : {64LL, 544LL, 2048LL, 4096LL, 16384LL}) {
                INFO(name << " at n = " << n);
                const Shape s{n, n, n};
                const Occupancy occ = recorded_h100_occupancy(name);
                const Kernel d = kernel_model(name, hw, s, occ, Memory::DramOnly);
                const Kernel c = kernel_model(name, hw, s, occ, Memory::Caches);
                double dram_latency = 0, cache_latency = 0, dram_bw = 0, cache_bw = 0;
                for (const Block& b : d.blocks) dram_latency = std::max(dram_latency, b.latency), dram_bw += b.bandwidth;
                for (const Block& b : c.blocks) cache_latency = std::max(cache_latency, b.latency), cache_bw += b.bandwidth;
                CHECK(cache_latency <= dram_latency);
                CHECK(cache_bw <= dram_bw);
                // Small enough to stay in the L2: no block but the store of C waits for DRAM.
                if (n <= 2048)
                    for (std::size_t i = 0; i + 1 < c.blocks.size(); ++i) CHECK(c.blocks[i].latency < hw.latency_global);
            }
        // The tiled kernel far past the L2: its load block waits for DRAM, as in the paper's model.
        const Kernel t = tiled_model(hw, {16384, 16384, 16384}, 16, recorded_h100_occupancy("tiled16"), Memory::Caches);
        CHECK(t.blocks[0].latency == doctest::Approx(hw.latency_global));
        // The paper's C1060 has no cache for global memory: the cache-aware model refuses it.
        CHECK_THROWS_AS(tiled_model(paper_c1060(), {64, 64, 64}, 16, {8, 4}, Memory::Caches), std::invalid_argument);
    }
}
