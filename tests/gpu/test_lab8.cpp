// Lab 8: every stage is correct on the shared odd/tiny/rectangular shapes, on
// shapes that pick each float4/scalar path, and on big shapes that are not
// multiples of any tile (where fast tutorial kernels go wrong).
#include "tests/stage_check.h"

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

void check_small(const std::string& stage) {
    check_stage(stage);
    check_stage_on(stage, vector_path_shapes());
}

bool gpu_has_tf32() { return mml::gpu::probe().cc_major >= 8; }

}  // namespace

TEST_SUITE("gpu-lab8") {
    TEST_CASE("lab8.tile8x8: 8x8 register tiles") { check_small("lab8.tile8x8"); }
    TEST_CASE("lab8.float4: vector loads") { check_small("lab8.float4"); }
    TEST_CASE("lab8.no_conflicts: padded, split tiles") { check_small("lab8.no_conflicts"); }
    TEST_CASE("lab8.double_buffer: double buffering and warp tiles") { check_small("lab8.double_buffer"); }
    // Separate test cases so that slow runs (compute-sanitizer) can leave them
    // out with --test-case-exclude='*big*'.
    TEST_CASE("lab8.tile8x8: big odd shapes") { check_stage_on("lab8.tile8x8", big_odd_shapes()); }
    TEST_CASE("lab8.float4: big odd shapes") { check_stage_on("lab8.float4", big_odd_shapes()); }
    TEST_CASE("lab8.no_conflicts: big odd shapes") { check_stage_on("lab8.no_conflicts", big_odd_shapes()); }
    TEST_CASE("lab8.double_buffer: big odd shapes") { check_stage_on("lab8.double_buffer", big_odd_shapes()); }
    TEST_CASE("lab8.cublas: the peer (cuBLAS FP32)") { check_stage("lab8.cublas"); }
    // The TF32 stages need compute capability 8.0: tests/main.cpp excludes the
    // test cases named "(needs sm_80)" on older GPUs, so that doctest reports
    // them as skipped (with the reason printed first), never as passed.
    TEST_CASE("lab8.wmma_tf32: TF32 tensor cores (tf32_bound) (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_has_tf32(), "TF32 tensor cores need compute capability 8.0 (tests/main.cpp skips this test)");
        check_small("lab8.wmma_tf32");
    }
    TEST_CASE("lab8.wmma_tf32: big odd shapes (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_has_tf32(), "TF32 tensor cores need compute capability 8.0 (tests/main.cpp skips this test)");
        check_stage_on("lab8.wmma_tf32", big_odd_shapes());
    }
    TEST_CASE("lab8.cublas_tf32: cuBLAS with TF32 tensor cores (tf32_bound) (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_has_tf32(), "TF32 tensor cores need compute capability 8.0 (tests/main.cpp skips this test)");
        check_stage("lab8.cublas_tf32");
    }
    // The TF32 bound is looser than gamma_K but not vacuous: a TF32 result must
    // FAIL the FP32 bound at a size where rounding inputs to 10 bits shows, or
    // the two tolerances would not be telling the stages apart.
    TEST_CASE("lab8.wmma_tf32 is really TF32: it fails the FP32 bound (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_has_tf32(), "TF32 tensor cores need compute capability 8.0 (tests/main.cpp skips this test)");
        const mml::Stage* stage = mml::Registry::instance().find("lab8.wmma_tf32");
        REQUIRE(stage != nullptr);
        mml::Stage fp32_checked = *stage;
        fp32_checked.bound = [](Shape s, const mml::StageParams&) { return mml::classical_bound(s); };
        mml::Impl impl = mml::testing::impl_under_test();
        const auto r = mml::run_and_check(fp32_checked, impl, {256, 256, 256}, {}, mml::fresh_seed());
        CHECK_MESSAGE(!r.passed, "lab8.wmma_tf32 passed the FP32 bound gamma_K: are the inputs really rounded to TF32?");
    }
}
