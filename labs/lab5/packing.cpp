// Lab 5 - your code, task 4: packing. Read handouts/lab5.md ("Feeding the tile:
// packing and the five loops") first. Your loops (blis.cpp, task 5) call
// these with the kernel set's MR and NR (6 and 16 for your AVX2 kernels and
// the given scalar ones).
#include "labs/lab5/gemm.h"

namespace student::lab5 {

// The mc x kc block of A at A (row stride lda) -> panels(mc, MR) micro-panels
// of MR rows, one after the other, each stored column by column:
//   out[(i/MR)*MR*kc + p*MR + (i%MR)] = A[i*lda + p]   for i < mc, p < kc,
// and 0.0f for the rows i in [mc, panels(mc, MR)*MR) (the padding).
// With the padding, the micro-kernel always computes a full tile: the extra
// rows come out as exact zeros (never garbage, NaN or slow denormals from
// uninitialised memory) and are simply not copied to C (the given edge_tile).
// TODO(lab5, task 4a): the layout above. Judged (4a and 4b): the tests, then
//   lab5.blis. Stuck: handouts/lab5.md, hints 5.4.x.
void pack_a(const float* A, std::int64_t lda, std::int64_t mc, std::int64_t kc, int MR, float* out) {
    (void)A; (void)lda; (void)mc; (void)kc; (void)MR; (void)out;
}

// Micro-panels [first_panel, end_panel) of the kc x nc block of B at B (row
// stride ldb); micro-panel jp holds columns [jp*NR, jp*NR + NR), row by row:
//   out[jp*NR*kc + p*NR + c] = B[p*ldb + jp*NR + c]   for jp*NR + c < nc,
// and 0.0f for the columns past nc. (Threads may each pack some of the panels.)
// TODO(lab5, task 4b): the layout above, for panels [first_panel, end_panel)
//   only (the rest of the block's panels are packed by other calls).
void pack_b_panels(const float* B, std::int64_t ldb, std::int64_t kc, std::int64_t nc, int NR, std::int64_t first_panel,
                   std::int64_t end_panel, float* out) {
    (void)B; (void)ldb; (void)kc; (void)nc; (void)NR; (void)first_panel; (void)end_panel; (void)out;
}

}  // namespace student::lab5
