// Lab 9, tasks 3-5: the one-pass kernel. handouts/lab9.md explains them.
// Everything not marked TODO is given.
//
// PHVM launches once per output element, and each launch reads a row of E and
// a column of F: E is read N times and F M times. Here one launch computes a
// whole tile of outputs (up to 9 x 9): every thread keeps TM*TN accumulators in
// registers and, for each k it owns, loads E[i0+m][k] for the TM rows and
// F[k][j0+j] for the TN columns once and does all TM*TN multiply-adds. E and F
// are read once, so the time approaches (bytes of E and F) / bandwidth.
// Each block writes one partial sum per output to `partial`; finish_kernel
// (given) adds the blocks' partials.
#include <algorithm>

#include "gpu/cuda_check.h"
#include "labs/lab9/one_pass.h"

namespace student::lab9 {
namespace {

using i64 = long long;
constexpr int kBlock = kOnePassBlock;
constexpr int kWarps = kBlock / 32;

// Task 5 (optional): the launcher takes the `vec` branch below when this is
// true, K % 4 == 0, the tile spans all N columns and use_vector_loads is on.
constexpr bool kVectorPathWritten = false;  // TODO(lab9, task 5, optional): true once `vec` is written

template <int TM, int TN>
__global__ void __launch_bounds__(kBlock)
one_pass_kernel(const float* __restrict__ E, const float* __restrict__ F, i64 N, i64 K, i64 i0,
                i64 j0, bool vec, float* __restrict__ partial) {
    float acc[TM][TN];
#pragma unroll
    for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[m][j] = 0.f;
    const i64 threads = (i64)gridDim.x * kBlock;
    const i64 t = (i64)blockIdx.x * kBlock + threadIdx.x;
    if (vec) {
        // TODO(lab9, task 5, optional): the same sums as task 3, four consecutive
        //   k per step with 16-byte loads (this path runs only when K % 4 == 0 and
        //   the tile spans all N columns, so F's rows k..k+3 are 4*TN contiguous
        //   floats). Goal: fewer, wider loads (the handout has the H100's
        //   numbers). Stuck: hints 9.5.x.
    } else {
        // TODO(lab9, task 3): the tile's partial sums, one k per step.
        //   Contract: over the launch's threads (thread t of `threads`, grid
        //     stride over k < K), every k is taken exactly once, and this thread's
        //     acc[m][j] += E[(i0 + m) * K + k] * F[k * N + j0 + j] for all m < TM,
        //     j < TN, over its k.
        //   Goal: E and F read once in all: the TM values of E and TN values of
        //     F of one k loaded once, used for all TM*TN multiply-adds, every
        //     accumulator in a register.
        //   Judged: the tests, then the target: >= 90 % of the measured read
        //     bandwidth and >= 3x cublasSgemm on every shape. Stuck: hints 9.3.x.
        (void)E, (void)F, (void)N, (void)K, (void)i0, (void)j0, (void)t, (void)threads;
    }
    // TODO(lab9, task 4): the block's sums.
    //   Contract: for every e < TM*TN, partial[blockIdx.x * TM * TN + e] = the sum
    //     of accumulator e (m = e / TN, j = e % TN) over the block's threads.
    //     warp_sums (below) is there for the warps' sums.
    //   Goal: no atomics, one fixed order of additions: the result repeats bit
    //     for bit (the given finish_kernel adds the blocks' partials).
    //   Until you write it, the partials keep the NaN the launcher put there.
    //   Stuck: hints 9.4.x.
    __shared__ float warp_sums[kWarps][TM * TN];
    (void)warp_sums, (void)partial, (void)acc;
}

// One block per output of the tile: add the GS block partials by halving.
__global__ void finish_kernel(const float* __restrict__ partial, int gs, int tm, int tn, float* R,
                              i64 N, i64 i0, i64 j0) {
    __shared__ float sh[kBlock];
    const int e = blockIdx.x;
    float s = 0.f;
    for (int g = threadIdx.x; g < gs; g += kBlock) s += partial[(i64)g * tm * tn + e];
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int half = kBlock / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) sh[threadIdx.x] += sh[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) R[(i0 + e / tn) * N + j0 + e % tn] = sh[0];
}

using Kernel = void (*)(const float*, const float*, i64, i64, i64, i64, bool, float*);

template <int TM>
Kernel pick_tn(int tn) {
    switch (tn) {
        case 1: return one_pass_kernel<TM, 1>;
        case 2: return one_pass_kernel<TM, 2>;
        case 3: return one_pass_kernel<TM, 3>;
        case 4: return one_pass_kernel<TM, 4>;
        case 5: return one_pass_kernel<TM, 5>;
        case 6: return one_pass_kernel<TM, 6>;
        case 7: return one_pass_kernel<TM, 7>;
        case 8: return one_pass_kernel<TM, 8>;
        default: return one_pass_kernel<TM, 9>;
    }
}

Kernel pick(int tm, int tn) {
    switch (tm) {
        case 1: return pick_tn<1>(tn);
        case 2: return pick_tn<2>(tn);
        case 3: return pick_tn<3>(tn);
        case 4: return pick_tn<4>(tn);
        case 5: return pick_tn<5>(tn);
        case 6: return pick_tn<6>(tn);
        case 7: return pick_tn<7>(tn);
        case 8: return pick_tn<8>(tn);
        default: return pick_tn<9>(tn);
    }
}

float* workspace(std::size_t floats) {
    static float* p = nullptr;
    static std::size_t have = 0;
    if (floats > have) {
        if (p) CUDA_CHECK(cudaFree(p));
        CUDA_CHECK(cudaMalloc(&p, floats * sizeof(float)));
        have = floats;
    }
    return p;
}

int grid_for(Kernel k, i64 work_items) {
    static int sms = 0;
    if (sms == 0) {
        int dev = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    }
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kBlock, 0));
    const i64 wanted = std::max<i64>(1, (work_items + kBlock - 1) / kBlock);
    return int(std::min<i64>({wanted, i64(sms) * std::max(per_sm, 1), kOnePassMaxGrid}));
}

}  // namespace

void one_pass(const float* E, const float* F, float* R, std::int64_t M, std::int64_t N, std::int64_t K,
              bool use_vector_loads) {
    const std::size_t floats = std::size_t(kOnePassMaxGrid) * kMaxTile * kMaxTile;
    float* partial = workspace(floats);
    // Fill the partials with NaN (all bits set) so that a partial the kernel
    // never writes shows up as NaN in R (a few microseconds, timed in every
    // version alike).
    CUDA_CHECK(cudaMemsetAsync(partial, 0xff, floats * sizeof(float)));
    for (i64 i0 = 0; i0 < M; i0 += kMaxTile)
        for (i64 j0 = 0; j0 < N; j0 += kMaxTile) {
            const int tm = int(std::min<i64>(kMaxTile, M - i0));
            const int tn = int(std::min<i64>(kMaxTile, N - j0));
            const bool vec = kVectorPathWritten && use_vector_loads && K % 4 == 0 && tn == N;
            const Kernel k = pick(tm, tn);
            const int gs = grid_for(k, vec ? K / 4 : K);
            k<<<gs, kBlock>>>(E, F, N, K, i0, j0, vec, partial);
            CUDA_CHECK_LAUNCH();
            finish_kernel<<<tm * tn, kBlock>>>(partial, gs, tm, tn, R, N, i0, j0);
            CUDA_CHECK_LAUNCH();
        }
}

}  // namespace student::lab9
