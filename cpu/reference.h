// The float64 reference product every check compares against.
#pragma once

#include <vector>

#include "cpu/matrix.h"

namespace mml {

// C = A*B in float64, and at the same time |A|*|B| (element-wise absolute
// values), which the error bound needs. Both are M x N, row-major.
// The products of two floats are exact in double. The sums are blocked
// (pairwise at two levels): runs of at most kReferenceChunk terms are summed,
// then the run totals, in a fixed order. The error is at most
// gamma_{L+c}(2^-53) * |A||B| with L = min(K, chunk) and c = ceil(K/chunk) run
// totals, which is never more than the plain gamma_K(2^-53) the verifier
// allows for the reference (about 1e-11 relative even at K = 2e9, where a
// plain running sum would reach 2e-7). The runs are spread over OpenMP
// threads; the result does not depend on the thread count.
constexpr std::int64_t kReferenceChunk = std::int64_t(1) << 16;
void reference_product_f64(const float* A, const float* B, Shape s,
                           std::vector<double>& C, std::vector<double>& absC);

// One element of each, for the sampled check of large products (same summation).
void reference_entry_f64(const float* A, const float* B, Shape s, std::int64_t i,
                         std::int64_t j, double& c, double& absc);

}  // namespace mml
