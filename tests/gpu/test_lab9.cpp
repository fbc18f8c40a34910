// Lab 9 on the GPU: BasicMM, PHVM, cuBLAS and the one-pass kernel on skinny
// shapes (small K, K not a multiple of GS*BS, M = N = 1, M != N), with the
// PHVM parameters varied, plus the error bounds each stage is checked against.
#include <cmath>

#include "harness/cli.h"
#include "harness/stages/lab9/lab9.h"
#include "tests/stage_check.h"

using mml::Shape;
using mml::StageParams;
using mml::testing::check_stage_on;

namespace {

const std::vector<Shape>& skinny_shapes() {
    static const std::vector<Shape> s = {
        {1, 1, 1},     {1, 1, 1000},  {1, 1, 100003}, {2, 3, 5},     {3, 2, 4099},
        {5, 5, 65536}, {3, 7, 33333}, {9, 9, 20000},  {4, 1, 12345}, {1, 6, 777},
    };
    return s;
}

StageParams gs_bs(long long gs, long long bs) {
    StageParams p;
    p.values["gs"] = gs;
    p.values["bs"] = bs;
    return p;
}

}  // namespace

TEST_SUITE("gpu-lab9") {
    TEST_CASE("lab9.phvm: default configuration (GS*BS fills the GPU)") { check_stage_on("lab9.phvm", skinny_shapes()); }

    TEST_CASE("lab9.phvm: odd configurations: K not a multiple of GS*BS, BS not a power of two, one block, largest block") {
        for (const StageParams& p : {gs_bs(3, 96), gs_bs(7, 32), gs_bs(1, 160), gs_bs(2, 1024)})
            check_stage_on("lab9.phvm", skinny_shapes(), p);
    }

    TEST_CASE("lab9.basicmm: default configuration") { check_stage_on("lab9.basicmm", skinny_shapes()); }

    TEST_CASE("lab9.basicmm: odd configurations") {
        check_stage_on("lab9.basicmm", skinny_shapes(), gs_bs(3, 96));
        check_stage_on("lab9.basicmm", skinny_shapes(), gs_bs(1, 32));
    }

    TEST_CASE("lab9.one_pass: skinny shapes, and tiles for M or N > 9") {
        check_stage_on("lab9.one_pass", skinny_shapes());
        check_stage_on("lab9.one_pass", {{10, 9, 4096}, {9, 19, 1001}, {13, 11, 333}, {17, 31, 63}, {64, 1, 33}});
        StageParams scalar;
        scalar.values["kstep"] = 1;  // the one-k-per-step path on shapes where 16-byte loads would apply
        check_stage_on("lab9.one_pass", {{5, 5, 65536}, {9, 9, 20000}, {1, 1, 1000}}, scalar);
    }

    TEST_CASE("lab9.cublas: the peer row on the same shapes") { check_stage_on("lab9.cublas", skinny_shapes()); }

    TEST_CASE("PHVM parameters: a BS that is not whole warps is refused") {
        const mml::Stage* s = mml::Registry::instance().find("lab9.phvm");
        REQUIRE(s);
        CHECK_THROWS_AS(s->bound({5, 5, 1000}, gs_bs(10, 100)), mml::UsageError);
        CHECK_THROWS_AS(s->bound({5, 5, 1000}, gs_bs(10, 2048)), mml::UsageError);
        CHECK_THROWS_AS(s->bound({5, 5, 1000}, gs_bs(0, 256)), mml::UsageError);
    }

    TEST_CASE("error bounds follow each kernel's summation depth, and stay finite at MTXB") {
        const Shape mtxb{5, 5, 300000000};
        auto& reg = mml::Registry::instance();
        const auto phvm = reg.find("lab9.phvm")->bound(mtxb, gs_bs(1056, 256));
        const auto one = reg.find("lab9.one_pass")->bound(mtxb, {});
        const auto cub = reg.find("lab9.cublas")->bound(mtxb, {});
        // gamma_K would be infinite here (K*u = 17.9).
        CHECK(std::isinf(mml::classical_bound(mtxb).factor));
        CHECK(std::isfinite(phvm.factor));
        CHECK(phvm.factor < 1e-3);  // n = 1110 + 8 + 1056 + 2
        CHECK(one.factor < 1e-3);
        CHECK(cub.formula.find("probabilistic") != std::string::npos);
        CHECK(cub.factor < 0.05);
        // More blocks: more atomicAdds in the chain, a larger bound.
        CHECK(reg.find("lab9.phvm")->bound(mtxb, gs_bs(8448, 256)).factor > phvm.factor);
        // Below K*u = 1, cuBLAS gets the classical bound.
        CHECK(reg.find("lab9.cublas")->bound({5, 5, 1000}, {}).factor == mml::classical_bound({5, 5, 1000}).factor);
    }
}
