// Lab 6 with its reference kernel, in builds that hold the answers (this
// folder is linked only then): the harness names a kernel that stores past
// the end of C. It needs a kernel known to be right but for one mistake made
// on purpose, which only the reference provides; the student's code is
// tested in tests/gpu/test_lab6.cpp.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

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
        // (doctest::Contains would say this in one line, but it is 2.4.9+ and
        // Ubuntu 22.04 ships 2.4.8: tools/check-package-versions.sh.)
        std::string message = "(nothing thrown)";
        try {
            mml::run_and_check(one_row_low, mml::Impl::Reference, {5, 7, 3}, {}, mml::fresh_seed());
        } catch (const std::runtime_error& e) {
            message = e.what();
        }
        CHECK_MESSAGE(message.find("wrote past the end of C") != std::string::npos, message);
    }
}
