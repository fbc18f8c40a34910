// Lab 5 reference: the stages (see labs/lab5/gemm.h for the contract). The
// answers are in the files of the starter's names: dot_gemm.cpp (stage 1 and
// the combined row), tile_gemm.cpp (stage 2), packing.cpp and blis_gemm.cpp
// (stage 4), and block_sizes.cpp (the reference's own cache blocking).
// Unlike the starter's, these work for every kernel set of kernels.h: any
// register tile MR x NR, any SIMD width.
#pragma once

#include <cstdint>

#include "labs/common/block_sizes.h"
#include "labs/common/row_threads.h"
#include "labs/common/transpose.h"
#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

using common::lab5::BlockSizes;
using common::lab5::for_row_blocks;  // as the starter's gemm.h: the given helpers by their short names
using common::lab5::transpose;

// Stage 1 (lab5.dot, threads = 1) and seed 003's combined row (lab5.combined,
// threads > 1): transpose B, then every C[i][j] is one SIMD dot product of
// row i of A with row j of B^T, on threads over blocks of rows.
void matmul_transposed_simd(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                            std::int64_t K, const KernelSet& kernels, int threads);

// Stage 2 (lab5.tile): C computed one MR x NR register tile at a time with
// broadcast-and-FMA (outer products), on A and B as they are.
void matmul_register_tile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                          std::int64_t K, const KernelSet& kernels);

// Stage 4 (lab5.blis): the BLIS / GotoBLAS algorithm - the five loops around
// the micro-kernel, packing, cache blocking - for any M, N, K >= 1 on
// `threads` threads (OpenMP). Block sizes that are 0 take the defaults.
// The loop order and the thread split are at the top of blis_gemm.cpp.
void matmul_blis(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                 const KernelSet& kernels, BlockSizes blocks, int threads);

// The threads lab5.blis starts for one M x N x K product when `threads` are
// asked for: fewer when the product is so small that a thread's share would
// not pay for starting it (blis_gemm.cpp says how small). matmul_blis itself
// runs on the threads it is given, so that the tests can run small shapes
// on several threads; the stage (and anyone timing it) asks this first.
int threads_worth_starting(std::int64_t M, std::int64_t N, std::int64_t K, int threads);

// ---- the parts of stage 4 (also timed one by one by `mmlab blis-levels`)

// Packing (packing.cpp): the copies that let the micro-kernel read A and B
// strictly sequentially, kept apart from the arithmetic, so the micro-kernel
// never sees a row stride of A or B.
//   Packed A (an mc x kc panel): micro-panels ("slivers") of MR rows, one
//   after the other. Micro-panel i holds rows [i*MR, i*MR + MR), stored
//   column by column: for each p in [0, kc), the MR values A[i*MR + 0..MR-1][p].
//   Rows past mc are 0.
//   Packed B (a kc x nc block): micro-panels of NR columns, one after the other.
//   Micro-panel j holds columns [j*NR, j*NR + NR), stored row by row: for
//   each p in [0, kc), the NR values B[p][j*NR + 0..NR-1]. Columns past nc are 0.
// The zeros make every edge tile a full tile whose extra rows/columns come
// out as 0 + 0*...: the micro-kernel's k loop needs no edge code at all.
// pack_a: the mc x kc panel at A (row stride lda) into panels(mc, MR) * MR * kc floats at out.
void pack_a(const float* A, std::int64_t lda, std::int64_t mc, std::int64_t kc, int MR, float* out);
// pack_b_panels: micro-panels [first_panel, end_panel) of the kc x nc block at
// B (row stride ldb) into out + first_panel*NR*kc (as the starter's, which
// lets threads share the work; the reference's threads each pack their own).
void pack_b_panels(const float* B, std::int64_t ldb, std::int64_t kc, std::int64_t nc, int NR,
                   std::int64_t first_panel, std::int64_t end_panel, float* out);

// Loops 2 and 1 (blis_gemm.cpp): C (mc x nc, row stride ldc) = or +=
// (accumulate) packed A panel (mc x kc) * packed B block (kc x nc).
void macro_kernel(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                  const float* a_packed, const float* b_packed, float* C, std::int64_t ldc, bool accumulate);

// The block sizes (block_sizes.cpp).
// reference_block_sizes: MC, KC, NC for an MR x NR tile from the cache sizes,
// by the analytical rules written out there (KC: the A sliver and a B
// micro-panel in L1; NC: the B block in half of L2; MC: the A panel in a
// quarter of L3).
BlockSizes reference_block_sizes(int MR, int NR, const common::lab5::CacheSizes& caches);
// resolve_block_sizes: zeros replaced by this machine's reference_block_sizes,
// MC rounded up to a multiple of MR and NC to one of NR (the packing works in
// whole micro-panels).
BlockSizes resolve_block_sizes(BlockSizes requested, const KernelSet& kernels);
// The block sizes matmul_blis uses for one M x N x K product: those of
// resolve_block_sizes, with MC capped at M and NC at N (rounded up to MR, NR)
// and K cut into equal steps of at most KC: K = 2048 with KC = 384 gives 6
// steps of 342, not 5 of 384 and a last one of 128 - a short step reads and
// writes all of C for a third of the FMAs, and a micro-kernel call with a
// short k loop spends a larger share of its time on its C tile.
BlockSizes blocks_for_product(BlockSizes requested, const KernelSet& kernels, std::int64_t M, std::int64_t N,
                              std::int64_t K);

}  // namespace reference::lab5
