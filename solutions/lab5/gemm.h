// Lab 5 reference: the stages (see labs/lab5/gemm.h for the contract; the same
// declarations). The answers are in the files of the starter's names:
// dot.cpp (stage 1 and the combined row), packing.cpp, kernels_avx2.cpp
// kernels_avx512.cpp and blis.cpp (the five loops); tile.cpp and kernels.cpp
// are the starter's given files, which run the given loops of labs/common/
// around every kernel set: any register tile MR x NR, any SIMD width.
#pragma once

#include <cstdint>

#include "labs/common/block_sizes.h"
#include "labs/common/row_threads.h"
#include "labs/common/transpose.h"
#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

using common::lab5::BlockSizes;
using common::lab5::for_row_blocks;  // as the starter's gemm.h: the given helpers by their short names
using common::lab5::panels;
using common::lab5::transpose;

// Stage 1 (lab5.dot, threads = 1) and Cao's survey's combined row (lab5.combined,
// threads > 1): transpose B, then every C[i][j] is one SIMD dot product of
// row i of A with row j of B^T, on threads over blocks of rows.
void matmul_dot(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K, const KernelSet& kernels, int threads);

// Stage 2 (lab5.tile): C computed one MR x NR register tile at a time with
// broadcast-and-FMA (outer products), on A and B as they are.
void matmul_tile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                 std::int64_t K, const KernelSet& kernels);

// Stage 4 (lab5.blis): the BLIS / GotoBLAS algorithm - the five loops around
// the micro-kernel, packing, cache blocking - for any M, N, K >= 1 on
// `threads` threads (OpenMP). Block sizes that are 0 take the defaults.
void matmul_blis(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                 const KernelSet& kernels, BlockSizes blocks, int threads);

// Loops 2 and 1 of stage 4 (blis.cpp): C (mc x nc, row stride ldc) = or +=
// (accumulate) the packed A panel (mc x kc) times the packed B block
// (kc x nc). (Also timed alone by `mmlab blis-levels`.)
void macro_kernel(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                  const float* a_packed, const float* b_packed, float* C, std::int64_t ldc, bool accumulate);

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
void pack_a(const float* A, std::int64_t lda, std::int64_t mc, std::int64_t kc, int MR, float* out);
void pack_b_panels(const float* B, std::int64_t ldb, std::int64_t kc, std::int64_t nc, int NR, std::int64_t first_panel,
                   std::int64_t end_panel, float* out);

}  // namespace reference::lab5
