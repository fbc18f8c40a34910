// Lab 5 - your code, task 4: packing. Read handouts/lab5.md ("Feeding the tile:
// packing and the five loops") first. Your loops (blis.cpp, task 5) call
// these with the kernel set's MR and NR (6 and 16 for your AVX2 kernels and
// the given scalar ones).
#include "labs/lab5/gemm.h"

namespace student::lab5 {

// The mc x kc block of A at A (row stride lda) -> panels(mc, MR) micro-panels
// of MR rows (slivers), one after the other in `out`, MR*kc floats each. A
// sliver is stored column by column, in the order the micro-kernel reads it:
// the MR values of its column 0 (top to bottom), then those of column 1, ...,
// up to column kc-1. The last sliver's rows past mc are 0.0f (the padding).
// For example, MR = 2, mc = 3, kc = 2 (aij = element (i,j) of the block):
//   out = a00 a10 a01 a11 | a20 0 a21 0
// With the padding, the micro-kernel always computes a full tile: the extra
// rows come out as exact zeros (never garbage, NaN or slow denormals from
// uninitialised memory) and are simply not copied to C (the given edge_tile).
// TODO(lab5, task 4a): the layout above. Judged (4a and 4b): the tests, then
//   lab5.blis. Stuck: handouts/lab5.md, hints 5.4.x.
void pack_a(const float* A, std::int64_t lda, std::int64_t mc, std::int64_t kc, int MR, float* out) {
    // one sliver after the other, column by column, rows past mc as zeros
    const std::int64_t np = panels(mc, MR);
    for (std::int64_t ip = 0; ip < np; ++ip) {
        const std::int64_t r0 = ip * MR;
        for (std::int64_t p = 0; p < kc; ++p) {
            for (int r = 0; r < MR; ++r) {
                const std::int64_t row = r0 + r;
                *out++ = row < mc ? A[row * lda + p] : 0.0f;
            }
        }
    }
}

// Micro-panels [first_panel, end_panel) of the kc x nc block of B at B (row
// stride ldb). Micro-panel jp holds the block's columns jp*NR to jp*NR+NR-1,
// NR*kc floats, stored row by row: the NR values of its row 0, then those of
// row 1, ..., up to row kc-1; the last micro-panel's columns past nc are 0.0f.
// The micro-panels lie one after the other in `out` as for the whole block,
// micro-panel 0 first, whichever of them this call packs (threads may each
// pack some). For example, NR = 2, nc = 3, kc = 2 (bij = element (i,j)):
//   out = b00 b01 b10 b11 | b02 0 b12 0
// TODO(lab5, task 4b): the layout above, for panels [first_panel, end_panel)
//   only (the rest of the block's panels are packed by other calls).
void pack_b_panels(const float* B, std::int64_t ldb, std::int64_t kc, std::int64_t nc, int NR, std::int64_t first_panel,
                   std::int64_t end_panel, float* out) {
    out += first_panel * NR * kc;  // skip the panels other calls pack
    for (std::int64_t jp = first_panel; jp < end_panel; ++jp) {
        const std::int64_t c0 = jp * NR;
        for (std::int64_t p = 0; p < kc; ++p) {
            for (int c = 0; c < NR; ++c) {
                const std::int64_t col = c0 + c;
                *out++ = col < nc ? B[p * ldb + col] : 0.0f;
            }
        }
    }
}

}  // namespace student::lab5
