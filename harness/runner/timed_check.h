// The check of a timed run's result (remote.h, timed_run): a sampled float64
// check of C = A * diag(d) * B against the stage's bound. Part of the
// checker's side only (linked into the checker programs, never a runner).
#pragma once

#include <random>
#include <string>

#include "cpu/error_bound.h"
#include "cpu/matrix.h"
#include "cpu/rounding.h"

namespace mml::runner::detail {

// Is C (M x N) the product A * diag(d) * B within the stage's bound? The
// timed runs are many and large, so this is a sampled check, in float64 on
// this process's own copies of A, B and d: every entry scanned for the poison
// and NaN/Inf; one Freivalds test over whole rows (C x against A (B' x), with
// x random signs and magnitudes, within the sum of the bounds of the row);
// and 64 random entries plus the two corners (every entry when C has at most
// 66), each against its own dot product. Skipping any noticeable part of the
// work fails it; its cost is O(MN + MK + KN + min(66, MN) K), far below the
// product's. Returns "" or the failure.
std::string check_scaled_product(const float* A, const float* B, const float* d, const float* C, Shape s,
                                 const ErrorBound& bound, InputRounding rounding, std::mt19937_64& rng);

}  // namespace mml::runner::detail
