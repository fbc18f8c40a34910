// Lab 8: every stage is correct on the shared odd/tiny/rectangular shapes, on
// shapes that pick each float4/scalar path, and on big shapes that are not
// multiples of any tile (where fast tutorial kernels go wrong). Stage 6 also
// with every tile configuration and split-K factor forced; stages 6's split-K
// and 8's stream-K give the same bits on every run.
#include "tests/stage_check.h"

#include <cstring>
#include <vector>

#include "labs/common/lab8_tiles.h"

#include "harness/gpu_backend.h"

using mml::Shape;
using mml::testing::check_stage;
using mml::testing::check_stage_on;

namespace {

// K % 4 and N % 4 choose the kernels' float4 or scalar paths for A and B/C:
// one shape for each of the four combinations, each with partial edge tiles.
const std::vector<Shape>& vector_path_shapes() {
    static const std::vector<Shape> shapes = {
        {130, 132, 260},  // A float4, B float4
        {131, 132, 257},  // A scalar, B float4
        {129, 131, 260},  // A float4, B scalar
        {133, 129, 131},  // A scalar, B scalar
        {1, 4, 4},        // a single partial tile, all float4
        {200, 4, 1},      // K = 1: one partial k-step
        {3, 300, 17},     // K not a multiple of the k-step (8 or 16)
    };
    return shapes;
}

// Big and odd: every block tile at the right and bottom edge is partial, and
// the k-loop ends in a partial step. (Checked by the randomized verifier:
// Freivalds, every element of the first and last rows and columns, random
// rows, columns and entries.)
const std::vector<Shape>& big_odd_shapes() {
    static const std::vector<Shape> shapes = {{1000, 1000, 1000}, {4095, 4097, 1023}, {1025, 777, 2049}};
    return shapes;
}

// Split-K edge cases, for every configuration: slices of uneven length, a
// last slice shorter than a k-step, more slices asked for than K has k-steps
// (fewer are made), K = 1, rows of A and B that are not float4-aligned.
const std::vector<Shape>& split_shapes() {
    static const std::vector<Shape> shapes = {
        {131, 129, 257},  // A scalar, B float4 path off (N odd); slices of 136 and 121 at split 2
        {64, 68, 1000},   // A and B float4; K split into 2, 3 or 7 uneven slices
        {33, 65, 1029},   // K % 8 = 5: a partial k-step in the last slice
        {7, 300, 45},     // K < 2 * 8 * split: fewer slices than asked
        {1, 4, 4},        // a single partial tile
        {200, 4, 1},      // K = 1: one slice whatever is asked
    };
    return shapes;
}

// The model's choice on big, odd shapes, among them shapes where it splits K
// (few tiles for the SMs: 1000^3, a short-and-wide C, a tall-and-narrow one).
const std::vector<Shape>& autotile_big_shapes() {
    static const std::vector<Shape> shapes = {
        {1000, 1000, 1000}, {4095, 4097, 1023}, {1025, 777, 2049}, {257, 4099, 4097}, {4099, 129, 3001}};
    return shapes;
}

void check_small(const std::string& stage) {
    check_stage(stage);
    check_stage_on(stage, vector_path_shapes());
}

bool gpu_is_sm80() { return mml::gpu::probe().cc_major >= 8; }

}  // namespace

TEST_SUITE("gpu-lab8") {
    TEST_CASE("lab8.register_tile: 8x8 register tiles") { check_small("lab8.register_tile"); }
    TEST_CASE("lab8.vector_loads: vector loads") { check_small("lab8.vector_loads"); }
    TEST_CASE("lab8.conflict_free: padded, split tiles") { check_small("lab8.conflict_free"); }
    TEST_CASE("lab8.double_buffer: double buffering and warp tiles") { check_small("lab8.double_buffer"); }
    // Separate test cases so that slow runs (compute-sanitizer) can leave them
    // out with --test-case-exclude='*big*'.
    TEST_CASE("lab8.register_tile: big odd shapes") { check_stage_on("lab8.register_tile", big_odd_shapes()); }
    TEST_CASE("lab8.vector_loads: big odd shapes") { check_stage_on("lab8.vector_loads", big_odd_shapes()); }
    TEST_CASE("lab8.conflict_free: big odd shapes") { check_stage_on("lab8.conflict_free", big_odd_shapes()); }
    TEST_CASE("lab8.double_buffer: big odd shapes") { check_stage_on("lab8.double_buffer", big_odd_shapes()); }
    TEST_CASE("lab8.async_copy: cp.async pipeline (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_is_sm80(), "cp.async needs compute capability 8.0 (tests/main.cpp skips this test)");
        check_small("lab8.async_copy");
    }
    TEST_CASE("lab8.async_copy: big odd shapes (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_is_sm80(), "cp.async needs compute capability 8.0 (tests/main.cpp skips this test)");
        check_stage_on("lab8.async_copy", big_odd_shapes());
    }
    TEST_CASE("lab8.autotile: the model's choice of tile and split") { check_small("lab8.autotile"); }
    TEST_CASE("lab8.autotile: every tile configuration and split-K factor, forced") {
        for (int tile = 0; tile < common::lab8::kTileConfigCount; ++tile)
            for (int split : {1, 2, 3, 7}) {
                mml::StageParams p;
                p.values["tile"] = tile;
                p.values["split"] = split;
                if (!check_stage_on("lab8.autotile", split_shapes(), p)) return;  // the message names tile and split
            }
    }
    TEST_CASE("lab8.autotile: big odd shapes, split-K among them") {
        check_stage_on("lab8.autotile", autotile_big_shapes());
    }
    // The reduction adds the slices in a fixed order (06_autotile.cu): the
    // same inputs give the same bits, run after run. atomicAdd would not.
    TEST_CASE("lab8.autotile: split-K gives the same bits on every run") {
        const mml::Stage* stage = mml::Registry::instance().find("lab8.autotile");
        REQUIRE(stage != nullptr);
        const mml::Impl impl = mml::testing::impl_under_test();
        const mml::MatmulFn& fn = mml::version_of(*stage, impl);
        mml::Problem problem({515, 517, 2001});
        mml::StageParams p;
        p.values["tile"] = 1;
        p.values["split"] = 5;
        const mml::CheckedRun first = mml::run_once_and_verify(*stage, fn, problem, p);
        REQUIRE_MESSAGE(first.check.passed, "lab8.autotile with --param tile=1,split=5 is wrong at 515x517x2001: "
                                                << first.check.failure);
        const std::vector<float> kept(problem.C.data(), problem.C.data() + problem.C.size());
        for (int run = 0; run < 3; ++run) {
            const mml::CheckedRun again = mml::run_once_and_verify(*stage, fn, problem, p);
            REQUIRE(again.check.passed);
            CHECK_MESSAGE(std::memcmp(kept.data(), problem.C.data(), sizeof(float) * kept.size()) == 0,
                          "lab8.autotile (split 5) gave different bits on the same inputs: is the reduction's order "
                          "fixed (no atomicAdd)?");
        }
    }
    // Stream-K: all tiles shared out by k-steps where C has fewer tiles than
    // the GPU has SMs (the small shapes, 1000^3), data-parallel waves and a
    // shared last wave where it has more (4095 x 4097: 544 tiles), whole waves
    // only (1536 x 2816: 132 tiles, an H100's SMs), B copied into aligned rows
    // (N % 4 != 0), K deeper than the pipeline's int count of a piece needs.
    TEST_CASE("lab8.streamk: persistent stream-K (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_is_sm80(), "cp.async needs compute capability 8.0 (tests/main.cpp skips this test)");
        check_small("lab8.streamk");
        check_stage_on("lab8.streamk", {{1536, 2816, 64}, {3, 5, 100003}, {1, 1, 1000000}});
    }
    TEST_CASE("lab8.streamk: big odd shapes (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_is_sm80(), "cp.async needs compute capability 8.0 (tests/main.cpp skips this test)");
        check_stage_on("lab8.streamk", autotile_big_shapes());
    }
    // --param sk=0: the same kernel, every tile whole (fewer tiles than SMs,
    // more, and a partial last wave).
    TEST_CASE("lab8.streamk: stream-K off, every tile whole (--param sk=0) (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_is_sm80(), "cp.async needs compute capability 8.0 (tests/main.cpp skips this test)");
        mml::StageParams p;
        p.values["sk"] = 0;
        check_stage_on("lab8.streamk", {{130, 132, 260}, {1, 4, 4}, {200, 4, 1}, {4095, 4097, 1023}}, p);
    }
    // The owner adds the partials in block order (08_streamk.cu): the same
    // inputs give the same bits, run after run.
    TEST_CASE("lab8.streamk: the same bits on every run (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_is_sm80(), "cp.async needs compute capability 8.0 (tests/main.cpp skips this test)");
        const mml::Stage* stage = mml::Registry::instance().find("lab8.streamk");
        REQUIRE(stage != nullptr);
        const mml::MatmulFn& fn = mml::version_of(*stage, mml::testing::impl_under_test());
        mml::Problem problem({515, 517, 2001});  // 15 tiles of 251 k-steps: pieces on every block
        const mml::CheckedRun first = mml::run_once_and_verify(*stage, fn, problem, {});
        REQUIRE_MESSAGE(first.check.passed, "lab8.streamk is wrong at 515x517x2001: " << first.check.failure);
        const std::vector<float> kept(problem.C.data(), problem.C.data() + problem.C.size());
        for (int run = 0; run < 3; ++run) {
            const mml::CheckedRun again = mml::run_once_and_verify(*stage, fn, problem, {});
            REQUIRE(again.check.passed);
            CHECK_MESSAGE(std::memcmp(kept.data(), problem.C.data(), sizeof(float) * kept.size()) == 0,
                          "lab8.streamk gave different bits on the same inputs: are the partials added in a fixed "
                          "order (no atomicAdd)?");
        }
    }
    TEST_CASE("lab8.cublas: the peer (cuBLAS FP32)") { check_stage("lab8.cublas"); }
    // The TF32 stages need compute capability 8.0: tests/main.cpp excludes the
    // test cases named "(needs sm_80)" on older GPUs, so that doctest reports
    // them as skipped (with the reason printed first), never as passed.
    TEST_CASE("lab8.wmma_tf32: TF32 tensor cores (tf32_bound) (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_is_sm80(), "TF32 tensor cores need compute capability 8.0 (tests/main.cpp skips this test)");
        check_small("lab8.wmma_tf32");
    }
    TEST_CASE("lab8.wmma_tf32: big odd shapes (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_is_sm80(), "TF32 tensor cores need compute capability 8.0 (tests/main.cpp skips this test)");
        check_stage_on("lab8.wmma_tf32", big_odd_shapes());
    }
    TEST_CASE("lab8.cublas_tf32: cuBLAS with TF32 tensor cores (tf32_bound) (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_is_sm80(), "TF32 tensor cores need compute capability 8.0 (tests/main.cpp skips this test)");
        check_stage("lab8.cublas_tf32");
    }
    // The TF32 bound is looser than gamma_K but not vacuous: a TF32 result must
    // FAIL the FP32 bound at a size where rounding inputs to 10 bits shows, or
    // the two tolerances would not be telling the stages apart.
    TEST_CASE("lab8.wmma_tf32 is really TF32: it fails the FP32 bound (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_is_sm80(), "TF32 tensor cores need compute capability 8.0 (tests/main.cpp skips this test)");
        const mml::Stage* stage = mml::Registry::instance().find("lab8.wmma_tf32");
        REQUIRE(stage != nullptr);
        mml::Impl impl = mml::testing::impl_under_test();
        // Right under its own bound first: a kernel that computes nothing (an
        // untouched starter writes zeros) also fails gamma_K, and must not pass here.
        const auto own = mml::run_and_check(*stage, impl, {256, 256, 256}, {}, mml::fresh_seed());
        REQUIRE_MESSAGE(own.passed, "lab8.wmma_tf32 is wrong at 256^3 under its own bound: " << own.failure);
        mml::Stage fp32_checked = *stage;
        fp32_checked.bound = [](Shape s, const mml::StageParams&) { return mml::classical_bound(s); };
        const auto r = mml::run_and_check(fp32_checked, impl, {256, 256, 256}, {}, mml::fresh_seed());
        CHECK_MESSAGE(!r.passed, "lab8.wmma_tf32 passed the FP32 bound gamma_K: are the inputs really rounded to TF32?");
    }
}
