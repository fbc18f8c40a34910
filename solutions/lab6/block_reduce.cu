// Lab 6 reference, stage 3: one BLOCK per element of C (Cao's survey).
//
// What changed from the naive kernel: a whole block of T threads (default 64)
// shares one dot product. Thread t adds the products k = t, t+T, t+2T, ...
// (strided, so that at each step the T threads read neighbouring A[i][k]:
// coalesced), then the block adds its T partial sums in shared memory by
// halving: T/2 threads add the upper half onto the lower half, then T/4, ...
// log2(T) steps, a __syncthreads() after each.
//
// Is it faster? Only where the naive kernel has too few threads: when C is
// small and K is long (the "skinny" products of Lei et al. 2024, lab 9). For square
// matrices it is much slower: every product needs a block, a reduction and
// its barriers, and B[k][j] is read down a column (N floats apart) with no reuse.
//
// Cao's survey's version filled one product per thread - cache[t] = A[i][t]*B[t][j]
// for t < 64 - so it summed only the first 64 terms: its results were wrong for
// n > 64, and its 1457x "speedup" at n = 5000 timed 64 of 5000 terms. Here any
// K works: fewer terms than threads (the extra threads add nothing: 0), K not
// a power of two, K much longer than the block.
#include <algorithm>
#include <stdexcept>

#include "gpu/cuda_check.h"
#include "gpu/grid.h"
#include "solutions/lab6/lab6.h"

namespace reference::lab6 {
namespace {

// Grid-stride over C's elements: a block handles elements blockIdx.x,
// blockIdx.x + gridDim.x, ... so any M*N works with a bounded grid. 2^20 blocks
// are far more than the GPU holds at once, so nothing is lost.
constexpr std::int64_t kMaxBlocks = 1 << 20;

__global__ void block_reduce_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, std::int64_t M, std::int64_t N,
                                    std::int64_t K) {
    extern __shared__ float partial[];  // blockDim.x floats, sized at launch
    const int t = threadIdx.x;
    const int threads = blockDim.x;     // a power of two (checked at launch)
    for (std::int64_t e = blockIdx.x; e < M * N; e += gridDim.x) {  // same for the whole block
        const std::int64_t i = e / N, j = e % N;
        float sum = 0.0f;
        for (std::int64_t k = t; k < K; k += threads) sum += A[i * K + k] * B[k * N + j];
        partial[t] = sum;
        __syncthreads();  // every partial sum is written before anyone reads one
        for (int half = threads / 2; half > 0; half /= 2) {
            if (t < half) partial[t] += partial[t + half];
            __syncthreads();  // this step done before the next reads its results
        }
        if (t == 0) C[e] = partial[0];
        __syncthreads();  // partial[0] read before the next element overwrites it
    }
}

}  // namespace

void matmul_block_reduce(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K, int threads) {
    if (threads < 32 || threads > 1024 || (threads & (threads - 1)) != 0)
        throw std::invalid_argument("block_reduce: threads per block must be a power of two in 32..1024");
    const unsigned blocks = unsigned(std::min(M * N, kMaxBlocks));
    block_reduce_kernel<<<blocks, threads, threads * sizeof(float)>>>(A, B, C, M, N, K);
    CUDA_CHECK_LAUNCH();
}

}  // namespace reference::lab6
