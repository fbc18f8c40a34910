// Lab 8's target judge, on made-up measurements (no GPU needed; built where
// CUDA is, since the lab is registered only there).
#include <doctest/doctest.h>

#include "harness/stage.h"
#include "tests/made_up_row.h"

using mml::Impl;
using mml::Measurement;
using mml::Shape;

namespace {

Measurement row(const char* stage, Impl impl, Shape s, double seconds) {
    return mml::testing::made_up_row(stage, impl, s, seconds);
}

mml::TargetVerdict judge(const std::vector<Measurement>& rows) {
    const mml::Lab* lab = mml::Registry::instance().find_lab(8);
    REQUIRE(lab != nullptr);
    return lab->judge(rows);
}

const Shape k4096{4096, 4096, 4096}, k8192{8192, 8192, 8192}, k1024{1024, 1024, 1024};

}  // namespace

// (Suite "targets", not "lab8": the judge, not the student's code.)
TEST_SUITE("targets") {
    TEST_CASE("lab8 judge: met at 90% of cuBLAS at 4096 and 8192, small sizes not judged") {
        const auto v = judge({row("lab8.cublas", Impl::Reference, k4096, 2.7e-3),
                              row("lab8.double_buffer", Impl::Student, k4096, 3.0e-3),
                              row("lab8.register_tile", Impl::Student, k4096, 8.0e-3),
                              row("lab8.cublas", Impl::Reference, k8192, 21e-3),
                              row("lab8.double_buffer", Impl::Student, k8192, 23.5e-3),
                              row("lab8.cublas", Impl::Reference, k1024, 66e-6),
                              row("lab8.double_buffer", Impl::Student, k1024, 120e-6)});
        CHECK_MESSAGE(v.met, v.explanation);
        CHECK(v.explanation.find("not judged") != std::string::npos);
    }
    TEST_CASE("lab8 judge: not met at 80% at 8192") {
        const auto v = judge({row("lab8.cublas", Impl::Reference, k4096, 2.7e-3),
                              row("lab8.double_buffer", Impl::Student, k4096, 3.0e-3),
                              row("lab8.cublas", Impl::Reference, k8192, 20e-3),
                              row("lab8.double_buffer", Impl::Student, k8192, 25e-3)});
        CHECK_FALSE(v.met);
    }
    TEST_CASE("lab8 judge: the TF32 stage does not count as the FP32 stage") {
        const auto v = judge({row("lab8.cublas", Impl::Reference, k4096, 2.7e-3),
                              row("lab8.wmma_tf32", Impl::Student, k4096, 2.0e-3),
                              row("lab8.double_buffer", Impl::Student, k4096, 5.0e-3)});
        CHECK_FALSE(v.met);
    }
    TEST_CASE("lab8 judge: a wrong stage fails the target, and so does no large size") {
        Measurement wrong = row("lab8.vector_loads", Impl::Student, k4096, 1e-3);
        wrong.passed = false;
        wrong.failure = "C[0][0] was never written";
        CHECK_FALSE(judge({row("lab8.cublas", Impl::Reference, k4096, 2.7e-3), wrong,
                           row("lab8.double_buffer", Impl::Student, k4096, 2.8e-3)})
                        .met);
        CHECK_FALSE(judge({row("lab8.cublas", Impl::Reference, k1024, 66e-6),
                           row("lab8.double_buffer", Impl::Student, k1024, 60e-6)})
                        .met);
    }
}
