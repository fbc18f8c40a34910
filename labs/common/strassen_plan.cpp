// Given code (labs 3 and 4): the plan of Strassen's recursion, every
// decision that depends on the shape alone. The recursion, the workspace size
// and the error bound (strassen_bound.cpp) all follow these two functions, so
// they cannot disagree about where the recursion stops or how a level splits.
#include "labs/common/strassen_plan.h"

#include <algorithm>

namespace common::lab3 {

// Stop when ANY dimension is small: halving a 4096 x 4096 x 8 product would
// give 7 products of 2048 x 2048 x 4 - more additions of big matrices to save
// a few multiplications along the tiny K. (cutoff >= 1, so a split level
// always has M, N, K >= 2 and halves >= 1.)
bool stops_at_base_case(mml::Shape s, std::int64_t cutoff) {
    return std::min({s.M, s.N, s.K}) <= cutoff;
}

mml::Shape halves(mml::Shape s) { return {s.M / 2, s.N / 2, s.K / 2}; }

std::int64_t product_workspace_floats(mml::Shape h, std::int64_t cutoff) {
    return h.M * h.K + h.K * h.N + workspace_floats(h, cutoff);  // X, Y, the levels below
}

std::int64_t workspace_floats(mml::Shape s, std::int64_t cutoff) {
    if (stops_at_base_case(s, cutoff)) return 0;  // the classical kernel needs none
    const mml::Shape h = halves(s);
    return h.M * h.N + product_workspace_floats(h, cutoff);  // Z, then one product at a time
}

}  // namespace common::lab3
