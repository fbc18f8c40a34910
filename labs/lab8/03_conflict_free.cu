// Lab 8, stage 3 - your code: a shared-memory layout without bank conflicts.
//
// Shared memory has 32 banks of 4 bytes; a warp's access is split into as
// many passes ("wavefronts") as the most requests any one bank gets. Stage 2
// has two such conflicts (handouts/lab8.md draws them):
//  - storing A transposed: the two threads of one row of A's tile (a_k = 0
//    and 4) write rows of As that are 4 * 128 floats apart - a multiple of 32,
//    the same bank. Fix: pad every row of As by kPadA = 4 floats (4, not 1, so
//    that rows stay 16-byte aligned for the float4 reads);
//  - reading B's fragment at column tx*8: an LDS.128 is served 8 threads at a
//    time, and 8 threads at a stride of 8 floats span 256 bytes, two passes.
//    Fix: split the 8 x 8 thread tile into four 4 x 4 pieces 64 apart: thread
//    (ty, tx) owns rows ty*4 + 0..3 and 64 + ty*4 + 0..3, columns tx*4 + 0..3
//    and 64 + tx*4 + 0..3. Then 8 neighbouring threads read 8 consecutive
//    float4 of a row of Bs: 128 bytes, one pass.
//
// Tasks (handouts/lab8.md, task 3): TODO 3.0 to 3.3 below.
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
constexpr int kPadA = 0;  // TODO(lab8, task 3.0): the padding per row of As (the header says how much)
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
        // TODO(lab8, task 3.1): global -> shared, exactly as in stage 2 (task 2.1);
        //   As now has BM + kPadA floats per row, nothing else changes.
        __syncthreads();

        // TODO(lab8, task 3.2): the inner product of stage 2 with the split thread
        //   tile: acc[i][j] is the element at row(i), col(j) as defined above acc
        //   (four 4 x 4 pieces, 64 apart), the fragments read as float4s as in
        //   stage 2. Goal: no bank conflict in the reads of Bs (the header
        //   explains why). Hints 8.3.x.
        __syncthreads();
        a_ptr += BK;
        b_ptr += BK * N;
    }

    // TODO(lab8, task 3.3): write the thread tile with store4_in_bounds<kVecB>
    //   as in task 2.3, at row(i) and col(j) as defined above (rows past M
    //   skipped, N - col elements left in the row).
    (void)acc; (void)ty; (void)tx; (void)As; (void)Bs; (void)a_row_in; (void)b_cols_left;  // (delete this line when done)
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

}  // namespace student::lab8
