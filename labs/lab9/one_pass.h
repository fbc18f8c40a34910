// Lab 9 (your code), our improvement on PHVM: every output of R = E*F from one pass over
// E and F. Row-major like every stage; device pointers; default stream.
#pragma once

#include <cstdint>

namespace student::lab9 {

// Threads per block of the one-pass kernel, and the largest output tile one
// block keeps in registers: when M, N <= kMaxTile, E and F are read exactly
// once; larger M or N are covered by tiles of at most kMaxTile x kMaxTile
// (each tile reads its rows of E and all of F again - fine, those are not
// skinny products any more).
constexpr int kOnePassBlock = 256;
constexpr int kMaxTile = 9;
// At most this many blocks (bounds the final reduction's depth).
constexpr int kOnePassMaxGrid = 2048;

// use_vector_loads = false keeps to the one-k-per-step path everywhere (to
// measure what task 5's 16-byte loads bring: mmlab run ... --param kstep=1).
void one_pass(const float* E, const float* F, float* R, std::int64_t M, std::int64_t N,
              std::int64_t K, bool use_vector_loads = true);

}  // namespace student::lab9
