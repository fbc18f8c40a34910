// Lab 5 - given: stage 4 (lab5.blis) runs the five loops of
// labs/common/blis_loops.h (packing, cache blocks, threads; read them) around
// your micro-kernel (kernels.micro, task 3) and your packing (packing.cpp,
// task 4).
#include "labs/common/blis_loops.h"
#include "labs/lab5/gemm.h"

namespace student::lab5 {

void matmul_blis(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                 const KernelSet& kernels, BlockSizes blocks, int threads) {
    common::lab5::blis_loops(A, B, C, M, N, K, kernels, {pack_a, pack_b_panels}, blocks, threads);
}

}  // namespace student::lab5
