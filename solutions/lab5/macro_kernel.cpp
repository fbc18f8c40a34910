// The two innermost loops around the micro-kernel. Loop 2 (jr) walks the
// micro-panels of the packed B panel (NR columns each); loop 1 (ir) those of
// the packed A block (MR rows each). A B micro-panel (kc x NR) is reused by all mc/MR micro-panels
// of A while it sits in L1; the A block (mc x kc) is reused by every jr step
// from L2.
//
// Two software prefetches, one per operand that is not already close:
// - B: while the micro-panels of A pass by, the NEXT micro-panel of B is
//   fetched into L2, a few cache lines per micro-kernel call. The B panel
//   (KC x NC, 2.7 MiB at n = 2048) lives in L3, or in another core's cache
//   when another thread packed it. Without this prefetch the whole product
//   ran 1.6 % slower on the Zen 3 we measured.
// - C: loop 1 walks DOWN C, MR rows at a time, and the MR rows of a tile are
//   ldc floats apart - at n = 2048, 8 KiB, so every row of every tile is on a
//   page of its own and the hardware prefetcher, which follows sequential
//   streams, cannot guess them. So before each call we ask for the C tile of
//   the NEXT call: its lines arrive while this call does its kc x MR x NR FMAs
//   (about 2000 cycles), long enough even from DRAM. (The micro-kernel also
//   prefetches its own tile when it starts, for the first call and for
//   callers that do not do this.)
//
// Full tiles go straight to C. Edge tiles (the last rows or columns when mc or
// nc is not a multiple of MR or NR) are computed in full into c_tile - the
// packed zeros make the extra rows and columns 0 - and only the valid part is
// written back, so nothing outside C is ever touched.
#include "solutions/lab5/macro_kernel.h"

#include <algorithm>

namespace reference::lab5 {

void macro_kernel(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                  const float* a_packed, const float* b_packed, float* C, std::int64_t ldc, bool accumulate,
                  float* c_tile) {
    const std::int64_t MR = kernels.MR, NR = kernels.NR;
    constexpr std::int64_t kLine = 16;                         // floats per 64-byte cache line
    const std::int64_t b_lines = kc * NR / kLine;              // cache lines per B micro-panel
    const std::int64_t calls = (mc + MR - 1) / MR;             // micro-kernel calls per jr step
    const std::int64_t lines_per_call = (b_lines + calls - 1) / calls;
    for (std::int64_t jr = 0; jr < nc; jr += NR) {             // loop 2
        const float* b = b_packed + jr * kc;                   // micro-panel jr/NR of B
        const float* b_next = jr + NR < nc ? b + NR * kc : nullptr;
        const std::int64_t cols = std::min(NR, nc - jr);
        for (std::int64_t ir = 0, line = 0; ir < mc; ir += MR) {  // loop 1
            const float* a = a_packed + ir * kc;                  // micro-panel ir/MR of A
            const std::int64_t rows = std::min(MR, mc - ir);
            // The next call's tile: one tile further down, or the top of the
            // next column of tiles. A prefetch never faults, but its address
            // must still be inside C: only valid rows, only if there is one.
            const bool down = ir + MR < mc;
            const std::int64_t next_ir = down ? ir + MR : 0, next_jr = down ? jr : jr + NR;
            if (next_jr < nc)
                for (std::int64_t r = 0; r < std::min(MR, mc - next_ir); ++r)
                    for (std::int64_t j = 0; j < std::min(NR, nc - next_jr); j += kLine)  // each line of the row
                        __builtin_prefetch(C + (next_ir + r) * ldc + next_jr + j, 1, 3);
            for (std::int64_t l = 0; b_next && l < lines_per_call && line < b_lines; ++l, ++line)
                __builtin_prefetch(b_next + line * kLine, 0, 2);  // 2: into L2, not L1
            float* c = C + ir * ldc + jr;
            if (rows == MR && cols == NR) {
                kernels.micro(kc, a, b, c, ldc, accumulate);
                continue;
            }
            kernels.micro(kc, a, b, c_tile, NR, false);
            for (std::int64_t r = 0; r < rows; ++r)
                for (std::int64_t j = 0; j < cols; ++j)
                    c[r * ldc + j] = accumulate ? c[r * ldc + j] + c_tile[r * NR + j] : c_tile[r * NR + j];
        }
    }
}

}  // namespace reference::lab5
