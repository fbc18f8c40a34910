// Given code (lab 5): you use it, you do not write it.
//
// Stage 4's loops (lab5.blis): the five loops of BLIS around a micro-kernel,
// with packing, cache blocking and threads, for any kernel set (any register
// tile MR x NR). The starter's blis.cpp runs them around your AVX2
// micro-kernel and your packing (packing.cpp), the reference's around each
// of its kernel sets. The loop order, the thread split and the edge tiles
// are explained at the top of blis_loops.cpp.
#pragma once

#include <cstdint>

#include "labs/common/block_sizes.h"
#include "labs/common/kernel_sets.h"

namespace common::lab5 {

// The packing functions the loops call (labs/lab5/packing.cpp has their
// layouts): the mc x kc panel of A at A (row stride lda) as panels(mc, MR)
// micro-panels of MR rows, zero-padded; micro-panels [first_panel, end_panel)
// of the kc x nc block of B at B (row stride ldb), NR columns each,
// zero-padded, at out + first_panel*NR*kc.
struct Packing {
    void (*pack_a)(const float* A, std::int64_t lda, std::int64_t mc, std::int64_t kc, int MR, float* out);
    void (*pack_b_panels)(const float* B, std::int64_t ldb, std::int64_t kc, std::int64_t nc, int NR,
                          std::int64_t first_panel, std::int64_t end_panel, float* out);
};

// C = A*B (M x N, row-major, C holds garbage on entry) for any M, N, K >= 1
// on `threads` threads (OpenMP), with the block sizes `requested` (0 = the
// default, blocks_for_product in block_sizes.h).
void blis_loops(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                const KernelSet& kernels, Packing packing, BlockSizes requested, int threads);

// Loops 2 and 1: C (mc x nc, row stride ldc) = or += (accumulate) packed A
// panel (mc x kc) * packed B block (kc x nc). (Also timed alone by `mmlab
// blis-levels`.)
void macro_kernel(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                  const float* a_packed, const float* b_packed, float* C, std::int64_t ldc, bool accumulate);

// The threads lab5.blis starts for one M x N x K product when `threads` are
// asked for: fewer when the product is so small that a thread's share would
// not pay for starting it (blis_loops.cpp says how small). blis_loops itself
// runs on the threads it is given, so that the tests can run small shapes on
// several threads; the stage (and anyone timing it) asks this first.
int threads_worth_starting(std::int64_t M, std::int64_t N, std::int64_t K, int threads);

}  // namespace common::lab5
