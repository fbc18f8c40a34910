// Given code (labs 3 and 4): you use it, you do not write it.
//
// The plan of Strassen's recursion: every decision that depends on the shape
// alone - where the recursion stops, how a level splits, how much workspace
// it needs. The recursion, the workspace size and the error bound
// (strassen_bound.h) all follow these functions, so they cannot disagree.
#pragma once

#include <cstdint>

#include "cpu/matrix.h"

namespace common::lab3 {

// The reference's cutoff (its answer to lab 3's task 3, chosen from the
// measured crossover: handouts/lab3.md, "What to expect"): recursion stops
// when any of M, N, K is <= cutoff. Lab 4 runs at it; lab 3 times your
// Strassen at it until you choose yours (kYourCutoff, labs/lab3/strassen.h).
// --param cutoff=N overrides it.
constexpr std::int64_t kDefaultCutoff = 1024;

// True when the recursion stops at the classical kernel for this shape.
bool stops_at_base_case(mml::Shape s, std::int64_t cutoff);
// The halves of one level: floor(M/2), floor(N/2), floor(K/2). The even core
// is twice that; an odd M, N or K leaves one row/column to the fix-ups.
mml::Shape halves(mml::Shape s);
// Floats of workspace the whole recursion on shape s needs: every level holds
// Z (m x n), X (m x k) and Y (k x n) for its halves m, n, k, plus what the
// level below needs. Computed once, allocated once per call.
std::int64_t workspace_floats(mml::Shape s, std::int64_t cutoff);
// The part of one level's workspace that a single product uses: X, Y and the
// levels below (not Z). `half` is the level's halves.
std::int64_t product_workspace_floats(mml::Shape half, std::int64_t cutoff);

}  // namespace common::lab3
