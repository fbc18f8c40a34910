// BasicMM and PHVM (Lei et al. 2024, Algorithm 1 with the two inner-product schemes).
//
// One output element R[i][j] = dot(E.row(i), F.col(j)) per launch, GS blocks
// of BS threads:
//   L4  each thread multiplies and adds its share of the K index pairs in a register;
//   L5  the block adds its BS registers by halving in shared memory;
//   L6  thread 0 adds the block's sum to R[i][j] with atomicAdd.
// BasicMM gives thread t the contiguous segment [t*L, (t+1)*L), L = ceil(K/(GS*BS)):
// at each step the 32 threads of a warp read 32 addresses L floats apart, 32
// separate memory transactions (uncoalesced). PHVM gives thread t the indices
// t, t + GS*BS, t + 2*GS*BS, ... (grid stride): at each step a warp reads 32
// consecutive floats of E's row, one transaction - that is the whole difference,
// and it is why PHVM should be several times faster.
// Both read E's row and F's column once per output: M*N passes over a row of E
// and a column of F. F is row-major, so its column j is read with stride N
// floats; DRAM is read in 64-byte units, and with N <= 16 every unit of F
// holds a needed value, so each of the M*N launches pulls all of F through
// DRAM. The one-pass kernel (one_pass.cu) removes that.
#include "gpu/cuda_check.h"
#include "solutions/lab9/phvm.h"

namespace reference::lab9 {
namespace {

using i64 = long long;

// L5: the block's BS values summed by halving in shared memory. BS need not be
// a power of two: the part above the largest power of two p <= BS is folded
// onto the first BS - p values first. Returns the sum (valid in thread 0).
__device__ float block_sum(float v, float* sh) {
    const int t = threadIdx.x, bs = blockDim.x;
    sh[t] = v;
    __syncthreads();
    int p = 1;
    while (p * 2 <= bs) p *= 2;
    if (t < bs - p) sh[t] += sh[t + p];
    __syncthreads();
    for (int half = p / 2; half > 0; half /= 2) {
        if (t < half) sh[t] += sh[t + half];
        __syncthreads();
    }
    return sh[0];
}

// e: row i of E (K floats, stride 1); f: column j of F (stride n).
__global__ void basicmm_kernel(const float* __restrict__ e, const float* __restrict__ f, i64 n,
                               i64 K, float* __restrict__ out) {
    extern __shared__ float sh[];
    const i64 threads = (i64)gridDim.x * blockDim.x;
    const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 len = (K + threads - 1) / threads;  // L4: one contiguous segment per thread
    const i64 k0 = t * len;
    const i64 k1 = k0 + len < K ? k0 + len : K;
    float acc = 0.f;
    for (i64 k = k0; k < k1; ++k) acc += e[k] * f[k * n];
    const float s = block_sum(acc, sh);
    if (threadIdx.x == 0) atomicAdd(out, s);  // L6
}

__global__ void phvm_kernel(const float* __restrict__ e, const float* __restrict__ f, i64 n, i64 K,
                            float* __restrict__ out) {
    extern __shared__ float sh[];
    float acc = 0.f;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    // L4 (coalesced): neighbouring threads take neighbouring k.
    for (i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x; k < K; k += stride) acc += e[k] * f[k * n];
    const float s = block_sum(acc, sh);
    if (threadIdx.x == 0) atomicAdd(out, s);  // L6
}

using Kernel = void (*)(const float*, const float*, i64, i64, float*);

void launch_per_element(Kernel kernel, const float* E, const float* F, float* R, i64 M, i64 N, i64 K,
                        int gs, int bs) {
    // The blocks add into R, so it starts at zero.
    CUDA_CHECK(cudaMemsetAsync(R, 0, std::size_t(M * N) * sizeof(float)));
    for (i64 i = 0; i < M; ++i)
        for (i64 j = 0; j < N; ++j) {
            kernel<<<gs, bs, std::size_t(bs) * sizeof(float)>>>(E + i * K, F + j, N, K, R + i * N + j);
            CUDA_CHECK_LAUNCH();
        }
}

}  // namespace

void basicmm(const float* E, const float* F, float* R, std::int64_t M, std::int64_t N, std::int64_t K,
             int gs, int bs) {
    launch_per_element(basicmm_kernel, E, F, R, M, N, K, gs, bs);
}

void phvm(const float* E, const float* F, float* R, std::int64_t M, std::int64_t N, std::int64_t K,
          int gs, int bs) {
    launch_per_element(phvm_kernel, E, F, R, M, N, K, gs, bs);
}

}  // namespace reference::lab9
