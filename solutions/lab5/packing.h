// Lab 5 reference: packing, the copies that let the micro-kernel read A and
// B strictly sequentially. Kept apart from the arithmetic: the micro-kernel
// never sees a row stride of A or B, and never an edge.
//
// Packed A (an mc x kc block): micro-panels of MR rows, one after the other.
//   Micro-panel i holds rows [i*MR, i*MR + MR), stored column by column: for
//   each p in [0, kc), the MR values A[i*MR + 0..MR-1][p]. Rows past mc are 0.
// Packed B (a kc x nc block): micro-panels of NR columns, one after the other.
//   Micro-panel j holds columns [j*NR, j*NR + NR), stored row by row: for
//   each p in [0, kc), the NR values B[p][j*NR + 0..NR-1]. Columns past nc are 0.
// The zeros make every edge tile a full tile whose extra rows/columns come
// out as 0 + 0*...: the micro-kernel needs no edge code at all.
#pragma once

#include <cstdint>

namespace reference::lab5 {

// Packs the mc x kc block starting at A (row stride lda) into
// ceil(mc/MR) * MR * kc floats at out.
void pack_a(const float* A, std::int64_t lda, std::int64_t mc, std::int64_t kc, int MR, float* out);

// Packs micro-panels [first_panel, end_panel) of the kc x nc block starting at
// B (row stride ldb) into out + first_panel*NR*kc (threads each take some).
void pack_b_panels(const float* B, std::int64_t ldb, std::int64_t kc, std::int64_t nc, int NR,
                   std::int64_t first_panel, std::int64_t end_panel, float* out);

// The number of micro-panels of n rows or columns: ceil(n / R).
inline std::int64_t panels(std::int64_t n, int R) { return (n + R - 1) / R; }

}  // namespace reference::lab5
