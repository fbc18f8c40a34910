#include "cpu/reference.h"

#include <cmath>

namespace mml {

void reference_product_f64(const float* A, const float* B, Shape s, std::vector<double>& C,
                           std::vector<double>& absC) {
    C.assign(std::size_t(s.M * s.N), 0.0);
    absC.assign(std::size_t(s.M * s.N), 0.0);
    // i-k-j order: the inner loop walks a row of B and a row of C with unit
    // stride, so even this simple reference runs at a few GFLOP/s.
    for (std::int64_t i = 0; i < s.M; ++i) {
        double* c = &C[std::size_t(i * s.N)];
        double* ac = &absC[std::size_t(i * s.N)];
        for (std::int64_t k = 0; k < s.K; ++k) {
            const double a = A[i * s.K + k];
            const double aa = std::fabs(a);
            const float* b = B + k * s.N;
            for (std::int64_t j = 0; j < s.N; ++j) {
                c[j] += a * double(b[j]);
                ac[j] += aa * std::fabs(double(b[j]));
            }
        }
    }
}

void reference_entry_f64(const float* A, const float* B, Shape s, std::int64_t i,
                         std::int64_t j, double& c, double& absc) {
    c = 0.0;
    absc = 0.0;
    for (std::int64_t k = 0; k < s.K; ++k) {
        const double p = double(A[i * s.K + k]) * double(B[k * s.N + j]);
        c += p;
        absc += std::fabs(p);
    }
}

}  // namespace mml
