// Lab 5 reference, stage 2 (lab5.tile): the starter's tile.cpp, the
// loops of labs/common/tile_loops.h around each kernel set's tile.
//
// What changed from stage 1: instead of one C element per dot product, a whole
// MR x NR tile of C (6 x 16 on AVX2) lives in registers while k runs. Each
// step k loads NR values of row k of B (2 vectors) and broadcasts MR values
// of column k of A, then does MR x NR/W FMAs (12 on AVX2): 8 loads for 12 FMAs
// instead of 2 loads per FMA, and no horizontal sums. No transpose is needed:
// B is read along its rows. It should run at a good fraction of the FMA peak,
// limited by A and B coming from L2/L3 rather than L1 (stage 4 fixes that).
#include "labs/common/tile_loops.h"
#include "solutions/lab5/gemm.h"

namespace reference::lab5 {

void matmul_tile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                 std::int64_t K, const KernelSet& kernels) {
    common::lab5::tile_loops(A, B, C, M, N, K, kernels.MR, kernels.NR, kernels.tile);
}

}  // namespace reference::lab5
