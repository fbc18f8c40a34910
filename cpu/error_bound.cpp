#include "cpu/error_bound.h"

#include <limits>

namespace mml {

double gamma_n(double n, double u) {
    const double nu = n * u;
    if (nu >= 1.0) return std::numeric_limits<double>::infinity();
    return nu / (1.0 - nu);
}

ErrorBound classical_bound(Shape s) {
    return {ErrorBound::Kind::Elementwise, gamma_n(double(s.K), kFloat32UnitRoundoff),
            "gamma_K*|A||B|, u=2^-24"};
}

ErrorBound tf32_bound(Shape s) {
    const double u_tf32 = 1.0 / 2048.0;  // 2^-11: 10 explicit mantissa bits
    return {ErrorBound::Kind::Elementwise,
            2 * u_tf32 + u_tf32 * u_tf32 + gamma_n(double(s.K), kFloat32UnitRoundoff),
            "(2u_tf32+gamma_K)*|A||B|, u_tf32=2^-11"};
}

ErrorBound tensor_core_bound(Shape s) {
    const double u_truncation = 1.0 / 8388608.0;  // 2^-23: float32's significand, rounded toward zero
    return {ErrorBound::Kind::Elementwise, gamma_n(2.0 * double(s.K), u_truncation),
            "gamma_2K*|A~||B~|, u=2^-23 (truncation), A~,B~ rounded inputs"};
}

}  // namespace mml
