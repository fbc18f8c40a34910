// Lab 5's reference, inside: its kernel sets and their dispatch, the
// AVX-512 tile geometry (12 x 32) run through the same template bodies
// without AVX-512, and `mmlab blis-levels`, which takes its BLIS apart. Not the student's business (the "lab5" suite tests the
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
                    ref::matmul_dot(A, B, C, sh.M, sh.N, sh.K, *k, 2);
                });
                check_product(std::string(k->name) + " tile", s, [&](const float* A, const float* B, float* C, Shape sh) {
                    ref::matmul_tile(A, B, C, sh.M, sh.N, sh.K, *k);
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
            const ref::BlockSizes r = common::lab5::resolve_block_sizes({7, 5, 17}, ks->MR, ks->NR);
            CHECK(r.MC % ks->MR == 0);
            CHECK(r.MC >= 7);
            CHECK(r.KC == 5);
            CHECK(r.NC % ks->NR == 0);
            CHECK(r.NC >= 17);
            // No request: this machine's cache-derived defaults, in whole micro-panels.
            const ref::BlockSizes dflt = common::lab5::resolve_block_sizes({}, ks->MR, ks->NR);
            const ref::BlockSizes here = common::lab5::cache_block_sizes(ks->MR, ks->NR, common::lab5::cache_sizes());
            CHECK(dflt.KC == here.KC);
            CHECK(dflt.MC == here.MC);
            CHECK(dflt.NC == here.NC);
            CHECK(here.KC > 0);
            CHECK(here.MC % ks->MR == 0);
            CHECK(here.NC % ks->NR == 0);
        }
    }

    TEST_CASE("lab5.blis: slivers of A packed on the fly and panels packed first, on 1 to 6 threads, every kernel set") {
        // A thread whose columns fit one B block packs each sliver of A just
        // before loop 1 uses it (solutions/lab5/blis.cpp); with more columns than NC it
        // packs the whole A panel first. Both ways on odd shapes (primes,
        // tall, wide, K = 1) and on more threads than micro-panels. The
        // stage itself starts no more threads than threads_worth_starting
        // allows, so small shapes on many threads are run here, directly,
        // with every kernel set: the edge paths (an edge micro-kernel, a
        // half-width one, the given buffer) all run.
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

    TEST_CASE("mmlab blis-levels: a table of the levels; bad requests are usage errors") {
        const Outcome ok = run_mmlab("blis-levels --size 40 --reps 1 --param mc=12,kc=8");
        INFO(ok.output);
        CHECK(ok.exit_code == 0);
        for (const char* row : {"micro-kernel", "macro-kernel, C cold", "packing A", "packing B", "lab5.blis", "OpenBLAS"})
            CHECK_MESSAGE(ok.output.find(row) != std::string::npos, std::string(row));
        CHECK(run_mmlab("blis-levels --size 0").exit_code == 2);
        CHECK(run_mmlab("blis-levels --param xx=1").exit_code == 2);
        CHECK(run_mmlab("blis-levels --param kc=-1").exit_code == 2);
        CHECK(run_mmlab("blis-levels --simd 3").exit_code == 2);
        CHECK(run_mmlab("blis-levels --frobnicate").exit_code == 2);
    }
}
