// Lab 5: every stage on the shared shapes, on every SIMD path this CPU has
// (scalar always, AVX2+FMA and AVX-512 where present: the test log says which
// ran), on 1, 2 and 3 threads, with block sizes that split every loop of the
// BLIS nest into uneven pieces; plus the AVX-512 tile geometry (12 x 32) run
// through the same template bodies without AVX-512, the dispatch, the block
// size rules, and OpenBLAS's threading.
#include <thread>

#include "cpu/verify.h"
#include "harness/cli.h"
#include "solutions/lab5/blis_gemm.h"
#include "solutions/lab5/dot_gemm.h"
#include "solutions/lab5/openblas_gemm.h"
#include "solutions/lab5/tile_gemm.h"
#include "tests/run_mmlab.h"
#include "tests/stage_check.h"

using namespace mml;
using mml::testing::check_stage;
using mml::testing::check_stage_on;
namespace ref = reference::lab5;
using mml::testing::Outcome;
using mml::testing::run_mmlab;

namespace {

StageParams with(std::map<std::string, long long> values, int threads = 1) {
    StageParams p;
    p.values = std::move(values);
    p.threads = threads;
    return p;
}

// simd=W for every ISA this CPU runs; says in the log which ones ran.
std::vector<long long> simd_widths_here() {
    std::vector<long long> w = {1};
    if (ref::isa_available(ref::Isa::Avx2)) w.push_back(8);
    if (ref::isa_available(ref::Isa::Avx512)) w.push_back(16);
    return w;
}

std::string widths_text(const std::vector<long long>& w) {
    std::string s;
    for (long long x : w) s += (s.empty() ? "" : ", ") + std::string(x == 1 ? "scalar" : x == 8 ? "AVX2+FMA" : "AVX-512");
    return s;
}

// Shapes around the tile and block sizes: non-multiples of MR (4, 6, 12),
// NR (4, 16, 32), of the SIMD widths (8, 16) and of the block sizes the
// parameterised tests use; K = 1; and exact multiples.
const std::vector<Shape>& edge_shapes() {
    static const std::vector<Shape> shapes = {
        {1, 1, 1},    {6, 16, 1},   {7, 17, 1},    {12, 32, 1},  {13, 33, 2},   {5, 15, 9},
        {11, 31, 17}, {25, 65, 33}, {48, 96, 64},  {49, 97, 65}, {73, 129, 257}, {1, 200, 300},
        {200, 1, 300}, {300, 300, 1},
    };
    return shapes;
}

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

TEST_SUITE("lab5") {
    TEST_CASE("lab5.dot: transposed B + SIMD dot products, every SIMD path here") {
        const auto widths = simd_widths_here();
        MESSAGE("SIMD paths tested on this CPU: " << widths_text(widths));
        for (long long w : widths) {
            check_stage("lab5.dot", with({{"simd", w}}));
            check_stage_on("lab5.dot", edge_shapes(), with({{"simd", w}}));
        }
    }

    TEST_CASE("lab5.tile: the register tile, every SIMD path here") {
        for (long long w : simd_widths_here()) {
            check_stage("lab5.tile", with({{"simd", w}}));
            check_stage_on("lab5.tile", edge_shapes(), with({{"simd", w}}));
        }
    }

    TEST_CASE("lab5.blis: default block sizes, every SIMD path here, 1, 2 and 3 threads") {
        for (long long w : simd_widths_here())
            for (int t : {1, 2, 3}) {
                check_stage("lab5.blis", with({{"simd", w}}, t));
                check_stage_on("lab5.blis", edge_shapes(), with({{"simd", w}}, t));
            }
    }

    TEST_CASE("lab5.blis: 4 and 6 threads, more than this machine may have, on shapes with few row panels") {
        // With 6 threads, 97 rows (17 micro-panels of 6) give 2 or 3 panels a
        // thread, and every thread still packs its share of each B panel and
        // meets every barrier; 20 rows are 4 micro-panels, fewer than the
        // threads asked for.
        for (int t : {4, 6}) {
            CAPTURE(t);
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

    TEST_CASE("lab5.combined: seed 003's transpose + SIMD + threads, 1, 2 and 3 threads") {
        for (int t : {1, 2, 3}) check_stage("lab5.combined", with({}, t));
        check_stage_on("lab5.combined", edge_shapes(), with({}, 3));
    }

    TEST_CASE("lab5.openblas: the peer row, 1 and 2 threads") {
        for (int t : {1, 2}) check_stage("lab5.openblas", with({}, t));
    }

    TEST_CASE("the AVX-512 tile geometry (12 x 32) and every kernel body, through all the loops, without AVX-512") {
        // The AVX-512 kernels are the template bodies of kernel_bodies.h with a
        // 16-float vector and MR x NR = 12 x 32. Here the same bodies run at
        // 12 x 32 with a 1-float vector (any CPU) and with a 16-float vector
        // made of two AVX2 registers (AVX2 CPUs), through the tile loops, the
        // packing and the five BLIS loops, so that on a machine without
        // AVX-512 everything of that path except its five one-line intrinsic
        // wrappers is tested. On an AVX-512 machine the real kernels run too.
        // Scalar, scalar at 12 x 32, and the two AVX2 sets where AVX2 is: the
        // loop below must not run over fewer sets than that.
        const auto sets = ref::runnable_kernel_sets();
        CHECK(sets.size() == 2u + (ref::isa_available(ref::Isa::Avx2) ? 2u : 0u) +
                                 (ref::isa_available(ref::Isa::Avx512) ? 1u : 0u));
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
            }
        }
        MESSAGE("kernel sets run: " << names);
    }

    TEST_CASE("dispatch: an ISA the CPU lacks is refused, never called") {
        for (ref::Isa isa : {ref::Isa::Scalar, ref::Isa::Avx2, ref::Isa::Avx512}) {
            if (ref::isa_available(isa)) {
                CHECK(ref::kernels_for(isa).isa == isa);
                CHECK(ref::kernels_for(isa).NR % ref::isa_lanes(isa) == 0);
            } else {
                CHECK_THROWS_AS(ref::kernels_for(isa), std::invalid_argument);
                // ... and the harness turns the request into a one-line usage error.
                const long long w = ref::isa_lanes(isa);
                const Stage* s = Registry::instance().find("lab5.blis");
                REQUIRE(s != nullptr);
                Matrix A(8, 8), B(8, 8), C(8, 8);
                CHECK_THROWS_AS(s->reference(A.data(), B.data(), C.data(), {8, 8, 8}, with({{"simd", w}})), UsageError);
            }
        }
        CHECK(ref::isa_available(ref::widest_isa()));
        const Stage* s = Registry::instance().find("lab5.tile");
        Matrix A(8, 8), B(8, 8), C(8, 8);
        CHECK_THROWS_AS(s->reference(A.data(), B.data(), C.data(), {8, 8, 8}, with({{"simd", 4}})), UsageError);
        REQUIRE(s->student);
        CHECK_THROWS_AS(s->student(A.data(), B.data(), C.data(), {8, 8, 8}, with({{"simd", 32}})), UsageError);
        const Stage* b = Registry::instance().find("lab5.blis");
        CHECK_THROWS_AS(b->reference(A.data(), B.data(), C.data(), {8, 8, 8}, with({{"kc", -5}})), UsageError);
    }

    TEST_CASE("block sizes: derived from the caches, whole micro-panels") {
        const ref::KernelSet& k = ref::kernels_for(ref::Isa::Scalar);
        const ref::BlockSizes d = ref::default_block_sizes(k, {32 * 1024, 512 * 1024, 32 * 1024 * 1024});
        // KC x NR floats = 3/4 of L1 (at most 1024); MC x KC = half of L2; KC x NC = a quarter of L3, <= 4096.
        CHECK(d.KC == std::min<std::int64_t>(1024, 32 * 1024 * 3 / 4 / (k.NR * 4)));
        CHECK(d.MC % k.MR == 0);
        CHECK(d.MC * d.KC * 4 <= 512 * 1024 / 2);
        CHECK(d.MC * d.KC * 4 > 512 * 1024 / 2 - k.MR * d.KC * 4);
        CHECK(d.NC % k.NR == 0);
        CHECK(d.NC <= 4096);
        for (const ref::KernelSet* ks : ref::runnable_kernel_sets()) {
            const ref::BlockSizes r = ref::resolve_block_sizes({7, 5, 17}, *ks);
            CHECK(r.MC % ks->MR == 0);
            CHECK(r.MC >= 7);
            CHECK(r.KC == 5);
            CHECK(r.NC % ks->NR == 0);
            CHECK(r.NC >= 17);
            // No request: this machine's cache-derived defaults, in whole micro-panels.
            const ref::BlockSizes dflt = ref::resolve_block_sizes({}, *ks);
            const ref::BlockSizes here = ref::default_block_sizes(*ks, ref::cache_sizes());
            CHECK(dflt.KC == here.KC);
            CHECK(dflt.MC % ks->MR == 0);
            CHECK(dflt.MC >= here.MC);
            CHECK(dflt.MC < here.MC + ks->MR);
            CHECK(dflt.NC % ks->NR == 0);
            CHECK(dflt.NC >= here.NC);
            CHECK(dflt.NC < here.NC + ks->NR);
            CHECK(here.KC > 0);
        }
    }

    TEST_CASE("block sizes of one product: K in equal steps of at most KC, NC at most N") {
        REQUIRE(ref::runnable_kernel_sets().size() >= 2);  // scalar, scalar 12 x 32: the checks below run
        for (const ref::KernelSet* ks : ref::runnable_kernel_sets()) {
            // K = 2048, KC = 384: 6 steps of 342 (5 x 384 + 128 would leave a short last step).
            CHECK(ref::blocks_for_product({0, 384, 0}, *ks, 2048, 2048).KC == 342);
            CHECK(ref::blocks_for_product({0, 384, 0}, *ks, 2048, 768).KC == 384);
            CHECK(ref::blocks_for_product({0, 384, 0}, *ks, 2048, 385).KC == 193);
            CHECK(ref::blocks_for_product({0, 384, 0}, *ks, 2048, 1).KC == 1);
            for (std::int64_t K : {1, 2, 5, 97, 1000, 4099}) {
                const ref::BlockSizes b = ref::blocks_for_product({0, 64, 0}, *ks, 10, K);
                const std::int64_t steps = (K + 63) / 64;
                CHECK(b.KC <= 64);
                CHECK(b.KC * steps >= K);          // the steps cover K ...
                CHECK(b.KC * (steps - 1) < K);     // ... and none of them is empty
            }
            const ref::BlockSizes narrow = ref::blocks_for_product({}, *ks, 5, 100);
            CHECK(narrow.NC == (5 + ks->NR - 1) / ks->NR * ks->NR);  // N = 5: not a 4096-column panel
        }
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

    TEST_CASE("OpenBLAS: a threaded build, and the thread count we ask for is the one it uses") {
        MESSAGE("OpenBLAS: " << ref::openblas_description());
        // Debian's default is the pthread build (libopenblas0-pthread); the
        // OpenMP build also follows openblas_set_num_threads. A sequential
        // build would ignore it and the peer row would run on 1 thread.
        CHECK_MESSAGE(ref::openblas_parallel_mode() != 0,
                      "this OpenBLAS is the sequential build: the peer row would not use the threads asked for "
                      "(install libopenblas0-pthread)");
        Matrix A(64, 64), B(64, 64), C(64, 64);
        fill_uniform(A, 1);
        fill_uniform(B, 2);
        ref::matmul_openblas(A.data(), B.data(), C.data(), 64, 64, 64, 1);
        CHECK(ref::openblas_threads() == 1);
        if (std::thread::hardware_concurrency() >= 2) {
            ref::matmul_openblas(A.data(), B.data(), C.data(), 64, 64, 64, 2);
            CHECK(ref::openblas_threads() == 2);
        }
    }
}
