// Lab 3's reference, inside: its recursion (solutions/lab3/strassen_recursion.cpp,
// which lab 4 is given compiled) uses exactly the workspace the given plan
// sizes (labs/common/strassen_plan.h) and not one float past it. Not the
// student's business (the "lab3" suite tests the stages of either version):
// built only when the references are (tests/reference/; NO_REFERENCE=1 leaves
// it out).
#include <doctest/doctest.h>

#include <vector>

#include "cpu/verify.h"
#include "labs/common/strassen_bound.h"
#include "labs/common/strassen_plan.h"
#include "labs/common/strassen_recursion.h"
#include "tests/stage_check.h"

using namespace mml;

TEST_SUITE("reference-lab3") {
    TEST_CASE("workspace: workspace_floats is exactly what the recursion uses") {
        namespace l3 = common::lab3;
        // Square powers of two: three half-size matrices (Z, X, Y) per level.
        CHECK(l3::workspace_floats({256, 256, 256}, 32) == 3 * (128 * 128 + 64 * 64 + 32 * 32));
        CHECK(l3::workspace_floats({256, 256, 256}, 256) == 0);
        // Rectangles: Z = m x n, X = m x k, Y = k x n with the level's halves.
        CHECK(l3::workspace_floats({10, 20, 40}, 5) == 5 * 10 + 5 * 20 + 20 * 10);
        // The recursion writes inside it and not one float past it.
        constexpr float kCanary = 12345.0f;
        for (Shape s : {Shape{127, 63, 31}, Shape{128, 128, 128}, Shape{300, 200, 100}, Shape{1, 1, 1}}) {
            for (long long c : {1LL, 7LL, 32LL}) {
                const std::int64_t need = l3::workspace_floats(s, c);
                std::vector<float> work(std::size_t(need + 64), kCanary);
                Matrix A(s.M, s.K), B(s.K, s.N), C(s.M, s.N);
                const auto seed = fresh_seed();
                fill_inputs(A, B, seed);
                poison(C);
                l3::strassen_recursive({A.data(), s.K}, {B.data(), s.N}, {C.data(), s.N}, s, c, work.data());
                bool canaries_intact = true;
                for (std::int64_t e = need; e < need + 64; ++e) canaries_intact &= work[std::size_t(e)] == kCanary;
                CHECK_MESSAGE(canaries_intact, "the recursion wrote past workspace_floats() at " << shape_text(s)
                                                   << ", cutoff " << c);
                const CheckResult r = verify_product(A.data(), B.data(), C.data(), s, l3::strassen_bound(s, c),
                                                     VerifyMethod::Full, seed);
                CHECK_MESSAGE(r.passed, shape_text(s) << ", cutoff " << c << ": " << r.failure);
            }
        }
    }
}
