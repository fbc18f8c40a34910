#include "harness/format.h"

#include <cstdio>

namespace mml {

std::string shape_text(Shape s) {
    if (s.M == s.N && s.N == s.K) return std::to_string(s.M) + "^3";
    return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

std::string fixed(double x, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, x);
    return buf;
}

}  // namespace mml
