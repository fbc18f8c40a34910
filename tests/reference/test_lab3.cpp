// Lab 3's reference, checked where it is not the student's business: it
// agrees bit for bit with the sequential Strassen that lab 4 is given
// (labs/common/strassen_recursion.cpp). The two are separate copies of one
// algorithm - the answer to lab 3's tasks, and the building block that a lab 4
// starter needs without lab 3's answers - so this is what keeps them one.
// Built only when the references are (tests/reference/, NO_REFERENCE=1 leaves it out).
#include <doctest/doctest.h>

#include <cstring>

#include "harness/run_stage.h"
#include "harness/targets.h"
#include "labs/common/strassen_recursion.h"

using namespace mml;

TEST_SUITE("reference-lab3") {
    TEST_CASE("the reference lab3.strassen is bit for bit lab 4's given Strassen") {
        const Stage* stage = Registry::instance().find("lab3.strassen");
        REQUIRE(stage != nullptr);
        REQUIRE(stage->reference);
        for (Shape s : {Shape{64, 64, 64}, Shape{127, 129, 131}, Shape{300, 200, 100}, Shape{65, 33, 17}, Shape{2, 2, 2}}) {
            for (long long cutoff : {1LL, 8LL, 32LL, 1LL << 40}) {
                Matrix A(s.M, s.K), B(s.K, s.N), given(s.M, s.N), ref(s.M, s.N);
                fill_uniform(A, fresh_seed());
                fill_uniform(B, fresh_seed());
                common::lab3::matmul_strassen(A.data(), B.data(), given.data(), s.M, s.N, s.K, cutoff);
                StageParams p;
                p.values["cutoff"] = cutoff;
                poison(ref);
                stage->reference(A.data(), B.data(), ref.data(), s, p);
                const bool same = std::memcmp(given.data(), ref.data(), sizeof(float) * std::size_t(ref.size())) == 0;
                CHECK_MESSAGE(same, "solutions/lab3/strassen.cpp and labs/common/strassen_recursion.cpp differ at "
                                        << shape_text(s) << ", cutoff " << cutoff
                                        << ": the same products must be added in the same order in both");
            }
        }
    }
}
