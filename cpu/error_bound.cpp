#include "cpu/error_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
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

ErrorBound fp8_tensor_core_bound(Shape s) {
    const double u_accumulator = 1.0 / 8192.0;  // 2^-13: 14 significant bits, truncated
    const double c = double(std::min<std::int64_t>(s.K, kFp8PromotionK));
    const double chunks = std::ceil(double(s.K) / c);
    const double g = gamma_n(2.0 * c, u_accumulator);
    return {ErrorBound::Kind::Elementwise, g + gamma_n(chunks, kFloat32UnitRoundoff) * (1.0 + g),
            "(g+gamma_n(2^-24)(1+g))*|A~||B~|, g=gamma_2c(2^-13), c=min(K,128), n=ceil(K/c), A~,B~ e4m3"};
}

}  // namespace mml
