// The verifier: is C a correct float32 product of A and B?
//
// It rejects, in this order: elements never written (still the poison value),
// NaN or Inf, and any error beyond the algorithm's bound (cpu/error_bound.h).
// Small products are compared element by element with the full float64
// reference. For large ones (where that reference would take seconds) it uses
// a randomized check with the same bound: Freivalds' test in float64 on
// column blocks of 32 (per row, the sum of 32 elements of C times a random
// vector against the same sum of the bounds), plus every element of the first
// and last rows and columns (where tile-boundary bugs live), 8 random whole
// rows and columns, and 2048 random entries (all entries when C has no more
// than 2048). It finds any wrong tile, row or
// column, and any single element wrong by more than about 50 times its bound;
// a smaller error in one interior element can escape it (the full check,
// used up to 2^28 multiply-adds, on every product with at most 2048
// elements, and so on every test shape, misses nothing).
#pragma once

#include <cstdint>
#include <string>

#include "cpu/error_bound.h"
#include "cpu/matrix.h"

namespace mml {

enum class VerifyMethod { Auto, Full, Randomized };

struct CheckResult {
    bool passed = false;
    std::string method;         // "full" or "randomized"
    double worst_ratio = 0.0;   // max over checked entries of |error| / bound
    double max_abs_error = 0.0; // the largest |error| seen
    double bound_at_worst = 0.0;// the bound at the entry with the worst ratio
    std::string failure;        // one sentence saying what is wrong and where
    // No element of C was written (every one still holds the poison value):
    // the code is not there yet (an untouched starter), not wrong.
    bool never_written = false;
    // Reduced-precision stages only (lab 11, Stage::input_rounding): the
    // check above is against the product of the ROUNDED inputs; this is the
    // relative error against the product of the float32 inputs as given,
    // relative_error_sampled below - what the precision costs. Reported,
    // never judged. Negative: not measured.
    double error_vs_unrounded = -1.0;
};

// Full check up to this many multiply-adds (M*N*K), or whenever C has at
// most kFullCheckMaxEntries elements (skinny products, lab 9: the sampled
// check would cost about 2048 dot products of length K, more than the full
// one); randomized otherwise.
constexpr double kFullCheckMaxMacs = 1u << 28;
constexpr double kFullCheckMaxEntries = 2048;

// sqrt(sum (C_ij - (AB)_ij)^2 / sum (AB)_ij^2) over every entry when C has at
// most kRelativeErrorSamples of them, else over that many random entries
// (from `seed`), with the float64 reference of the float32 A and B given.
constexpr std::int64_t kRelativeErrorSamples = 4096;
double relative_error_sampled(const float* A, const float* B, const float* C, Shape s, std::uint64_t seed);

CheckResult verify_product(const float* A, const float* B, const float* C, Shape s,
                           const ErrorBound& bound, VerifyMethod method = VerifyMethod::Auto,
                           std::uint64_t seed = 12345);

}  // namespace mml
