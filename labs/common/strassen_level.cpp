// Given code (labs 3 and 4): one level of Strassen's recursion (strassen_level.h).
#include "labs/common/strassen_level.h"

#include <memory>

#include "labs/common/classical_kernel.h"
#include "labs/common/strassen_fix_ups.h"
#include "labs/common/strassen_plan.h"

namespace common::lab3 {

void strassen_level(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff, float* work,
                    StrassenTasks tasks) {
    if (stops_at_base_case(s, cutoff)) {
        classical_kernel(A.p, A.ld, B.p, B.ld, C.p, C.ld, s.M, s.N, s.K, false);
        return;
    }
    const mml::Shape h = halves(s);
    const Quadrants q = split(A, B, h);
    const CQuadrants c = split(C, h);
    float* Z = work;  // h.M x h.N: each product in turn
    float* product_work = work + h.M * h.N;
    for (int product = 0; product < 7; ++product) {
        tasks.form_and_multiply(product, q, Z, product_work, cutoff);
        tasks.combine_into_c(product, Z, h.N, c, 0, h.M, h.N);
    }
    fix_up_peeled(A, B, C, s);
}

void with_workspace(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                    std::int64_t cutoff, Recursion recurse) {
    const mml::Shape s{M, N, K};
    const std::int64_t floats = workspace_floats(s, cutoff);
    std::unique_ptr<float[]> work(floats > 0 ? new float[std::size_t(floats)] : nullptr);
    recurse({A, K}, {B, N}, {C, N}, s, cutoff, work.get());
}

}  // namespace common::lab3
