// Tolerances derived from the error analysis of each algorithm, never tuned.
//
// Classical product in float32, any summation order, with or without FMA
// (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., eq. 3.13):
//     |C - fl(A*B)| <= gamma_K * |A|*|B|,   gamma_K = K*u / (1 - K*u),
// element by element, where u = 2^-24 is float32's unit roundoff. A result
// outside that bound cannot come from rounding: it is a bug.
//
// Algorithms that do not satisfy the element-wise bound (Strassen) state a
// norm-wise bound instead:  max|C - fl(A*B)| <= factor * max|A| * max|B|.
#pragma once

#include <string>

#include "cpu/matrix.h"

namespace mml {

constexpr double kFloat32UnitRoundoff = 1.0 / 16777216.0;  // 2^-24
constexpr double kFloat64UnitRoundoff = 1.0 / 9007199254740992.0;  // 2^-53

// gamma_n = n*u / (1 - n*u); +inf when n*u >= 1 (the bound says nothing).
double gamma_n(double n, double u);

struct ErrorBound {
    enum class Kind { Elementwise, Normwise };
    Kind kind = Kind::Elementwise;
    double factor = 0.0;       // multiplies (|A||B|)_ij, or max|A|*max|B|
    std::string formula;       // for reports, e.g. "gamma_K(u=2^-24)"
};

// The classical float32 bound above.
ErrorBound classical_bound(Shape s);

// Tensor-core TF32: inputs are rounded to 10 mantissa bits (u = 2^-11) before
// the products, which are then summed in float32:
//     |C - fl(A*B)| <= (2*u_tf32 + u_tf32^2 + gamma_K) * |A|*|B|.
ErrorBound tf32_bound(Shape s);

}  // namespace mml
