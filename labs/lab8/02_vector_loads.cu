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
        // TODO(lab8, task 2.1): global -> shared, one float4 of each tile per thread
        //   (this thread's: A row a_m, columns a_k..a_k+3 of the tile; B row b_k,
        //   columns b_n..b_n+3; a_ptr, b_ptr point at them).
        //   Contract: as task 1.1, but A's tile stored transposed, As[k][m]; the
        //     loads read nothing outside A and B (load4_or_zero takes how many of
        //     the 4 elements exist); kVecA/kVecB say whether 16-byte loads are
        //     allowed. Hints 8.2.x.
        __syncthreads();

        // TODO(lab8, task 2.2): the inner product of stage 1 (same thread tile),
        //   with each thread's 8 values of A and 8 of B per k read as float4s
        //   from shared memory (four LDS.128 per k; gpu/float4_moves.cuh has
        //   copy4). Hints 8.2.x.
        __syncthreads();
        a_ptr += BK;      // the next k-slice of A's row
        b_ptr += BK * N;  // the next k-slice of B's columns
    }

    // TODO(lab8, task 2.3): write the thread tile (as task 1.3) with float4
    //   stores where the row allows it: store4_in_bounds<kVecB> takes how many
    //   of the 4 columns exist (N - col); rows past M are skipped. Hints 8.2.x.
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
