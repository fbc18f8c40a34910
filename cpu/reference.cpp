#include "cpu/reference.h"

#include <algorithm>
#include <cmath>

namespace mml {

void reference_product_f64(const float* A, const float* B, Shape s, std::vector<double>& C,
                           std::vector<double>& absC) {
    const std::size_t mn = std::size_t(s.M * s.N);
    const std::int64_t chunks = (s.K + kReferenceChunk - 1) / kReferenceChunk;
    // One M x N partial sum per run of k (a single run for K <= 65536, so small
    // products cost no extra memory); the run totals are added in order below.
    std::vector<double> part(std::size_t(chunks) * mn, 0.0), abspart(std::size_t(chunks) * mn, 0.0);
#pragma omp parallel for schedule(dynamic) if (chunks > 1 && double(s.M) * s.N * s.K > 1e7)
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
        const std::int64_t k0 = ch * kReferenceChunk, k1 = std::min(s.K, k0 + kReferenceChunk);
        double* cpart = &part[std::size_t(ch) * mn];
        double* apart = &abspart[std::size_t(ch) * mn];
        // i-k-j order: the inner loop walks a row of B and a row of C with unit
        // stride, so even this simple reference runs at a few GFLOP/s.
        for (std::int64_t i = 0; i < s.M; ++i) {
            double* c = cpart + i * s.N;
            double* ac = apart + i * s.N;
            for (std::int64_t k = k0; k < k1; ++k) {
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
    if (chunks == 1) {
        C.swap(part);
        absC.swap(abspart);
        return;
    }
    C.assign(mn, 0.0);
    absC.assign(mn, 0.0);
    for (std::int64_t ch = 0; ch < chunks; ++ch)
        for (std::size_t e = 0; e < mn; ++e) {
            C[e] += part[std::size_t(ch) * mn + e];
            absC[e] += abspart[std::size_t(ch) * mn + e];
        }
}

void reference_entry_f64(const float* A, const float* B, Shape s, std::int64_t i,
                         std::int64_t j, double& c, double& absc) {
    c = 0.0;
    absc = 0.0;
    for (std::int64_t k0 = 0; k0 < s.K; k0 += kReferenceChunk) {
        const std::int64_t k1 = std::min(s.K, k0 + kReferenceChunk);
        double run = 0.0, absrun = 0.0;
        for (std::int64_t k = k0; k < k1; ++k) {
            const double p = double(A[i * s.K + k]) * double(B[k * s.N + j]);
            run += p;
            absrun += std::fabs(p);
        }
        c += run;
        absc += absrun;
    }
}

}  // namespace mml
