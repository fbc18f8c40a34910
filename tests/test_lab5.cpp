// Lab 5: every stage on the shared shapes, on every SIMD path this CPU has
// (scalar always, AVX2+FMA and AVX-512 where present: the test log says which
// ran), on 1, 2 and 3 threads, with block sizes that split every loop of the
// BLIS nest into uneven pieces; the dispatch (a SIMD level the CPU lacks is a
// usage error), the given block sizes and thread count, and OpenBLAS's threading. Every stage
// is run through the registry, on the version under test (MML_IMPL). The
// reference's internals (its kernel sets, the AVX-512 tile geometry,
// mmlab blis-levels) are tested in the instructors'
// tests/reference/test_lab5.cpp.
#include <sstream>
#include <thread>

#include "cpu/machine.h"
#include "harness/cli.h"
#include "harness/targets.h"
#include "labs/common/blis_loops.h"
#include "peers/blis.h"
#include "peers/openblas.h"
#include "tests/run_mmlab.h"
#include "tests/lab5_shapes.h"
#include "tests/made_up_row.h"
#include "tests/stage_check.h"

using namespace mml;
using mml::testing::check_stage;
using mml::testing::check_stage_on;
using namespace common::lab5;  // the given block sizes and thread count

namespace {

const std::vector<Shape>& edge_shapes() { return mml::testing::lab5_edge_shapes(); }

StageParams with(std::map<std::string, long long> values, int threads = 1) {
    StageParams p;
    p.values = std::move(values);
    p.threads = threads;
    return p;
}

// simd=W for every SIMD level this CPU runs; says in the log which ones ran.
std::vector<long long> simd_widths_here() {
    std::vector<long long> w;
    for (SimdLevel level : simd_levels_present()) w.push_back(simd_lanes(level));
    return w;
}

std::string widths_text(const std::vector<long long>& w) {
    std::string s;
    for (long long x : w)
        for (SimdLevel level : simd_levels_present())
            if (simd_lanes(level) == x) s += (s.empty() ? "" : ", ") + std::string(simd_name(level));
    return s;
}

// The versions of `stage` this build has: the student's, and the reference
// unless the build was made without it (NO_REFERENCE=1, as the grader builds).
std::vector<Impl> versions_here(const Stage& stage) {
    std::vector<Impl> v;
    if (stage.student) v.push_back(Impl::Student);
    if (stage.reference) v.push_back(Impl::Reference);
    return v;
}

}  // namespace

TEST_SUITE("lab5") {
    TEST_CASE("lab5.dot: transposed B + SIMD dot products, every SIMD path here") {
        const auto widths = simd_widths_here();
        MESSAGE("SIMD paths tested on this CPU: " << widths_text(widths));
        for (long long w : widths) {
            if (check_stage("lab5.dot", with({{"simd", w}})))  // (else the same first failure twice)
                check_stage_on("lab5.dot", edge_shapes(), with({{"simd", w}}));
        }
    }

    TEST_CASE("lab5.tile: the register tile, every SIMD path here") {
        for (long long w : simd_widths_here()) {
            if (check_stage("lab5.tile", with({{"simd", w}})))
                check_stage_on("lab5.tile", edge_shapes(), with({{"simd", w}}));
        }
    }

    TEST_CASE("lab5.blis: default block sizes, every SIMD path here, 1, 2 and 3 threads") {
        for (long long w : simd_widths_here())
            for (int t : {1, 2, 3}) {
                if (check_stage("lab5.blis", with({{"simd", w}}, t)))
                    check_stage_on("lab5.blis", edge_shapes(), with({{"simd", w}}, t));
            }
    }

    TEST_CASE("lab5.blis: 4 and 6 threads, more than this machine may have, on shapes with few row panels") {
        // With 6 threads the given grid of blocks (blis_loops.cpp) leaves each
        // thread's block of C a few micro-panels (97 rows: 17 of 6), or fewer
        // micro-panels than threads (20 rows: 4); each thread packs into its own
        // buffers and writes only its block.
        for (int t : {4, 6}) {
            check_stage_on("lab5.blis", {{97, 131, 67}, {200, 200, 33}, {20, 500, 9}, {500, 64, 9}}, with({}, t));
        }
    }

    TEST_CASE("lab5.blis: small and odd block sizes split every loop into uneven pieces") {
        // MC, KC, NC far below the defaults, so that the test shapes cross
        // several blocks in loops 5, 4 and 3 with a ragged last block (MC and
        // NC are rounded up to MR and NR multiples; KC = 1 is a rank-1 update).
        const std::vector<std::map<std::string, long long>> blockings = {
            {{"mc", 1}, {"kc", 1}, {"nc", 1}},      {{"mc", 7}, {"kc", 5}, {"nc", 17}},
            {{"mc", 13}, {"kc", 31}, {"nc", 33}},   {{"mc", 24}, {"kc", 64}, {"nc", 64}},
            {{"mc", 100}, {"kc", 3}, {"nc", 1000}},
        };
        for (long long w : simd_widths_here())
            for (auto b : blockings) {
                b["simd"] = w;
                for (int t : {1, 3}) check_stage_on("lab5.blis", edge_shapes(), with(b, t));
            }
        auto b = blockings[1];
        check_stage("lab5.blis", with(b, 2));
    }

    TEST_CASE("lab5.combined: Cao's survey's transpose + SIMD + threads, 1, 2 and 3 threads") {
        for (int t : {1, 2, 3}) check_stage("lab5.combined", with({}, t));
        check_stage_on("lab5.combined", edge_shapes(), with({}, 3));
    }

    TEST_CASE("lab5.openblas: the peer row, 1 and 2 threads") {
        for (int t : {1, 2}) check_stage("lab5.openblas", with({}, t));
    }

    TEST_CASE("dispatch: an ISA the CPU lacks is refused, never called") {
        // A SIMD level this CPU lacks is a one-line usage error, raised before
        // any kernel is picked (calling one would end the program with
        // "illegal instruction"), in every version of the stage.
        const Stage* blis = Registry::instance().find("lab5.blis");
        const Stage* tile = Registry::instance().find("lab5.tile");
        REQUIRE(blis != nullptr);
        REQUIRE(tile != nullptr);
        Matrix A(8, 8), B(8, 8), C(8, 8);
        for (SimdLevel level : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512}) {
            if (simd_available(level)) continue;
            CAPTURE(simd_name(level));
            for (Impl impl : versions_here(*blis))
                CHECK_THROWS_AS(version_of(*blis, impl)(A.data(), B.data(), C.data(), {8, 8, 8},
                                                         with({{"simd", simd_lanes(level)}})),
                                UsageError);
        }
        CHECK(simd_available(detect_simd()));
        // Widths that are no SIMD level at all, and bad block sizes.
        for (Impl impl : versions_here(*tile)) {
            CHECK_THROWS_AS(version_of(*tile, impl)(A.data(), B.data(), C.data(), {8, 8, 8}, with({{"simd", 4}})),
                            UsageError);
            CHECK_THROWS_AS(version_of(*tile, impl)(A.data(), B.data(), C.data(), {8, 8, 8}, with({{"simd", 32}})),
                            UsageError);
        }
        for (Impl impl : versions_here(*blis))
            CHECK_THROWS_AS(version_of(*blis, impl)(A.data(), B.data(), C.data(), {8, 8, 8}, with({{"kc", -5}})),
                            UsageError);
    }

    TEST_CASE("block sizes: requests rounded to whole micro-panels, zeros to this machine's defaults") {
        // The given block sizes (labs/common/block_sizes.h), for the 6 x 16
        // tile of the AVX2 and scalar kernels and the AVX-512 one.
        for (const auto& [MR, NR] : {std::pair<int, int>{6, 16}, {12, 32}}) {
            CAPTURE(MR);
            const BlockSizes r = resolve_block_sizes({7, 5, 17}, MR, NR);
            CHECK(r.MC % MR == 0);
            CHECK(r.MC >= 7);
            CHECK(r.KC == 5);
            CHECK(r.NC % NR == 0);
            CHECK(r.NC >= 17);
            const BlockSizes dflt = resolve_block_sizes({}, MR, NR);
            const BlockSizes here = cache_block_sizes(MR, NR, cache_sizes());
            CHECK(dflt.KC == here.KC);
            CHECK(dflt.MC == here.MC);
            CHECK(dflt.NC == here.NC);
            CHECK(here.KC > 0);
            CHECK(here.MC % MR == 0);
            CHECK(here.NC % NR == 0);
        }
    }

    TEST_CASE("block sizes: the analytical rules, on the caches of the machines we run on") {
        using common::lab5::CacheSizes;
        constexpr std::int64_t KiB = 1024, MiB = 1024 * 1024;
        // KC: the largest with ceil(MR*KC*4/way) + ceil(KC*NR*4/way) <= ways - 1.
        // 48 KiB 12-way L1 (this Xeon, Zen 4/5), the AVX-512 tile 12 x 32: the
        // B micro-panel fills 8 ways (KC = 256), the A sliver 3.
        const BlockSizes xeon = cache_block_sizes(12, 32, CacheSizes{48 * KiB, 2 * MiB, 480 * MiB, 12});
        CHECK(xeon.KC == 256);
        CHECK(xeon.NC == 1024);  // 256 x 1024 floats = 1 MiB = half of L2
        CHECK(xeon.MC == 4104);  // a quarter of a large L3: the cap, 4096 rows rounded up to whole slivers
        // 32 KiB 8-way L1, 512 KiB L2, 32 MiB L3 (Zen 3), the AVX2 tile 6 x 16: 2 + 5 ways.
        const BlockSizes zen3 = cache_block_sizes(6, 16, CacheSizes{32 * KiB, 512 * KiB, 32 * MiB, 8});
        CHECK(zen3.KC == 320);
        CHECK(zen3.NC == 192);   // 320 x 204 floats fill half of L2; whole micro-panels of 16
        CHECK(zen3.MC == 4098);  // the cap again (a quarter of 32 MiB would allow 6552 rows)
        // The rule itself, on every tile and a few caches: the A sliver and one
        // B micro-panel fit in all ways but one; one more step of KC would not.
        for (const auto& [MR, NR] : {std::pair<int, int>{6, 16}, {12, 32}, {4, 4}})
            for (const CacheSizes c : {CacheSizes{32 * KiB, 1 * MiB, 16 * MiB, 8}, CacheSizes{48 * KiB, 1 * MiB, 32 * MiB, 12},
                                       CacheSizes{64 * KiB, 512 * KiB, 8 * MiB, 4}}) {
                CAPTURE(MR);
                CAPTURE(NR);
                CAPTURE(c.l1d);
                const BlockSizes b = cache_block_sizes(MR, NR, c);
                const std::int64_t way = c.l1d / c.l1d_ways;
                auto ways = [&](std::int64_t bytes) { return (bytes + way - 1) / way; };
                CHECK(ways(MR * b.KC * 4) + ways(b.KC * NR * 4) <= c.l1d_ways - 1);
                CHECK(b.NC % NR == 0);
                CHECK(b.KC * b.NC * 4 <= c.l2 / 2);
                CHECK(b.MC % MR == 0);
                CHECK((b.MC * b.KC * 4 <= c.l3 / 4 || b.MC == (4096 + MR - 1) / MR * MR));
            }
    }

    TEST_CASE("block sizes of one product: K in equal steps of at most KC, MC at most M, NC at most N") {
        for (const auto& [MR, NR] : {std::pair<int, int>{6, 16}, {12, 32}, {4, 4}}) {
            // K = 2048, KC = 384: 6 steps of 342 (5 x 384 + 128 would leave a short last step).
            CHECK(blocks_for_product({0, 384, 0}, MR, NR, 2048, 2048, 2048).KC == 342);
            CHECK(blocks_for_product({0, 384, 0}, MR, NR, 2048, 2048, 768).KC == 384);
            CHECK(blocks_for_product({0, 384, 0}, MR, NR, 2048, 2048, 385).KC == 193);
            CHECK(blocks_for_product({0, 384, 0}, MR, NR, 2048, 2048, 1).KC == 1);
            for (std::int64_t K : {1, 2, 5, 97, 1000, 4099}) {
                const BlockSizes b = blocks_for_product({0, 64, 0}, MR, NR, 10, 10, K);
                const std::int64_t steps = (K + 63) / 64;
                CHECK(b.KC <= 64);
                CHECK(b.KC * steps >= K);          // the steps cover K ...
                CHECK(b.KC * (steps - 1) < K);     // ... and none of them is empty
            }
            const BlockSizes narrow = blocks_for_product({}, MR, NR, 3, 5, 100);
            CHECK(narrow.NC == (5 + NR - 1) / NR * NR);  // N = 5: not a 1024-column block
            CHECK(narrow.MC == (3 + MR - 1) / MR * MR);  // M = 3: not a 4096-row panel
        }
    }

    TEST_CASE("threads_worth_starting: one thread for tiny products, never more than asked, never none") {
        CHECK(threads_worth_starting(32, 32, 32, 2) == 1);  // 2^15 multiply-adds < 2 x 2^16
        CHECK(threads_worth_starting(64, 64, 64, 2) == 2);  // 2^18
        CHECK(threads_worth_starting(64, 64, 64, 8) == 4);
        CHECK(threads_worth_starting(100, 100, 100, 2) == 2);
        CHECK(threads_worth_starting(2048, 2048, 2048, 16) == 16);
        CHECK(threads_worth_starting(2048, 2048, 2048, 1) == 1);
        CHECK(threads_worth_starting(1, 1, 1, 4) == 1);
        CHECK(threads_worth_starting(1, 1, 1, 0) == 1);
    }

    TEST_CASE("OpenBLAS: a threaded build, and the thread count we ask for is the one it uses") {
        MESSAGE("OpenBLAS: " << peers::openblas_description());
        // Debian's default is the pthread build (libopenblas0-pthread); the
        // OpenMP build also follows openblas_set_num_threads. A sequential
        // build would ignore it and the peer row would run on 1 thread.
        CHECK_MESSAGE(peers::openblas_parallel_mode() != 0,
                      "this OpenBLAS is the sequential build: the peer row would not use the threads asked for "
                      "(install libopenblas0-pthread)");
        Matrix A(64, 64), B(64, 64), C(64, 64);
        fill_uniform(A, 1);
        fill_uniform(B, 2);
        peers::matmul_openblas(A.data(), B.data(), C.data(), 64, 64, 64, 1);
        CHECK(peers::openblas_threads() == 1);
        if (std::thread::hardware_concurrency() >= 2) {
            peers::matmul_openblas(A.data(), B.data(), C.data(), 64, 64, 64, 2);
            CHECK(peers::openblas_threads() == 2);
        }
    }
}

// The strongest peer, always (issue: a table that flatters us against a
// hobbled peer is not honest). These run mmlab itself: not a graded test case.
TEST_SUITE("targets") {
    TEST_CASE("lab 5's peers: OPENBLAS_CORETYPE narrower than the CPU is undone, or warned about; BLIS is a second peer") {
        using mml::testing::run_mmlab;
        const std::string run = "run --stage lab5.openblas,lab5.blis_lib --size 48 --no-baseline --reps 1 --quiet";
        const auto forced = run_mmlab(run, "OPENBLAS_CORETYPE=Haswell");
        INFO(forced.output);
        CHECK(forced.exit_code == 0);
        if (mml::cpu_has_avx512()) {  // Haswell (AVX2) is narrower here: run again without it
            // said once, beside the peer, and nowhere else: a bad input still gets its one line alone
            CHECK(forced.output.find("OPENBLAS_CORETYPE=Haswell set aside") != std::string::npos);
            CHECK(forced.output.find("set aside") == forced.output.rfind("set aside"));
            CHECK(forced.output.find("kernel Haswell") == std::string::npos);
            const auto bad = run_mmlab("run --stage lab5.openblas --size 0", "OPENBLAS_CORETYPE=Haswell");
            INFO(bad.output);
            CHECK(bad.exit_code == 2);
            CHECK(bad.output.find("OPENBLAS_CORETYPE") == std::string::npos);
            CHECK(bad.output.find('\n') == bad.output.size() - 1);
            const auto kept = run_mmlab(run, "OPENBLAS_CORETYPE=Haswell MMLAB_KEEP_OPENBLAS_CORETYPE=1");
            INFO(kept.output);
            CHECK(kept.output.find("kernel Haswell") != std::string::npos);
            CHECK(kept.output.find("WARNING: OpenBLAS runs its Haswell kernel") != std::string::npos);
        } else {  // on an AVX2 CPU, Haswell is the widest kernel: nothing to undo
            CHECK(forced.output.find("set aside") == std::string::npos);
        }
        // OpenMP threads told to spin between regions take the cores OpenBLAS's
        // pthreads need: warned about beside the peer (the pthreads build, Debian's default).
        if (mml::peers::openblas_parallel_mode() == 1) {
            const std::string one = "run --stage lab5.openblas --size 48 --no-baseline --reps 1 --quiet";
            const auto spinning = run_mmlab(one, "OMP_WAIT_POLICY=active");
            INFO(spinning.output);
            CHECK(spinning.output.find("WARNING: OMP_WAIT_POLICY=active") != std::string::npos);
            const auto quiet = run_mmlab(one, "OMP_WAIT_POLICY=passive");
            INFO(quiet.output);
            CHECK(quiet.output.find("OMP_WAIT_POLICY") == std::string::npos);
        }
        // BLIS: timed and checked where installed, skipped with the reason where not.
        const bool blis_here = mml::peers::blis_unavailable_reason().empty();
        CHECK(forced.output.find(blis_here ? "lab5.blis_lib = BLIS " : "libblis-dev") != std::string::npos);
    }

    TEST_CASE("lab 5 target: a miss is the code's only when it trails the reference too, not when both lost speed") {
        using mml::Impl;
        const mml::Lab* lab = mml::Registry::instance().find_lab(5);
        REQUIRE(lab != nullptr);
        const mml::Shape s{1024, 1024, 1024};
        auto rows = [&](double own_blis, double ref_blis) {  // seconds; OpenBLAS takes 1.0
            return std::vector<mml::Measurement>{mml::testing::made_up_row("lab5.blis", Impl::Student, s, own_blis),
                                                 mml::testing::made_up_row("lab5.blis", Impl::Reference, s, ref_blis),
                                                 mml::testing::made_up_row("lab5.openblas", Impl::Reference, s, 1.0)};
        };
        CHECK(lab->judge(rows(1.25, 1.0)).met);  // 80 % of OpenBLAS
        // Slow code beside a reference at its quiet speed: NOT MET, the gap named, whatever the load says.
        const mml::TargetVerdict slow = mml::settle(lab->judge(rows(1.5, 1.0)), "the load average is 9.0 on 2 cores");
        CHECK(mml::verdict_word(slow) == "TARGET NOT MET");
        CHECK(slow.explanation.find("your lab5.blis 67% of its speed (so the gap is in your code") != std::string::npos);
        // Slow code beside a reference that lost speed too, but far less: still the code's (60 % of the reference).
        CHECK(mml::verdict_word(lab->judge(rows(2.0, 1.2))) == "TARGET NOT MET");
        // Code as fast as a reference that the machine held to 80 % of OpenBLAS (make lab5 beside a CI run):
        // INCONCLUSIVE, never "the gap is in your code".
        const mml::TargetVerdict level = lab->judge(rows(1.36, 1.25));
        CHECK(mml::verdict_word(level) == "INCONCLUSIVE");
        CHECK(level.explanation.find("gap is in your code") == std::string::npos);
        CHECK(level.explanation.find("your lab5.blis 92% of its speed") != std::string::npos);
        CHECK(mml::verdict_word(lab->judge(rows(1.5, 1.4))) == "INCONCLUSIVE");  // the reference misses too
        // ... but code under half the reference's speed beside it is slow code on any machine.
        CHECK(mml::verdict_word(lab->judge(rows(3.0, 1.4))) == "TARGET NOT MET");
        // lab5.blis is what is set beside the reference's, also where a 1-thread stage is faster (load spares it).
        auto tile_fastest = rows(3.0, 1.25);
        tile_fastest.push_back(mml::testing::made_up_row("lab5.tile", Impl::Student, s, 1.4));
        CHECK(mml::verdict_word(lab->judge(tile_fastest)) == "TARGET NOT MET");
    }

    TEST_CASE("lab 5 target: no verdict from a row above the measured peak (a busy machine's peak)") {
        using mml::Impl;
        const mml::Lab* lab = mml::Registry::instance().find_lab(5);
        REQUIRE(lab != nullptr);
        const mml::Shape s{2048, 2048, 2048};
        // The run: SIZE=2048 THREADS=2 on a busy machine, lab5.blis at 209 % of OpenBLAS
        // and 144 % of the 2-thread peak, whose runs allowed 103 %.
        auto own = mml::testing::made_up_row("lab5.blis", Impl::Student, s, 1.0);
        own.threads = 2;
        own.percent_of_peak = 144;
        own.peak_ceiling_percent = 103;
        const std::vector<mml::Measurement> rows{own, mml::testing::made_up_row("lab5.openblas", Impl::Reference, s, 2.09)};
        const mml::TargetVerdict judged = lab->judge(rows);
        CHECK(judged.met);  // the judge alone would say MET ...
        const mml::TargetVerdict v = mml::distrust_impossible(mml::settle(judged, ""), rows);
        CHECK(mml::verdict_word(v) == "INCONCLUSIVE");  // ... lab.cpp's last step does not
        CHECK(v.explanation.find("lab5.blis (student) ran at 144% of the measured 2-thread") != std::string::npos);
        CHECK(v.explanation.find("up to 103%") != std::string::npos);
        // A miss the judge blamed on the code is no verdict either from such a run.
        auto slow = rows;
        slow[1].median_seconds = 0.5;
        mml::TargetVerdict gap{false, "the gap is in your code", false, true};
        gap.code_gap_shown = true;
        CHECK(mml::distrust_impossible(gap, slow).inconclusive);
        // Within the peak's own spread: the verdict stands.
        auto within = rows;
        within[0].percent_of_peak = 102;
        CHECK(mml::verdict_word(mml::distrust_impossible(judged, within)) == "TARGET MET");
        // A wrong result stays NOT MET.
        const mml::TargetVerdict wrong{false, "lab5.blis is wrong", false, false};
        CHECK(mml::verdict_word(mml::distrust_impossible(wrong, rows)) == "TARGET NOT MET");
    }

    TEST_CASE("lab 5 target: repetitions on both sides of the 75 % goal are no verdict") {
        using mml::Impl;
        const mml::Lab* lab = mml::Registry::instance().find_lab(5);
        REQUIRE(lab != nullptr);
        const mml::Shape s{1024, 1024, 1024};
        auto row = [&](const char* stage, Impl impl, double median, double fastest, double slowest) {
            auto m = mml::testing::made_up_row(stage, impl, s, median);
            m.fastest_seconds = fastest;
            m.slowest_seconds = slowest;
            return m;
        };
        // Median 78 % of OpenBLAS (MET by the median), but its repetitions ran from 1.20 to 1.45 s
        // against OpenBLAS's 0.98-1.02 s: 68-85 %.
        const std::vector<mml::Measurement> noisy{row("lab5.blis", Impl::Student, 1.28, 1.20, 1.45),
                                                  row("lab5.openblas", Impl::Reference, 1.0, 0.98, 1.02)};
        const mml::TargetVerdict v = lab->judge(noisy);
        CHECK(mml::verdict_word(v) == "INCONCLUSIVE");
        CHECK(v.explanation.find("anywhere from 68% to 85%, across the 75% goal") != std::string::npos);
        // The same medians with tight repetitions: MET.
        const std::vector<mml::Measurement> tight{row("lab5.blis", Impl::Student, 1.28, 1.27, 1.29),
                                                  row("lab5.openblas", Impl::Reference, 1.0, 0.99, 1.01)};
        CHECK(mml::verdict_word(lab->judge(tight)) == "TARGET MET");
        // Noisy but all below the goal (55-63 %) beside a quiet reference: still NOT MET, the code's.
        const std::vector<mml::Measurement> slow{row("lab5.blis", Impl::Student, 1.7, 1.6, 1.8),
                                                 row("lab5.blis", Impl::Reference, 1.0, 0.99, 1.01),
                                                 row("lab5.openblas", Impl::Reference, 1.0, 0.99, 1.01)};
        CHECK(mml::verdict_word(lab->judge(slow)) == "TARGET NOT MET");
    }

    TEST_CASE("lab 5 target per kernel set: an AVX2-only student on an AVX-512 machine is judged against the AVX2 bar") {
        using mml::Impl;
        const mml::Lab* lab = mml::Registry::instance().find_lab(5);
        REQUIRE(lab != nullptr);
        const mml::Shape s{1024, 1024, 1024};
        // seconds; simd: the --param simd the row ran with; set: the kernel set it ran (the table's column)
        auto row = [&](Impl impl, double seconds, long long simd, const char* set, const char* stage = "lab5.blis") {
            auto m = mml::testing::made_up_row(stage, impl, s, seconds);
            if (simd) m.params.values["simd"] = simd;
            m.kernel_set = set;
            return m;
        };
        // The machine: OpenBLAS and the reference on AVX-512 at 1.0 s, the reference's AVX2 path at
        // 73 % of OpenBLAS (1.37 s); the student wrote the required AVX2 set only.
        auto machine = [&](double own_avx2) {
            return std::vector<mml::Measurement>{row(Impl::Student, own_avx2, 0, "AVX2+FMA"),
                                                 row(Impl::Reference, 1.0, 0, "AVX-512"),
                                                 row(Impl::Reference, 1.0, 0, "", "lab5.openblas"),
                                                 row(Impl::Student, own_avx2, 8, "AVX2+FMA"),
                                                 row(Impl::Reference, 1.37, 8, "AVX2+FMA")};
        };
        // As fast as the reference's AVX2 path: MET, on the required kernels, and no word of a gap in the code.
        const mml::TargetVerdict as_fast = lab->judge(machine(1.37));
        INFO(as_fast.explanation);
        CHECK(mml::verdict_word(as_fast) == "TARGET MET");
        CHECK(as_fast.explanation.find("the same-width bar") != std::string::npos);
        CHECK(as_fast.explanation.find("gap is in your code") == std::string::npos);
        CHECK(as_fast.explanation.find("lab5.blis (AVX2+FMA kernels)") != std::string::npos);
        // Under 75 % of the reference's AVX2 path: NOT MET, and the gap named from that comparison.
        const mml::TargetVerdict slow = mml::settle(lab->judge(machine(2.5)), "the load average is 9.0 on 2 cores");
        INFO(slow.explanation);
        CHECK(mml::verdict_word(slow) == "TARGET NOT MET");
        CHECK(slow.explanation.find("your lab5.blis runs at 55% of the reference's lab5.blis on its AVX2 kernels") !=
              std::string::npos);
        CHECK(slow.explanation.find("not the same width") != std::string::npos);  // not from AVX-512 vs AVX2
        CHECK(slow.explanation.find("gap is in your code") != std::string::npos);
        // The extension written: the AVX-512 set against OpenBLAS itself.
        auto wide = machine(1.37);
        wide[0] = row(Impl::Student, 1.05, 0, "AVX-512");
        CHECK(mml::verdict_word(lab->judge(wide)) == "TARGET MET");
        // --param simd=16 asked, no AVX-512 set in the build (it ran AVX2): no "gap in your code" from AVX-512 vs AVX2.
        const std::vector<mml::Measurement> asked{row(Impl::Student, 1.37, 16, "AVX2+FMA"),
                                                  row(Impl::Reference, 1.0, 16, "AVX-512"),
                                                  row(Impl::Reference, 1.0, 0, "", "lab5.openblas")};
        const mml::TargetVerdict v = lab->judge(asked);
        CHECK_FALSE(v.met);
        CHECK_FALSE(v.code_gap_shown);
        CHECK(v.explanation.find("gap is in your code") == std::string::npos);
        CHECK(v.explanation.find("on its AVX-512 kernels, yours on AVX2+FMA") != std::string::npos);
    }

    // The AVX2-only kind of 2-core machine, tried on a wider one (cpu/machine.h, simd_limited); the
    // verdicts of every kind on made-up rows: tests/test_targets.cpp.
    TEST_CASE("MMLAB_SIMD=avx2: the machine runs as an AVX2 one (kernels, peak, OpenBLAS), and the run says so") {
        const auto run = mml::testing::run_mmlab("lab 5 --size 48 --solution --reps 1 --threads 1", "MMLAB_SIMD=avx2");
        INFO(run.output);
        CHECK(run.exit_code == 0);
        CHECK(run.output.find("simd=8") == std::string::npos);  // no same-width rows: the peers are AVX2 too
        std::istringstream lines(run.output);
        for (std::string line; std::getline(lines, line);)
            if (line.rfind("lab5.", 0) == 0) CHECK(line.find("AVX-512") == std::string::npos);  // no row ran it
        const bool wider = mml::cpu_has_avx512();  // (this process runs without the variable)
        CHECK((run.output.find("widest SIMD AVX2+FMA (limited to AVX2+FMA by MMLAB_SIMD=avx2 (this CPU has AVX-512))") !=
               std::string::npos) == wider);
        CHECK((run.output.find("; this run was limited to AVX2+FMA by MMLAB_SIMD=avx2 (this CPU has AVX-512), not as "
                               "the CPU is") != std::string::npos) == wider);
        if (wider) CHECK(run.output.find("kernel Haswell") != std::string::npos);  // the peer an AVX2 machine gets
        // It only takes away: asking for more than the CPU has claims nothing.
        const auto more = mml::testing::run_mmlab("machine", "MMLAB_SIMD=avx512");
        CHECK(more.output.find("limited") == std::string::npos);
    }

    TEST_CASE("make lab5's table: the BLIS row only where BLIS is installed (else the peer line says why)") {
        const auto lab = mml::testing::run_mmlab("lab 5 --size 24 --threads 1");
        INFO(lab.output);
        const bool blis_here = mml::peers::blis_unavailable_reason().empty();
        CHECK(lab.output.find("lab5.blis_lib = BLIS") != std::string::npos);  // the peer line, either way
        CHECK((lab.output.find("\nlab5.blis_lib ") != std::string::npos) == blis_here);
    }
}
