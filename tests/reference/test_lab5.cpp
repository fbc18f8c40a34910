// Lab 5's reference, inside: its kernel sets and their dispatch, the
// AVX-512 tile geometry (12 x 32) run through the same template bodies
// without AVX-512, its block-size rules, and `mmlab blis-levels`, which takes
// its BLIS apart. Not the student's business (the "lab5" suite tests the
// stages of either version): built only when the references are
// (tests/reference/; NO_REFERENCE=1 leaves it out).
#include "cpu/machine.h"
#include "cpu/verify.h"
#include "harness/cli.h"
#include "labs/common/block_sizes.h"
#include "solutions/lab5/gemm.h"
#include "tests/lab5_shapes.h"
#include "tests/run_mmlab.h"
#include "tests/stage_check.h"

using namespace mml;
namespace ref = reference::lab5;
using mml::testing::Outcome;
using mml::testing::run_mmlab;

namespace {

const std::vector<Shape>& edge_shapes() { return mml::testing::lab5_edge_shapes(); }

// Runs C = A*B with the given function, checks it against the float64 reference.
template <class F>
void check_product(const std::string& what, Shape s, F&& run) {
    Matrix A(s.M, s.K), B(s.K, s.N), C(s.M, s.N);
    const auto seed = fresh_seed();
    fill_inputs(A, B, seed);
    poison(C);
    run(A.data(), B.data(), C.data(), s);
    const CheckResult r = verify_product(A.data(), B.data(), C.data(), s, classical_bound(s), VerifyMethod::Full, seed);
    CHECK_MESSAGE(r.passed, what << " is wrong at " << shape_text(s) << ": " << r.failure);
}

}  // namespace

TEST_SUITE("reference-lab5") {
    TEST_CASE("the AVX-512 tile geometry (12 x 32) and every kernel body, through all the loops, without AVX-512") {
        // The AVX-512 kernels are the template bodies of kernel_bodies_impl.h with a
        // 16-float vector and MR x NR = 12 x 32. Here the same bodies run at
        // 12 x 32 with a 1-float vector (any CPU) and with a 16-float vector
        // made of two AVX2 registers (AVX2 CPUs), through the tile loops, the
        // packing and the five BLIS loops, so that on a machine without
        // AVX-512 everything of that path except its five one-line intrinsic
        // wrappers is tested. On an AVX-512 machine the real kernels run too.
        // Scalar, scalar at 12 x 32, and the two AVX2 sets where AVX2 is: the
        // loop below must not run over fewer sets than that.
        const auto sets = ref::runnable_kernel_sets();
        CHECK(sets.size() == 2u + (simd_available(SimdLevel::Avx2) ? 2u : 0u) +
                                 (simd_available(SimdLevel::Avx512) ? 1u : 0u));
        int tiles_12x32 = 0;
        for (const ref::KernelSet* k : sets) tiles_12x32 += k->MR == 12 && k->NR == 32;
        CHECK(tiles_12x32 >= 1);
        std::string names;
        for (const ref::KernelSet* k : sets) {
            names += std::string(names.empty() ? "" : "; ") + k->name;
            for (Shape s : edge_shapes()) {
                check_product(std::string(k->name) + " dot", s, [&](const float* A, const float* B, float* C, Shape sh) {
                    ref::matmul_transposed_simd(A, B, C, sh.M, sh.N, sh.K, *k, 2);
                });
                check_product(std::string(k->name) + " tile", s, [&](const float* A, const float* B, float* C, Shape sh) {
                    ref::matmul_register_tile(A, B, C, sh.M, sh.N, sh.K, *k);
                });
                check_product(std::string(k->name) + " blis", s, [&](const float* A, const float* B, float* C, Shape sh) {
                    ref::matmul_blis(A, B, C, sh.M, sh.N, sh.K, *k, {k->MR + 1, 7, k->NR + 1}, 2);
                });
                check_product(std::string(k->name) + " blis, 3 threads, default blocks", s,
                              [&](const float* A, const float* B, float* C, Shape sh) {
                    ref::matmul_blis(A, B, C, sh.M, sh.N, sh.K, *k, {}, 3);
                });
            }
        }
        MESSAGE("kernel sets run: " << names);
    }

    TEST_CASE("dispatch: the reference's kernel set of a SIMD level, only where the CPU has it") {
        for (SimdLevel level : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512}) {
            CAPTURE(simd_name(level));
            if (simd_available(level)) {
                CHECK(ref::kernels_for(level).simd == level);
                CHECK(ref::kernels_for(level).NR % simd_lanes(level) == 0);
            } else {
                CHECK_THROWS_AS(ref::kernels_for(level), std::invalid_argument);
            }
        }
        CHECK_NOTHROW(ref::kernels_for(detect_simd()));
    }

    TEST_CASE("block sizes: requests rounded to whole micro-panels, zeros to this machine's defaults") {
        for (const ref::KernelSet* ks : ref::runnable_kernel_sets()) {
            const ref::BlockSizes r = ref::resolve_block_sizes({7, 5, 17}, *ks);
            CHECK(r.MC % ks->MR == 0);
            CHECK(r.MC >= 7);
            CHECK(r.KC == 5);
            CHECK(r.NC % ks->NR == 0);
            CHECK(r.NC >= 17);
            // No request: this machine's cache-derived defaults, in whole micro-panels.
            const ref::BlockSizes dflt = ref::resolve_block_sizes({}, *ks);
            const ref::BlockSizes here = ref::reference_block_sizes(ks->MR, ks->NR, common::lab5::cache_sizes());
            CHECK(dflt.KC == here.KC);
            CHECK(dflt.MC == here.MC);
            CHECK(dflt.NC == here.NC);
            CHECK(here.KC > 0);
            CHECK(here.MC % ks->MR == 0);
            CHECK(here.NC % ks->NR == 0);
        }
    }

    TEST_CASE("block sizes: the analytical rules, on the caches of the machines we run on") {
        using common::lab5::CacheSizes;
        constexpr std::int64_t KiB = 1024, MiB = 1024 * 1024;
        // KC: the largest with ceil(MR*KC*4/way) + ceil(KC*NR*4/way) <= ways - 1.
        // 48 KiB 12-way L1 (this Xeon, Zen 4/5), the AVX-512 tile 12 x 32: the
        // B micro-panel fills 8 ways (KC = 256), the A sliver 3.
        const ref::BlockSizes xeon = ref::reference_block_sizes(12, 32, CacheSizes{48 * KiB, 2 * MiB, 480 * MiB, 12});
        CHECK(xeon.KC == 256);
        CHECK(xeon.NC == 1024);  // 256 x 1024 floats = 1 MiB = half of L2
        CHECK(xeon.MC == 4104);  // a quarter of a large L3: the cap, 4096 rows rounded up to whole slivers
        // 32 KiB 8-way L1, 512 KiB L2, 32 MiB L3 (Zen 3), the AVX2 tile 6 x 16: 2 + 5 ways.
        const ref::BlockSizes zen3 = ref::reference_block_sizes(6, 16, CacheSizes{32 * KiB, 512 * KiB, 32 * MiB, 8});
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
                const ref::BlockSizes b = ref::reference_block_sizes(MR, NR, c);
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
        REQUIRE(ref::runnable_kernel_sets().size() >= 2);  // scalar, scalar 12 x 32: the checks below run
        for (const ref::KernelSet* ks : ref::runnable_kernel_sets()) {
            // K = 2048, KC = 384: 6 steps of 342 (5 x 384 + 128 would leave a short last step).
            CHECK(ref::blocks_for_product({0, 384, 0}, *ks, 2048, 2048, 2048).KC == 342);
            CHECK(ref::blocks_for_product({0, 384, 0}, *ks, 2048, 2048, 768).KC == 384);
            CHECK(ref::blocks_for_product({0, 384, 0}, *ks, 2048, 2048, 385).KC == 193);
            CHECK(ref::blocks_for_product({0, 384, 0}, *ks, 2048, 2048, 1).KC == 1);
            for (std::int64_t K : {1, 2, 5, 97, 1000, 4099}) {
                const ref::BlockSizes b = ref::blocks_for_product({0, 64, 0}, *ks, 10, 10, K);
                const std::int64_t steps = (K + 63) / 64;
                CHECK(b.KC <= 64);
                CHECK(b.KC * steps >= K);          // the steps cover K ...
                CHECK(b.KC * (steps - 1) < K);     // ... and none of them is empty
            }
            const ref::BlockSizes narrow = ref::blocks_for_product({}, *ks, 3, 5, 100);
            CHECK(narrow.NC == (5 + ks->NR - 1) / ks->NR * ks->NR);  // N = 5: not a 1024-column block
            CHECK(narrow.MC == (3 + ks->MR - 1) / ks->MR * ks->MR);  // M = 3: not a 4096-row panel
        }
    }

    TEST_CASE("lab5.blis: slivers of A packed on the fly and panels packed first, on 1 to 6 threads, every kernel set") {
        // A thread whose columns fit one B block packs each sliver of A just
        // before loop 1 uses it (blis_gemm.cpp); with more columns than NC it
        // packs the whole A panel first. Both ways on odd shapes (primes,
        // tall, wide, K = 1) and on more threads than micro-panels. The
        // stage itself starts no more threads than threads_worth_starting
        // allows, so small shapes on many threads are run here, directly.
        const std::vector<Shape> shapes = {{1, 1, 1},     {97, 89, 101}, {1009, 3, 7}, {3, 1009, 13},
                                           {61, 257, 1}, {97, 131, 67}, {20, 500, 9}, {500, 64, 9}};
        for (const ref::KernelSet* k : ref::runnable_kernel_sets())
            for (int t : {1, 2, 3, 4, 6})
                for (Shape s : shapes) {
                    const std::string what = std::string(k->name) + " blis on " + std::to_string(t) + " threads";
                    check_product(what + ", slivers on the fly", s, [&](const float* A, const float* B, float* C, Shape sh) {
                        ref::matmul_blis(A, B, C, sh.M, sh.N, sh.K, *k, {}, t);
                    });
                    check_product(what + ", A panel first (NC = NR)", s,
                                  [&](const float* A, const float* B, float* C, Shape sh) {
                        ref::matmul_blis(A, B, C, sh.M, sh.N, sh.K, *k, {0, 0, k->NR}, t);
                    });
                }
    }

    TEST_CASE("threads_worth_starting: one thread for tiny products, never more than asked, never none") {
        CHECK(ref::threads_worth_starting(32, 32, 32, 2) == 1);  // 2^15 multiply-adds < 2 x 2^16
        CHECK(ref::threads_worth_starting(64, 64, 64, 2) == 2);  // 2^18
        CHECK(ref::threads_worth_starting(64, 64, 64, 8) == 4);
        CHECK(ref::threads_worth_starting(100, 100, 100, 2) == 2);
        CHECK(ref::threads_worth_starting(2048, 2048, 2048, 16) == 16);
        CHECK(ref::threads_worth_starting(2048, 2048, 2048, 1) == 1);
        CHECK(ref::threads_worth_starting(1, 1, 1, 4) == 1);
        CHECK(ref::threads_worth_starting(1, 1, 1, 0) == 1);
    }

    TEST_CASE("mmlab blis-levels: a table of the levels; bad requests are usage errors") {
        const Outcome ok = run_mmlab("blis-levels --size 40 --reps 1 --param mc=12,kc=8");
        INFO(ok.output);
        CHECK(ok.exit_code == 0);
        for (const char* row : {"micro-kernel", "macro-kernel, C cold", "packing A", "packing B", "lab5.blis", "OpenBLAS"})
            CHECK_MESSAGE(ok.output.find(row) != std::string::npos, row);
        CHECK(run_mmlab("blis-levels --size 0").exit_code == 2);
        CHECK(run_mmlab("blis-levels --param xx=1").exit_code == 2);
        CHECK(run_mmlab("blis-levels --param kc=-1").exit_code == 2);
        CHECK(run_mmlab("blis-levels --simd 3").exit_code == 2);
        CHECK(run_mmlab("blis-levels --frobnicate").exit_code == 2);
    }
}
