#include "cpu/stats.h"

#include <algorithm>

namespace mml {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double relative_spread(const std::vector<double>& v) {
    const double mid = median(v);
    if (v.empty() || mid <= 0) return 0;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return (*hi - *lo) / mid;
}

}  // namespace mml
