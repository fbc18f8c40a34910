// Given code (labs 3 and 4): Strassen's norm-wise error bound, following the
// recursion level by level (the derivation is in strassen_bound.h).
#include "labs/common/strassen_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "labs/common/strassen_plan.h"

namespace common::lab3 {

double strassen_error_constant(mml::Shape s, std::int64_t cutoff) {
    const double K = double(s.K);
    if (stops_at_base_case(s, cutoff)) return K * K;  // classical: gamma_K * K
    const mml::Shape h = halves(s);
    const double K2 = 2.0 * double(h.K);
    double core = 12.0 * strassen_error_constant(h, cutoff) + 25.0 * K2;
    if (s.K % 2) core += K + 1.0;                              // the rank-1 update
    const double peeled = (s.M % 2 || s.N % 2) ? K * K : 0.0;  // classical row / column
    return std::max(core, peeled);
}

double higham_strassen_constant(double n, double n0) {
    return std::pow(n / n0, std::log2(12.0)) * (n0 * n0 + 5.0 * n0) - 5.0 * n;
}

mml::ErrorBound strassen_bound(mml::Shape s, std::int64_t cutoff) {
    const double fu = strassen_error_constant(s, cutoff) * mml::kFloat32UnitRoundoff;
    const double factor = fu < 1.0 ? fu / (1.0 - fu) : std::numeric_limits<double>::infinity();
    return {mml::ErrorBound::Kind::Normwise, factor,
            "Strassen norm-wise (Higham Thm 23.2, cutoff " + std::to_string(cutoff) +
                "): f*u*max|A|*max|B|, u=2^-24"};
}

}  // namespace common::lab3
