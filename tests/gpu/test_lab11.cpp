// Lab 11: every stage is correct on the shared odd/tiny/rectangular shapes,
// on shapes at the edges of each kernel's tiles (k-tiles of 32 and 64, block
// tiles of 128 x 128 and 128 x 256, a pipeline of 4 stages), tall and wide
// ones, and big shapes that are multiples of nothing; the reduced precision is
// real (the results fail the FP32 check against the unrounded inputs) and
// reported; and a kernel that leaves out the last products of every sum fails
// the bound (FP8: the bound of its promoted 14-bit sums). Fresh U(-1,1) inputs and a poisoned C for every run
// (tests/stage_check.h). The Hopper stages' test cases are named
// "(needs sm_90)": tests/main.cpp skips them, with the reason, on other GPUs.
#include <cmath>
#include <cstring>
#include <vector>

#include "harness/cli.h"
#include "harness/gpu_backend.h"
#include "tests/stage_check.h"

using mml::Shape;
using mml::StageParams;
using mml::testing::check_stage;
using mml::testing::check_stage_on;

namespace {

// At the edges of every tile of the lab: one below, at and one above the
// k-tiles (32 bf16 in stages 1-2, 64 bf16 and 32 TF32 in stages 3-4) and the
// block tiles (128 x 128, 128 x 256), fewer k-tiles than pipeline stages and
// more, K below one 16-byte chunk (K = 1..7: ld = 8 with zeros), and tall,
// wide and skinny shapes.
const std::vector<Shape>& tile_edge_shapes() {
    static const std::vector<Shape> shapes = {
        {128, 256, 64},  {127, 255, 63},  {129, 257, 65},  {256, 512, 256}, {128, 128, 32},  {129, 129, 33},
        {33, 17, 7},     {5, 300, 2},     {300, 5, 3},     {64, 300, 9},    {200, 200, 257}, {131, 263, 320},
        {2049, 3, 100},  {3, 2049, 100},  {1, 1024, 64},   {1024, 1, 64},   {257, 129, 1031}, {17, 1000, 7},
    };
    return shapes;
}

// Big and odd: partial tiles at every edge, a partial last k-tile, several
// waves of the persistent grid (randomized check: Freivalds, the first and
// last rows and columns, random rows, columns and entries).
const std::vector<Shape>& big_odd_shapes() {
    static const std::vector<Shape> shapes = {{1000, 1000, 1000}, {4095, 4097, 1023}, {1025, 777, 2049}};
    return shapes;
}

// Long K (issue 27): more rows of B than a grid's y can count in tiles of 32
// (65535 x 32 = 2,097,120), so the operand conversion walks its tile rows;
// one tile of C and millions of k-tiles (lab 9's skinny shapes, here for lab 11).
const std::vector<Shape>& long_k_shapes() {
    static const std::vector<Shape> shapes = {{3, 3, 1048577}, {7, 9, 3000017}, {1, 1, 50000000}, {130, 1, 70001}};
    return shapes;
}

// Stream-K's cases on the H100's 132 SMs (the instructors' solutions/lab11/04_streamk_sm90a.cu:
// stage 3's tile width, then plan_stream_k streams the tiles of a last wave
// less than half full, each split among up to sqrt(k-tiles) blocks):
// 4000 x 2100 x 777 (544 tiles of 128 x 128, a last wave of 16, 13 k-tiles:
// ranges that start and end inside tiles), 2176 x 2048 x 4097 (272 tiles, 8
// streamed, 65 k-tiles over 72 blocks), 1100 x 4000 x 100 (288 tiles, 24
// streamed in pieces of 1 k-tile), 2176 x 2048 x 1 (K = 1: ranges of one
// whole tile), 5000^3 (800 tiles of 128 x 256, 8 streamed: the handout's
// case); and where it stays data-parallel: whole waves (4224 x 1024: 132
// tiles), fewer tiles than SMs (1000^3), N = 100. Other SM counts cut elsewhere.
const std::vector<Shape>& streamk_shapes() {
    static const std::vector<Shape> shapes = {{4000, 2100, 777}, {2176, 2048, 4097}, {1100, 4000, 100},
                                              {2176, 2048, 1},   {5000, 5000, 5000}, {4224, 1024, 333},
                                              {1000, 1000, 1000}, {2000, 100, 3001}};
    return shapes;
}

void check_all(const std::string& stage) {
    check_stage(stage);
    check_stage_on(stage, tile_edge_shapes());
}

bool gpu_is_hopper() { return mml::gpu::probe().cc_major == 9; }
bool gpu_has_bf16() { return mml::gpu::probe().cc_major >= 8; }

mml::CheckResult run(const mml::Stage& stage, Shape s, const StageParams& p = {}) {
    mml::Impl impl = mml::testing::impl_under_test();
    if (impl == mml::Impl::Student && !stage.student) impl = mml::Impl::Reference;
    return mml::run_and_check(stage, impl, s, p, mml::fresh_seed());
}

const mml::Stage& stage_named(const char* name) {  // (a char*: no temporary for the reference to outlive)
    const mml::Stage* s = mml::Registry::instance().find(name);
    REQUIRE_MESSAGE(s != nullptr, "stage " << name << " is not registered");
    return *s;
}

// A kernel told K - drop instead of K (--param drop_k, harness/stages/lab11/adapters.h)
// leaves out the last `drop` products of every sum: the check must fail it.
struct DropCase {
    Shape shape;
    long long drop;
    const char* what;
};
const std::vector<DropCase> kDropCases = {
    {{130, 260, 264}, 8, "the last partial k-tile (8 of 264)"},
    {{130, 260, 320}, 64, "the last whole k-tile of 64"},
    {{64, 64, 1024}, 8, "8 of 1024 products"},
};
// FP8's bound (fp8_tensor_core_bound) is about 3 % of |A~||B~|: it sees 8
// missing products out of 264 (their sum is ~0.9 x sqrt(8) against a bound
// of ~2.1) and a missing stage of 128 at any K, but not 8 out of 1024 - the
// tensor core's 14-bit sums may lose as much.
const std::vector<DropCase> kFp8DropCases = {
    {{130, 260, 264}, 8, "the last partial k-stage (8 of 264)"},
    {{130, 260, 384}, 128, "the last whole stage of 128"},
    {{64, 64, 1024}, 128, "128 of 1024 products"},
};

void check_dropped_products_fail(const char* stage, const std::vector<DropCase>& cases = kDropCases) {
    const std::string name = stage;  // (streamed into the messages as text, not as a pointer)
    for (const DropCase& c : cases) {
        StageParams p;
        p.values["drop_k"] = c.drop;
        const mml::CheckResult r = run(stage_named(stage), c.shape, p);
        CHECK_MESSAGE(!r.passed, name << " leaving out " << c.what << " at " << mml::shape_text(c.shape)
                                      << " passed the check (worst error / bound " << r.worst_ratio
                                      << "): the bound is too loose to catch a missing k-tile");
        if (!r.passed)
            CHECK_MESSAGE(r.failure.find("exceeds") != std::string::npos,
                          name << " with drop_k: expected an error beyond the bound, got: " << r.failure);
    }
}

// The rounding is real: against the UNROUNDED inputs the result is off by
// about the format's unit roundoff (reported in the table, not judged), and
// it fails the FP32 check there - else the check of rounded inputs would not
// be telling the formats apart.
void check_precision_shows(const char* stage_name, double at_least, double at_most) {
    const std::string name = stage_name;  // (streamed into the messages as text, not as a pointer)
    const mml::Stage& stage = stage_named(stage_name);
    const Shape s{256, 256, 256};
    const mml::CheckResult r = run(stage, s);
    REQUIRE_MESSAGE(r.passed, name << " is wrong at 256^3: " << r.failure);
    CHECK_MESSAGE(r.error_vs_unrounded >= at_least,
                  name << ": relative error against the unrounded inputs " << r.error_vs_unrounded
                       << " is below " << at_least << ": are the inputs really rounded?");
    CHECK_MESSAGE(r.error_vs_unrounded <= at_most,
                  name << ": relative error against the unrounded inputs " << r.error_vs_unrounded << " is above "
                       << at_most << " (the format's rounding alone gives less)");
    mml::Stage as_fp32 = stage;
    as_fp32.input_rounding = mml::InputRounding::None;
    as_fp32.bound = [](Shape shape, const StageParams&) { return mml::classical_bound(shape); };
    CHECK_MESSAGE(!run(as_fp32, s).passed,
                  name << " passed the FP32 bound gamma_K against the unrounded inputs: are they really rounded?");
}

}  // namespace

TEST_SUITE("gpu-lab11") {
    // bf16 stages on any GPU with bf16 tensor cores (sm_80 and newer: A100, H100...).
    TEST_CASE("lab11.wmma_bf16: WMMA bf16 (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_has_bf16(), "bf16 tensor cores need compute capability 8.0 (tests/main.cpp skips this test)");
        check_all("lab11.wmma_bf16");
    }
    TEST_CASE("lab11.mma_sync: mma.sync + ldmatrix + cp.async (needs sm_80)") {
        REQUIRE_MESSAGE(gpu_has_bf16(), "bf16 tensor cores need compute capability 8.0 (tests/main.cpp skips this test)");
        check_all("lab11.mma_sync");
    }
    TEST_CASE("lab11.wgmma: TMA + wgmma, warp-specialized, persistent (needs sm_90)") {
        REQUIRE_MESSAGE(gpu_is_hopper(), "wgmma and TMA need a Hopper GPU (tests/main.cpp skips this test)");
        check_all("lab11.wgmma");
    }
    TEST_CASE("lab11.wgmma_tf32: the TF32 variant (needs sm_90)") {
        REQUIRE_MESSAGE(gpu_is_hopper(), "wgmma and TMA need a Hopper GPU (tests/main.cpp skips this test)");
        check_all("lab11.wgmma_tf32");
    }
    TEST_CASE("lab11.wgmma_streamk: stream-K + data-parallel tiles (needs sm_90)") {
        REQUIRE_MESSAGE(gpu_is_hopper(), "wgmma and TMA need a Hopper GPU (tests/main.cpp skips this test)");
        check_all("lab11.wgmma_streamk");
    }
    TEST_CASE("lab11.wgmma_fp8: FP8 e4m3, sums promoted every stage (needs sm_90)") {
        REQUIRE_MESSAGE(gpu_is_hopper(), "wgmma and TMA need a Hopper GPU (tests/main.cpp skips this test)");
        check_all("lab11.wgmma_fp8");
    }
    TEST_CASE("lab11.cublas_bf16: the peer (needs sm_80)") { check_stage("lab11.cublas_bf16"); }
    // cuBLASLt's FP8 kernels with dimensions as they come and, where it has
    // none, padded to 16 (peers/peer_cublaslt_fp8.cu): both paths.
    TEST_CASE("lab11.cublaslt_fp8: the FP8 peer (needs sm_90)") {
        check_stage("lab11.cublaslt_fp8");
        check_stage_on("lab11.cublaslt_fp8", tile_edge_shapes());
    }
    TEST_CASE("lab11.cublas_tf32: the TF32 peer (needs sm_80)") { check_stage("lab11.cublas_tf32"); }

    // Separate test cases so that slow runs (compute-sanitizer) can leave them
    // out with --test-case-exclude='*big odd*'.
    TEST_CASE("lab11.wmma_bf16: big odd shapes (needs sm_80)") { check_stage_on("lab11.wmma_bf16", big_odd_shapes()); }
    TEST_CASE("lab11.mma_sync: big odd shapes (needs sm_80)") { check_stage_on("lab11.mma_sync", big_odd_shapes()); }
    TEST_CASE("lab11.wgmma: big odd shapes (needs sm_90)") { check_stage_on("lab11.wgmma", big_odd_shapes()); }
    TEST_CASE("lab11.wgmma_tf32: big odd shapes (needs sm_90)") {
        check_stage_on("lab11.wgmma_tf32", big_odd_shapes());
    }
    TEST_CASE("lab11.wgmma_fp8: big odd shapes (needs sm_90)") { check_stage_on("lab11.wgmma_fp8", big_odd_shapes()); }
    TEST_CASE("lab11.wgmma_fp8: big odd shapes, long K (needs sm_90)") {
        check_stage_on("lab11.wgmma_fp8", long_k_shapes());
    }
    TEST_CASE("lab11.wgmma_streamk: big odd shapes, the last wave shared out (needs sm_90)") {
        if (check_stage_on("lab11.wgmma_streamk", big_odd_shapes()))
            check_stage_on("lab11.wgmma_streamk", streamk_shapes());
    }
    TEST_CASE("lab11.wgmma_streamk: big odd shapes, long K (needs sm_90)") {
        check_stage_on("lab11.wgmma_streamk", long_k_shapes());
    }
    // The owner of a tile adds the other blocks' partials in block order: the
    // same inputs give the same bits, run after run (atomicAdd would not).
    TEST_CASE("lab11.wgmma_streamk: the same bits on every run (needs sm_90)") {
        const mml::Stage& stage = stage_named("lab11.wgmma_streamk");
        const mml::MatmulFn& fn = mml::version_of(stage, mml::testing::impl_under_test());
        for (const Shape s : {Shape{4000, 2100, 777}, Shape{2176, 2048, 4097}}) {
            mml::Problem problem(s);
            const mml::CheckedRun first = mml::run_once_and_verify(stage, fn, problem, {});
            REQUIRE_MESSAGE(first.check.passed,
                            "lab11.wgmma_streamk is wrong at " << mml::shape_text(s) << ": " << first.check.failure);
            const std::vector<float> kept(problem.C.data(), problem.C.data() + problem.C.size());
            for (int run = 0; run < 3; ++run) {
                REQUIRE(mml::run_once_and_verify(stage, fn, problem, {}).check.passed);
                CHECK_MESSAGE(std::memcmp(kept.data(), problem.C.data(), sizeof(float) * kept.size()) == 0,
                              "lab11.wgmma_streamk gave different bits on the same inputs at "
                                  << mml::shape_text(s) << ": are the partials added in a fixed order?");
            }
        }
    }
    TEST_CASE("lab11.wmma_bf16: big odd shapes, long K (needs sm_80)") {
        check_stage_on("lab11.wmma_bf16", long_k_shapes());
    }
    TEST_CASE("lab11.mma_sync: big odd shapes, long K (needs sm_80)") {
        check_stage_on("lab11.mma_sync", long_k_shapes());
    }
    TEST_CASE("lab11.wgmma: big odd shapes, long K (needs sm_90)") { check_stage_on("lab11.wgmma", long_k_shapes()); }
    TEST_CASE("lab11.wgmma_tf32: big odd shapes, long K (needs sm_90)") {
        check_stage_on("lab11.wgmma_tf32", long_k_shapes());
    }
    TEST_CASE("lab11.cublas_bf16: big odd shapes, long K (needs sm_80)") {
        check_stage_on("lab11.cublas_bf16", long_k_shapes());
    }

    // A wrong kernel fails the reduced-precision bound: it is not vacuous.
    TEST_CASE("lab11.wmma_bf16: leaving out products fails the check (needs sm_80)") {
        check_dropped_products_fail("lab11.wmma_bf16");
    }
    TEST_CASE("lab11.mma_sync: leaving out products fails the check (needs sm_80)") {
        check_dropped_products_fail("lab11.mma_sync");
    }
    TEST_CASE("lab11.wgmma: leaving out products fails the check (needs sm_90)") {
        check_dropped_products_fail("lab11.wgmma");
    }
    TEST_CASE("lab11.wgmma_streamk: leaving out products fails the check (needs sm_90)") {
        check_dropped_products_fail("lab11.wgmma_streamk");
    }
    TEST_CASE("lab11.wgmma_fp8: leaving out products fails the check (needs sm_90)") {
        check_dropped_products_fail("lab11.wgmma_fp8", kFp8DropCases);
    }
    TEST_CASE("lab11.wgmma_tf32: leaving out products fails the check (needs sm_90)") {
        check_dropped_products_fail("lab11.wgmma_tf32");
    }

    // bf16 keeps 8 significant bits (u = 2^-9 relative, rounded to nearest),
    // TF32 11 (2^-12): the relative error of a product of random inputs is
    // about u times a small constant.
    TEST_CASE("lab11.wmma_bf16 is really bf16: the error against the unrounded inputs (needs sm_80)") {
        check_precision_shows("lab11.wmma_bf16", 3e-4, 1e-2);
    }
    TEST_CASE("lab11.cublas_bf16 is really bf16 (needs sm_80)") { check_precision_shows("lab11.cublas_bf16", 3e-4, 1e-2); }
    // e4m3 keeps 4 significant bits (u = 2^-4).
    TEST_CASE("lab11.wgmma_fp8 is really FP8 e4m3 (needs sm_90)") {
        check_precision_shows("lab11.wgmma_fp8", 5e-3, 0.16);
    }
    TEST_CASE("lab11.cublaslt_fp8 is really FP8 e4m3 (needs sm_90)") {
        check_precision_shows("lab11.cublaslt_fp8", 5e-3, 0.16);
    }
    TEST_CASE("lab11.wgmma_tf32 is really TF32 (needs sm_90)") {
        check_precision_shows("lab11.wgmma_tf32", 4e-5, 1.5e-3);
    }

    TEST_CASE("lab11: --param drop_k takes multiples of 8 only") {
        const mml::Stage& s = stage_named("lab11.wgmma");
        REQUIRE(s.check_params);
        StageParams p;
        p.values["drop_k"] = 3;
        CHECK_THROWS_AS(s.check_params(p), mml::UsageError);
        p.values["drop_k"] = 16;
        CHECK_NOTHROW(s.check_params(p));
    }
}
