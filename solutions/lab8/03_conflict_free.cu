// Lab 8, stage 3: a shared-memory layout without bank conflicts.
//
// What changed from stage 2 (same tiles, same float4 loads):
//  - As gets 4 floats of padding per row (As[BK][BM + 4]). The two threads
//    that store one row of A's tile (a_k = 0 and 4) now write rows of As that
//    are 4 * 132 floats apart: 16 banks apart, no longer the same bank. Four
//    floats, not one, so that every row still starts 16-byte aligned for the
//    LDS.128 reads.
//  - The 8 x 8 thread tile is split into four 4 x 4 pieces, 64 rows and 64
//    columns apart: thread (ty, tx) owns rows ty*4.. and 64 + ty*4.., columns
//    tx*4.. and 64 + tx*4... Reading B's fragment, the eight threads of a
//    quarter warp now read eight consecutive float4 - 128 bytes, all 32 banks
//    once - where stage 2's stride of 8 floats hit each bank twice.
//
// Why it should be faster: a bank conflict replays the shared access, and the
// inner loop is shared loads + FFMAs, so every replay is lost FFMA issue
// time. Nsight Compute shows it: "shared load/store bank conflicts" and the
// L1 "wavefronts per request" go to their minimum.
//
// The RTX 4090 GEMM walk-through reached the same goal with a 256 x 128 tile
// and rotated (swizzled) indices on write and read: 54 ms -> 42 ms at 8192^3.
#include "solutions/lab8/lab8.h"
#include "gpu/float4_moves.cuh"
#include "gpu/tile_io.cuh"

#include "gpu/cuda_check.h"

namespace reference::lab8 {
using namespace mml::gpu;  // tiles_covering, load4_or_zero, ... (gpu/tile_io.cuh), copy4 ... (gpu/float4_moves.cuh)
namespace {

constexpr int BM = 128, BN = 128, BK = 8;
constexpr int TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
constexpr int kPadA = 4;  // floats of padding per row of As
static_assert(BM * BK / 4 == kThreads && BK * BN / 4 == kThreads, "one float4 of A and of B per thread");

template <bool kVecA, bool kVecB>
__global__ void __launch_bounds__(kThreads)
conflict_free_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                     std::int64_t M, std::int64_t N, std::int64_t K) {
    __shared__ __align__(16) float As[BK][BM + kPadA];
    __shared__ __align__(16) float Bs[BK][BN];

    const std::int64_t tiles_n = tiles_covering(N, BN);
    const std::int64_t m0 = std::int64_t(blockIdx.x) / tiles_n * BM;
    const std::int64_t n0 = std::int64_t(blockIdx.x) % tiles_n * BN;
    const int tid = threadIdx.x;
    const int ty = tid / (BN / TN), tx = tid % (BN / TN);

    const int a_m = tid / (BK / 4), a_k = tid % (BK / 4) * 4;
    const int b_k = tid / (BN / 4), b_n = tid % (BN / 4) * 4;
    const bool a_row_in = m0 + a_m < M;
    const std::int64_t b_cols_left = N - (n0 + b_n);
    const float* a_ptr = A + (m0 + a_m) * K + a_k;
    const float* b_ptr = B + std::int64_t(b_k) * N + n0 + b_n;

    // acc[i][j] is C(row(i), col(j)) with row(i) = (i < 4 ? 0 : BM/2) + ty*4 + i%4
    // and col(j) = (j < 4 ? 0 : BN/2) + tx*4 + j%4.
    float acc[TM][TN] = {};
    for (std::int64_t k0 = 0; k0 < K; k0 += BK) {
        const float4 av = load4_or_zero<kVecA>(a_ptr, a_row_in ? K - (k0 + a_k) : 0);
        const float4 bv = load4_or_zero<kVecB>(b_ptr, k0 + b_k < K ? b_cols_left : 0);
        store4_down_column(&As[a_k][a_m], BM + kPadA, av);
        *reinterpret_cast<float4*>(&Bs[b_k][b_n]) = bv;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            copy4(&a[0], &As[k][ty * 4]);
            copy4(&a[4], &As[k][BM / 2 + ty * 4]);
            copy4(&b[0], &Bs[k][tx * 4]);
            copy4(&b[4], &Bs[k][BN / 2 + tx * 4]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
        a_ptr += BK;
        b_ptr += BK * N;
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const std::int64_t row = m0 + (i < 4 ? 0 : BM / 2) + ty * 4 + i % 4;
        if (row >= M) continue;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const std::int64_t col = n0 + (j < 4 ? 0 : BN / 2) + tx * 4;
            store4_in_bounds<kVecB>(C + row * N + col, as_float4(&acc[i][j]), N - col);
        }
    }
}

}  // namespace

void conflict_free(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                   std::int64_t K) {
    const unsigned blocks = grid_for_tiles(tiles_covering(M, BM) * tiles_covering(N, BN));
    const bool vec_a = rows_are_float4_aligned(A, K);
    const bool vec_b = rows_are_float4_aligned(B, N) && rows_are_float4_aligned(C, N);
    with_vector_flags(vec_a, vec_b, [&](auto va, auto vb) {
        conflict_free_kernel<decltype(va)::value, decltype(vb)::value><<<blocks, kThreads>>>(A, B, C, M, N, K);
    });
    CUDA_CHECK_LAUNCH();
}

}  // namespace reference::lab8
