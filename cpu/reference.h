// The float64 reference product every check compares against.
#pragma once

#include <vector>

#include "cpu/matrix.h"

namespace mml {

// C = A*B in float64, and at the same time |A|*|B| (element-wise absolute
// values), which the error bound needs. Both are M x N, row-major.
// The products of two floats are exact in double and the double sums carry a
// relative error of at most K * 2^-53, far below any float32 bound we test.
void reference_product_f64(const float* A, const float* B, Shape s,
                           std::vector<double>& C, std::vector<double>& absC);

// One element of each, for the sampled check of large products.
void reference_entry_f64(const float* A, const float* B, Shape s, std::int64_t i,
                         std::int64_t j, double& c, double& absc);

}  // namespace mml
