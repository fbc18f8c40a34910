// Lab 8, stage 2 - your code: 16-byte vector loads (float4).
//
// The same tiles as stage 1 (128 x 128 block tile, k-step 8, 8 x 8 thread
// tile), but memory moves 4 floats per instruction:
//  - global -> shared: each thread loads ONE float4 of A's tile and ONE of B's
//    per k-step (LDG.128), with load4_or_zero (tile_io.cuh): a 16-byte load
//    where the rows allow it (kVecA / kVecB: the launcher below checks that
//    K, resp. N, is a multiple of 4 and the pointers are aligned), four
//    predicated scalar loads where they do not, zeros outside the matrix;
//  - A is stored TRANSPOSED in shared memory, As[k][m], so that the 8 values
//    of A's column a thread needs at step k are side by side and load as two
//    float4 (LDS.128), like the 8 values of B's row;
//  - C is written with float4 stores (store4_in_bounds).
// Why: stage 1 held 8 x 8 values of A in registers per k-step (the compiler
// read four k at once), 156-170 registers (sm_80 / sm_90 builds, see
// handouts/lab8.md), one block per SM; here a k needs only its own 8 values:
// 127 registers, under the 128 that two blocks of 256 threads allow. And a
// quarter of the global load instructions. Check both with the compiler's
// report (-Xptxas -v) and cuobjdump -sass (LDG.E.128, LDS.128, 64 FFMA per k).
//
// Tasks (handouts/lab8.md, task 2): TODO 2.1, 2.2, 2.3 below.
#include "labs/lab8/lab8.h"
#include "gpu/float4_moves.cuh"
#include "gpu/tile_io.cuh"

#include "gpu/cuda_check.h"

namespace student::lab8 {
using namespace mml::gpu;  // tiles_covering, load4_or_zero, ... (gpu/tile_io.cuh), copy4 ... (gpu/float4_moves.cuh)

namespace {

constexpr int BM = 128, BN = 128, BK = 8;
constexpr int TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
static_assert(BM * BK / 4 == kThreads && BK * BN / 4 == kThreads, "one float4 of A and of B per thread");

template <bool kVecA, bool kVecB>
__global__ void __launch_bounds__(kThreads)
vector_loads_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                    std::int64_t M, std::int64_t N, std::int64_t K) {
    __shared__ __align__(16) float As[BK][BM];  // transposed: As[k][m] = A(m0 + m, k0 + k)
    __shared__ __align__(16) float Bs[BK][BN];

    const std::int64_t tiles_n = tiles_covering(N, BN);
    const std::int64_t m0 = std::int64_t(blockIdx.x) / tiles_n * BM;
    const std::int64_t n0 = std::int64_t(blockIdx.x) % tiles_n * BN;
    const int tid = threadIdx.x;
    const int ty = tid / (BN / TN), tx = tid % (BN / TN);

    // Which float4 of each tile this thread loads: A row a_m, columns a_k..a_k+3
    // (two threads per row of the 128 x 8 tile); B row b_k, columns b_n..b_n+3
    // (32 threads per row of the 8 x 128 tile).
    const int a_m = tid / (BK / 4), a_k = tid % (BK / 4) * 4;
    const int b_k = tid / (BN / 4), b_n = tid % (BN / 4) * 4;
    const bool a_row_in = m0 + a_m < M;
    const std::int64_t b_cols_left = N - (n0 + b_n);
    const float* a_ptr = A + (m0 + a_m) * K + a_k;  // walks along the row, BK per step
    const float* b_ptr = B + std::int64_t(b_k) * N + n0 + b_n;  // walks down, BK rows per step

    float acc[TM][TN] = {};
    for (std::int64_t k0 = 0; k0 < K; k0 += BK) {
        // TODO(lab8, task 2.1): global -> shared, one float4 of each tile.
        //   av = load4_or_zero<kVecA>(a_ptr, a_row_in ? K - (k0 + a_k) : 0)
        //     (the second argument: how many of the 4 elements exist);
        //   bv = load4_or_zero<kVecB>(b_ptr, k0 + b_k < K ? b_cols_left : 0);
        //   store av TRANSPOSED: As[a_k + 0][a_m] = av.x, ... As[a_k + 3][a_m] = av.w
        //     (store4_down_column(&As[a_k][a_m], BM, av) does this, gpu/float4_moves.cuh);
        //   store bv as one float4: *reinterpret_cast<float4*>(&Bs[b_k][b_n]) = bv.
        __syncthreads();

        // TODO(lab8, task 2.2): the inner product as in stage 1, but load the
        //   fragments with four LDS.128 per k:
        //     a[0..3] = the float4 at &As[k][ty * 8],  a[4..7] = at &As[k][ty * 8 + 4],
        //     b[0..3] = the float4 at &Bs[k][tx * 8],  b[4..7] = at &Bs[k][tx * 8 + 4]
        //   e.g. *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&As[k][ty * 8]),
        //   which copy4(&a[0], &As[k][ty * 8]) writes for you (gpu/float4_moves.cuh);
        //   then the 64 FMAs acc[i][j] += a[i] * b[j] (all loops #pragma unroll).
        __syncthreads();
        a_ptr += BK;      // the next k-slice of A's row
        b_ptr += BK * N;  // the next k-slice of B's columns
    }

    // TODO(lab8, task 2.3): write the thread tile with float4 stores: for each
    //   row = m0 + ty*8 + i < M (i = 0..7) and j = 0 and 4, with col = n0 + tx*8 + j:
    //   store4_in_bounds<kVecB>(C + row * N + col,
    //                           make_float4(acc[i][j], acc[i][j+1], acc[i][j+2], acc[i][j+3]), N - col);
    //   (as_float4(&acc[i][j]) is that make_float4, gpu/float4_moves.cuh)
    (void)acc; (void)ty; (void)tx; (void)As; (void)Bs; (void)a_row_in; (void)b_cols_left;  // (delete this line when done)
}

}  // namespace

void vector_loads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                  std::int64_t K) {
    const unsigned blocks = grid_for_tiles(tiles_covering(M, BM) * tiles_covering(N, BN));
    // float4 for B also means float4 stores of C: both need rows of N floats aligned.
    const bool vec_a = rows_are_float4_aligned(A, K);
    const bool vec_b = rows_are_float4_aligned(B, N) && rows_are_float4_aligned(C, N);
    with_vector_flags(vec_a, vec_b, [&](auto va, auto vb) {
        vector_loads_kernel<decltype(va)::value, decltype(vb)::value><<<blocks, kThreads>>>(A, B, C, M, N, K);
    });
    CUDA_CHECK_LAUNCH();
}

}  // namespace student::lab8
