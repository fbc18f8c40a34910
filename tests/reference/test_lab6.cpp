// Lab 6 with its reference kernel, in builds that hold the answers (this
// folder is linked only then): the harness names a kernel that stores past
// the end of C. It needs a kernel known to be right but for one mistake made
// on purpose, which only the reference provides; the student's code is
// tested in tests/gpu/test_lab6.cpp.
#include <doctest/doctest.h>

#include <stdexcept>

#include "harness/run_stage.h"

TEST_SUITE("gpu-reference-lab6") {
    // A naive kernel without its `row < M` check stores rows past the end of C;
    // the verifier sees only C, so the harness keeps a poisoned guard band
    // behind it. Here the reference kernel, started one row too low, writes
    // C's last row into the guard band (its reads stay inside A and B).
    TEST_CASE("the harness names a kernel that stores past the end of C") {
        const mml::Stage* stage = mml::Registry::instance().find("lab6.naive_coalesced");
        REQUIRE(stage != nullptr);
        REQUIRE(stage->reference);
        mml::Stage one_row_low = *stage;
        one_row_low.reference = [right = stage->reference](const float* A, const float* B, float* C, mml::Shape s,
                                                           const mml::StageParams& p) { right(A, B, C + s.N, s, p); };
        CHECK_THROWS_WITH_AS(mml::run_and_check(one_row_low, mml::Impl::Reference, {5, 7, 3}, {}, mml::fresh_seed()),
                             doctest::Contains("wrote past the end of C"), std::runtime_error);
    }
}
